#!/usr/bin/env bash
# Session 44, call 2 (issue 53): call 1 ran pairs 1.6 to 2 times slower than a block at a time.
# Two pair builds of bench_pairs11, both with the consumers' arrivals on the other block's barrier
# at the instruction's default (release, CTA scope) instead of call 1's cluster scope:
# bench_split_b (each block multicasts half of B's k-rows, as in call 1) and bench_b_by_one
# (block 0 multicasts all of B, 64-row boxes; block 1 copies only its A). Each line also says how
# many pairs the runtime holds at once.
# Run from the repository root with pack/bench_split_b, pack/bench_b_by_one and pack/lib/.
set -u
O=$(mktemp -d)
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
shapes="4096x4096x4096 2048x2048x2048 8192x8192x1024 128x3001x4001 256x512x16384 4096x1000x1000"
for b in bench_split_b bench_b_by_one; do
  timeout 120 pack/$b $shapes > $O/$b.txt 2>&1; echo "$b rc=$?" >> $O/steps.txt
done
cp $O/* $OUT/; cat $O/*.txt
