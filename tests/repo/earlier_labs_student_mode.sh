#!/usr/bin/env bash
# Configures a small second build with CUDALABS_EARLIER_LABS=student and checks that lab 10's student
# build then links the student's own lab 09 and lab 07 kernels (earlier_labs_link_test, no GPU).
#   earlier_labs_student_mode.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1
build=$2
generator=$(command -v ninja >/dev/null && echo Ninja || echo "Unix Makefiles")
# One architecture: this build links, it does not run kernels.
cmake -S "$source_dir" -B "$build" -G "$generator" -DCUDALABS_EARLIER_LABS=student \
      -DCMAKE_CUDA_ARCHITECTURES=75 > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" --target earlier_labs_link_test -j "$(nproc)" > "$build.build.log" 2>&1 ||
  { tail -40 "$build.build.log"; exit 1; }
"$build/tests/earlier_labs_link_test"
# On the student's own earlier labs a later lab runs their cores, never their optional challenges:
# the student kernels (and only they) are built with CUDALABS_EARLIER_LABS_OWN.
python3 - "$build/compile_commands.json" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))
def defined(name):
    hits = [e for e in entries if e["file"].endswith(name)]
    return {("CUDALABS_BUILD_STUDENT" in e["command"], "-DCUDALABS_EARLIER_LABS_OWN=1" in e["command"]) for e in hits}
for source in ("labs/09_dcgan/generator.cu", "labs/10_multi_gpu_dcgan/gpu_worker.cpp"):
    seen = defined(source)
    assert (True, True) in seen, f"{source}: the student build lacks CUDALABS_EARLIER_LABS_OWN ({seen})"
    assert (False, True) not in seen, f"{source}: a solution build has CUDALABS_EARLIER_LABS_OWN ({seen})"
print("earlier_labs_student_mode: the student's later labs run the earlier labs' cores")
PY
