#!/usr/bin/env bash
# Builds the benches and packs what call3.sh runs into TREE/pack/ (git-ignored through
# .git/info/exclude; `run` carries it): pack_call.sh TREE BUILD BASE_BUILD. BUILD: TREE's CMake
# build (Release, CUDA architectures 90-real) with lab11_best_width_tests, lab11_grading_solution,
# lab11_grading_student, lab11_split_finish_solution and gemm_random_shapes built; BASE_BUILD: the
# base's (c4b0d43) with gemm_random_shapes built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=$1 build=$2 base=$3
px=$(mktemp -d)
mkdir -p "$px/new/tests" "$px/new/labs" "$px/base/labs" "$px/lib"
for t in lab11_best_width_tests lab11_grading_solution lab11_grading_student \
  lab11_split_finish_solution; do
  cp "$build/tests/$t" "$px/new/tests/"
done
cp "$build/labs/gemm_random_shapes" "$px/new/labs/"
cp "$base/labs/gemm_random_shapes" "$px/base/labs/"
pairs="-DLAB11_SPECIALIZED_PAIRS=1 -DLAB11_PAIR_B_BY_ONE=0"
BENCH_FLAGS="$pairs" "$here/build_bench.sh" "$tree" "$build" "$px/new/bench_split_b"
# session 46 dropped the benches of pairs by one block and of 4 stages, as call3.sh did
BENCH_SOURCE=bench_widths11.cu "$here/build_bench.sh" "$tree" "$build" "$px/new/bench_widths"
# the device machine lacks Google Benchmark's library, which the test programs link
cp -L /lib/x86_64-linux-gnu/libbenchmark.so.1debian "$px/lib/"
mkdir -p "$tree/pack"
tar -cJf "$tree/pack/bin.tar.xz" -C "$px" .
cp "$here/call3.sh" "$here/shapes_short.txt" "$here/shapes_widths.txt" "$tree/pack/"
rm -rf "$px"
