#!/usr/bin/env bash
# Packs what call_norm.sh and call_c.sh run into TREE/pack/ (scratch: never committed): pack.sh
# TREE BUILD BASE_BUILD. BUILD: TREE's CMake build (Release, CUDA architectures 90-real) with
# lab11_best_width_tests, lab11_grading_solution and gemm_random_shapes built; BASE_BUILD: the
# base's with gemm_random_shapes built (c4b0d43 for call_norm.sh; for call_c.sh, main without
# unaligned_c.patch). The benches: session 46's bench_short_k11 and session 45's bench_widths11,
# built against TREE.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=$1 build=$2 base=$3
history=$here/../..
px=$(mktemp -d)
mkdir -p "$px/new/tests" "$px/new/labs" "$px/base/labs" "$px/lib"
cp "$build/tests/lab11_best_width_tests" "$build/tests/lab11_grading_solution" "$px/new/tests/"
cp "$build/labs/gemm_random_shapes" "$px/new/labs/"
cp "$base/labs/gemm_random_shapes" "$px/base/labs/"
"$history/lab11_short_k_s46_nvidia-h100/scripts/build_bench.sh" "$tree" "$build" "$px/bench_short_k"
BENCH_SOURCE=bench_widths11.cu "$history/lab11_by_copy_s45/scripts/build_bench.sh" "$tree" "$build" \
  "$px/bench_widths"
# the device machine lacks Google Benchmark's library, which the test programs link
cp -L /lib/x86_64-linux-gnu/libbenchmark.so.1debian "$px/lib/"
rm -rf "$tree/pack" && mkdir -p "$tree/pack"
tar -cJf "$tree/pack/bin.tar.xz" -C "$px" .
cp "$here/call_norm.sh" "$here/call_c.sh" "$here"/shapes_*.txt "$tree/pack/"
rm -rf "$px"
