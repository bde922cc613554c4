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
