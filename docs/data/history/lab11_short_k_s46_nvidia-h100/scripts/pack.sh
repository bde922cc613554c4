#!/usr/bin/env bash
# Builds bench_short_k11 three times (chunks of 32 and 64; 4 buffers with K whole) and packs them with call_short_k.sh into
# TREE/pack/ (git-ignored): pack.sh TREE BUILD, BUILD as build_bench.sh takes it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=$1 build=$2
px=$(mktemp -d)
"$here/build_bench.sh" "$tree" "$build" "$px/bench_short_k32" &
first=$!
"$here/build_bench.sh" "$tree" "$build" "$px/bench_short_k64" -DLAB11_SHORT_K_CHUNK=64
wait $first
"$here/build_bench.sh" "$tree" "$build" "$px/bench_short_k_s4" -DLAB11_SHORT_K_WHOLE_STAGES=4
mkdir -p "$tree/pack"
tar -cJf "$tree/pack/short_k.tar.xz" -C "$px" .
cp "$here/call_short_k.sh" "$here/shapes_short_k.txt" "$tree/pack/"
rm -rf "$px"
