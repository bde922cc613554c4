#!/usr/bin/env bash
# Builds and packs call.sh's program from a clean checkout of main: prepare.sh TREE. Main's
# lab07_solution (Release, CUDA architectures 90-real, in TREE/build-parts) and libbenchmark, with
# call.sh, call_ncu.sh and layouts.txt, in TREE/pack_parts/. Then, from TREE: move docs/ aside, run
# `bash pack_parts/call.sh` carrying pack_parts, put docs/ back.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$1" && pwd)
"$here/../../lab11_pingpong_s49/scripts/build_tree.sh" "$tree" "$tree/build-parts" lab07_solution
rm -rf "$tree/pack_parts" && mkdir -p "$tree/pack_parts/lib"
cp "$tree/build-parts/labs/lab07_solution" "$here/call.sh" "$here/call_ncu.sh" "$here/layouts.txt" "$tree/pack_parts/"
cp -L /lib/x86_64-linux-gnu/libbenchmark.so.1debian "$tree/pack_parts/lib/"
echo "prepare: pack_parts/ ready"
