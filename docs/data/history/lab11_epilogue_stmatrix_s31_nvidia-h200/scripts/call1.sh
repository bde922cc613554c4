#!/bin/bash
# Session 31, call 1: tconv3 alone (batch 5248, 16x16x128 -> 64) under the solution's kernel and
# five experiments, interleaved rounds; each binary prints BF16 tconv3, TF32 tconv3, BF16 tconv2.
cd pack && tar -xJf tb.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/environment.txt
for round in 1 2 3; do
  for v in base ep2 ep4 noepi nomma nocopy; do
    echo "== round $round $v"; timeout 60 ./tb/tb_$v 30
  done
done > $OUT/tb_rounds.txt 2>&1
tail -5 $OUT/tb_rounds.txt
