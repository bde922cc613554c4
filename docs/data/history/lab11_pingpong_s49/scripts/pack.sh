#!/usr/bin/env bash
# Packs what call3.sh runs into TREE/pack/ (scratch: never committed): pack.sh TREE SK S0 BASE.
# SK, S0, BASE: folders holding each build's labs/gemm_random_shapes (SK also
# tests/lab11_grading_solution); bench_cstore (bench_pingpong11.cu with -DBENCH_CSTORE) is built
# against TREE/build as the base was.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=$1
px=$(mktemp -d)
for side in sk s0 base; do mkdir -p "$px/$side/labs" "$px/$side/tests"; done
cp "$2/gemm_random_shapes" "$px/sk/labs/"; cp "$2/lab11_grading_solution" "$px/sk/tests/"
cp "$3/gemm_random_shapes" "$px/s0/labs/"; cp "$4/gemm_random_shapes" "$px/base/labs/"
mkdir -p "$px/lib" && cp -L /lib/x86_64-linux-gnu/libbenchmark.so.1debian "$px/lib/"
rm -rf "$tree/pack" && mkdir -p "$tree/pack"
tar -cJf "$tree/pack/bin.tar.xz" -C "$px" .
cp "$here/call2.sh" "$here/call3.sh" "$here/shapes_cstore.txt" "$here/shapes_call3.txt" "$tree/pack/"
rm -rf "$px"
