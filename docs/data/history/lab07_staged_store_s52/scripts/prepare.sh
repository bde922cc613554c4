#!/usr/bin/env bash
# Builds and packs call.sh's programs from a clean checkout of main: prepare.sh TREE. Brings back
# staged_store.patch (kept at the commit named below: it copies solution lines, which main must not
# hold) and builds `new` (the patch applied: gemm_random_shapes, lab07_solution,
# lab07_grading_solution, lab07_split_finish_solution) and `base` (TREE as it is:
# gemm_random_shapes), Release, CUDA architectures 90-real, in TREE/build-staged-*. Packed into
# TREE/pack_staged/ with call.sh and history/lab07_misaligned_parts_s51's layouts; TREE's sources
# are left as they were. Then, from TREE: move docs/ aside, run `bash pack_staged/call.sh` carrying
# pack_staged, put docs/ back.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$1" && pwd)
rel=docs/data/history/lab07_staged_store_s52/scripts
kept_at=4fb7de1d63c52dbb8955fe30b47dd305b7943c31  # the commit that holds the patch
git -C "$tree" show "$kept_at:$rel/staged_store.patch" > "$tree/staged_store.patch"
cleanup() {
  git -C "$tree" checkout -- solutions/07_wide_loads
  rm -f "$tree/staged_store.patch"
}
trap cleanup EXIT
build() { "$here/../../lab11_pingpong_s49/scripts/build_tree.sh" "$tree" "$@"; }  # build DIR TARGET...
px=$(mktemp -d)
mkdir -p "$px/base/labs" "$px/new/labs" "$px/new/tests" "$px/lib"
build "$tree/build-staged-base" gemm_random_shapes
cp "$tree/build-staged-base/labs/gemm_random_shapes" "$px/base/labs/"
git -C "$tree" apply "$tree/staged_store.patch"
build "$tree/build-staged-new" gemm_random_shapes lab07_solution lab07_grading_solution lab07_split_finish_solution
cp "$tree/build-staged-new/labs/gemm_random_shapes" "$tree/build-staged-new/labs/lab07_solution" "$px/new/labs/"
cp "$tree/build-staged-new/tests/lab07_grading_solution" "$tree/build-staged-new/tests/lab07_split_finish_solution" \
  "$px/new/tests/"
cp -L /lib/x86_64-linux-gnu/libbenchmark.so.1debian "$px/lib/"
rm -rf "$tree/pack_staged" && mkdir -p "$tree/pack_staged"
XZ_OPT=-T2 tar -cJf "$tree/pack_staged/bin.tar.xz" -C "$px" base new lib
cp "$here/call.sh" "$here/../../call_helpers/steps.sh" "$here/../../lab07_misaligned_parts_s51/scripts/layouts.txt" \
  "$tree/pack_staged/"
rm -rf "$px"
echo "prepare: pack_staged/ ready"
