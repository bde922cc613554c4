#!/usr/bin/env bash
# Builds and packs call 6 from a clean checkout of main: prepare_call6.sh TREE. Brings back the
# bench's copies of the solution's kernel (pingpong11.cuh, sector_store11.cuh, kept at 0017c88) and
# session 50's shifted_store.patch (kept at f723183): they copy lines of the solution, which main
# must not hold. Builds the base (TREE as it is) and, with the patch applied, `new`
# (gemm_random_shapes, lab11_grading_solution; Release, CUDA architectures 90-real, in
# TREE/build-call6-*), bench_cstore against each, packs them into TREE/pack/ as call5.sh reads
# them and leaves TREE's sources as they were. Then, from TREE: move docs/ aside, run
# `bash pack/call5.sh call6` carrying pack, put docs/ back.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$1" && pwd)
rel=docs/data/history/lab11_pingpong_s49/scripts
git -C "$tree" checkout 0017c88 -- $rel/pingpong11.cuh $rel/sector_store11.cuh
git -C "$tree" checkout f723183 -- $rel/shifted_store.patch
kept="$rel/pingpong11.cuh $rel/sector_store11.cuh $rel/shifted_store.patch"
cleanup() {
  git -C "$tree" checkout -- solutions/11_tensor_cores/staged_store.cuh labs/11_tensor_cores/tiles.h
  git -C "$tree" rm -q --cached $kept > /dev/null 2>&1 || true
  (cd "$tree" && rm -f $kept)
}
trap cleanup EXIT
build() { "$here/build_tree.sh" "$tree" "$@"; }  # build DIR TARGET...
px=$(mktemp -d)
mkdir -p "$px/base/labs" "$px/new/labs" "$px/new/tests" "$px/lib"
build "$tree/build-call6-base" gemm_random_shapes
cp "$tree/build-call6-base/labs/gemm_random_shapes" "$px/base/labs/"
BENCH_FLAGS=-DBENCH_CSTORE "$here/build_bench.sh" "$tree" "$tree/build-call6-base" "$px/bench_cstore_base"
git -C "$tree" apply "$tree/$rel/shifted_store.patch"
build "$tree/build-call6-new" gemm_random_shapes lab11_grading_solution
cp "$tree/build-call6-new/labs/gemm_random_shapes" "$px/new/labs/"
cp "$tree/build-call6-new/tests/lab11_grading_solution" "$px/new/tests/"
BENCH_FLAGS=-DBENCH_CSTORE "$here/build_bench.sh" "$tree" "$tree/build-call6-new" "$px/bench_cstore_new"
cp -L /lib/x86_64-linux-gnu/libbenchmark.so.1debian "$px/lib/"
rm -rf "$tree/pack" && mkdir -p "$tree/pack"
tar -cJf "$tree/pack/bin5.tar.xz" -C "$px" base new lib
cp "$px/bench_cstore_base" "$px/bench_cstore_new" "$here/call5.sh" "$here/shapes_call3.txt" "$tree/pack/"
rm -rf "$px"
echo "prepare_call6: pack/ ready"
