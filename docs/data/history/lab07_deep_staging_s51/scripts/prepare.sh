#!/usr/bin/env bash
# Builds and packs call.sh's programs from a clean checkout of main: prepare.sh TREE. Brings back
# session 51's deep_staging.patch (kept at the commit named below: it copies solution lines, which
# main must not hold) and builds three trees (Release, CUDA architectures 90-real, in
# TREE/build-deep-*): `base` (TREE as it is), `a` (the patch: two sets of registers for the tiles
# of 32 x 32, 64 x 64 and 128 x 64) and `b` (three for 32 x 32 and 128 x 64, two for 64 x 64).
# Each: gemm_random_shapes, lab07_grading_solution, lab07_plans_solution,
# lab07_split_finish_solution; `a` also lab09_grading_solution (lab 09 shares the tile loop's
# store). Packed into TREE/pack_deep/ with call.sh and session 32's 30 plan shapes; TREE's sources
# are left as they were. Then, from TREE: move docs/ aside, run `bash pack_deep/call.sh` carrying
# pack_deep, put docs/ back.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$1" && pwd)
rel=docs/data/history/lab07_deep_staging_s51/scripts
kept_at=0efea609f3e405e251d1e42b4fb6b37c525749a2  # the commit that holds the patch
git -C "$tree" show "$kept_at:$rel/deep_staging.patch" > "$tree/deep_staging.patch"
cleanup() {
  git -C "$tree" checkout -- solutions/07_wide_loads
  rm -f "$tree/deep_staging.patch"
}
trap cleanup EXIT
build() { "$here/../../lab11_pingpong_s49/scripts/build_tree.sh" "$tree" "$@"; }  # build DIR TARGET...
targets="gemm_random_shapes lab07_grading_solution lab07_plans_solution lab07_split_finish_solution"
px=$(mktemp -d)
take() {  # take SIDE DIR TARGET...: copies the built programs into the pack
  local side=$1 dir=$2; shift 2
  mkdir -p "$px/$side/labs" "$px/$side/tests"
  for t in "$@"; do
    if [ -f "$dir/labs/$t" ]; then cp "$dir/labs/$t" "$px/$side/labs/"; else cp "$dir/tests/$t" "$px/$side/tests/"; fi
  done
}
build "$tree/build-deep-base" $targets
take base "$tree/build-deep-base" $targets
git -C "$tree" apply "$tree/deep_staging.patch"
build "$tree/build-deep-a" $targets lab09_grading_solution
take a "$tree/build-deep-a" $targets lab09_grading_solution
sed -i 's/^#define LAB07_SETS_32X32 2$/#define LAB07_SETS_32X32 3/; s/^#define LAB07_SETS_128X64 2$/#define LAB07_SETS_128X64 3/' \
  "$tree/solutions/07_wide_loads/best_kernels.cuh"
grep -q '^#define LAB07_SETS_32X32 3$' "$tree/solutions/07_wide_loads/best_kernels.cuh"
build "$tree/build-deep-b" $targets
take b "$tree/build-deep-b" $targets
mkdir -p "$px/lib" && cp -L /lib/x86_64-linux-gnu/libbenchmark.so.1debian "$px/lib/"
rm -rf "$tree/pack_deep" && mkdir -p "$tree/pack_deep"
tar -cJf "$tree/pack_deep/bin.tar.xz" -C "$px" base a b lib
cp "$here/call.sh" "$tree/pack_deep/"
cp "$tree"/docs/data/history/lab07_small_tiles_s32_nvidia-h200/scripts/shapes_0? "$tree/pack_deep/"
rm -rf "$px"
echo "prepare: pack_deep/ ready"
