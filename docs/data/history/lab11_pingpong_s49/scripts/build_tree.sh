#!/usr/bin/env bash
# Configures and builds TARGETs of a checkout the way the session-50 calls' programs were built:
# build_tree.sh TREE DIR TARGET... (Release, CUDA architectures 90-real, Ninja; log in DIR.log).
# prepare_call6.sh and history/lab07_finish_loads_s50/scripts/prepare.sh use it; prepare_call3.sh
# is kept as it ran, with the same lines of its own.
set -eu
tree=$1 dir=$2
shift 2
cmake -S "$tree" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
  > "$dir.log" 2>&1
ninja -C "$dir" "$@" >> "$dir.log" 2>&1
