#!/usr/bin/env bash
# Session 35, call 6 (issue 53), an experiment: the few-columns kernel with slices of K up to 2048
# values (kFewColumnsMaxSliceK 2048: B's slice in 33 KiB of shared memory) against the kept build
# (1024), bench_few_columns11_long and bench_few_columns11 at the same shapes, one process each.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call6.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt; pack; }
SHAPES="9313x8x9424 16384x8x16384 11776x7x5552 2885x8x4457 3000x2x12000 400x8x30000 1000x8x8000 5043x8x2296 7000x8x3000 20000x8x2048 32x1x100000 2500x5x5001"
step bench_kept 150 $S/px/bench/bench_few_columns11_new $SHAPES
step bench_s2048 150 $S/px/bench/bench_few_columns11_s2048 $SHAPES
cat $O/steps.txt
