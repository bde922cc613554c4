#!/usr/bin/env bash
# Builds and packs what call3.sh runs, from a clean checkout of main: prepare_call3.sh TREE. Brings
# back the scripts kept at 0017c88 (they copy lines of the solution, which main must not hold),
# builds the base (TREE as it is), bench_cstore against it, the patched solution as SK and, with the
# charge for C off 16 bytes at 0, as S0 (Release, CUDA architectures 90-real, in TREE/build-call3-*),
# packs them into TREE/pack/ (pack.sh) and leaves TREE's sources as they were. Then, from TREE: move
# docs/ aside, run `bash pack/call3.sh` carrying pack, put docs/ back.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$1" && pwd)
rel=docs/data/history/lab11_pingpong_s49/scripts
kept="$rel/pingpong11.cuh $rel/sector_store11.cuh $rel/sector_store.patch"
git -C "$tree" checkout 0017c88 -- $kept
cleanup() {
  git -C "$tree" checkout -- solutions/11_tensor_cores/staged_store.cuh labs/11_tensor_cores/tiles.h \
    labs/11_tensor_cores/best_plan.h
  git -C "$tree" rm -q --cached $kept > /dev/null 2>&1 || true
  (cd "$tree" && rm -f $kept)
}
trap cleanup EXIT
build() {  # build DIR TARGET...
  local dir=$1
  shift
  cmake -S "$tree" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
    > "$dir.log" 2>&1
  ninja -C "$dir" "$@" >> "$dir.log" 2>&1
}
out=$(mktemp -d)
mkdir -p "$out/base" "$out/sk" "$out/s0"
build "$tree/build-call3-base" gemm_random_shapes
cp "$tree/build-call3-base/labs/gemm_random_shapes" "$out/base/"
BENCH_FLAGS=-DBENCH_CSTORE "$here/build_bench.sh" "$tree" "$tree/build-call3-base" "$out/bench_cstore"
git -C "$tree" apply "$tree/$rel/sector_store.patch"
build "$tree/build-call3-sk" gemm_random_shapes lab11_grading_solution
cp "$tree/build-call3-sk/labs/gemm_random_shapes" "$tree/build-call3-sk/tests/lab11_grading_solution" \
  "$out/sk/"
sed -i 's/  return width > 128 ? 1.0 : width > 64 ? 0.12 : 0.0;/  return 0.0 * width;/' \
  "$tree/labs/11_tensor_cores/best_plan.h"
grep -q "return 0.0 \* width;" "$tree/labs/11_tensor_cores/best_plan.h"
build "$tree/build-call3-sk" gemm_random_shapes
cp "$tree/build-call3-sk/labs/gemm_random_shapes" "$out/s0/"
"$here/pack.sh" "$tree" "$out/sk" "$out/s0" "$out/base"
cp "$out/bench_cstore" "$tree/pack/"
rm -rf "$out"
echo "prepare_call3: pack/ ready"
