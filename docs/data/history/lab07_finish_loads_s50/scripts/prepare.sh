#!/usr/bin/env bash
# Builds and packs call.sh's programs from a clean checkout of main: prepare.sh TREE. The base (TREE
# as it is) and, with finish_loads.patch applied, `new` (Release, CUDA architectures 90-real, in
# TREE/build-finish-*): gemm_random_shapes, and for new lab07_split_finish_solution,
# lab11_split_finish_solution and lab07_grading_solution; packed into TREE/pack_finish/, TREE's
# sources left as they were. Then, from TREE: move docs/ aside, run `bash pack_finish/call.sh`
# carrying pack_finish, put docs/ back.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$1" && pwd)
trap 'git -C "$tree" checkout -- common/split_finish.cuh' EXIT
build() { "$here/../../lab11_pingpong_s49/scripts/build_tree.sh" "$tree" "$@"; }  # build DIR TARGET...
px=$(mktemp -d)
mkdir -p "$px/base/labs" "$px/new/labs" "$px/new/tests" "$px/lib"
build "$tree/build-finish-base" gemm_random_shapes
cp "$tree/build-finish-base/labs/gemm_random_shapes" "$px/base/labs/"
git -C "$tree" apply "$here/finish_loads.patch"
build "$tree/build-finish-new" gemm_random_shapes lab07_split_finish_solution lab11_split_finish_solution \
  lab07_grading_solution
cp "$tree/build-finish-new/labs/gemm_random_shapes" "$px/new/labs/"
for t in lab07_split_finish_solution lab11_split_finish_solution lab07_grading_solution; do
  cp "$tree/build-finish-new/tests/$t" "$px/new/tests/"
done
cp -L /lib/x86_64-linux-gnu/libbenchmark.so.1debian "$px/lib/"
rm -rf "$tree/pack_finish" && mkdir -p "$tree/pack_finish"
tar -cJf "$tree/pack_finish/bin.tar.xz" -C "$px" base new lib
cp "$here/call.sh" "$here/shapes.txt" "$tree/pack_finish/"
rm -rf "$px"
echo "prepare: pack_finish/ ready"
