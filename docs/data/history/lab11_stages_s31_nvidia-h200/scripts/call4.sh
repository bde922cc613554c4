#!/usr/bin/env bash
# Session 31, call 4 (issue 53): lab 11's warp-specialized plans (every width, K in 1 to 32 slices)
# at the random shapes' worst shapes with few rows, and some large ones, against the model, best
# and cuBLAS (bench_plans11, one process, operands rotated through sets beyond the L2).
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
tar -xJf pack/bp.tar.xz -C $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
for group in "17x2326x3664 34x2576x3592 32x1452x2232 139x792x2872 162x952x1712" \
             "158x2752x4544 124x7388x328 73x10332x416 1x88x723 5043x8x2296" \
             "10647x440x280 2173x520x1840 1579x536x10112 10249x272x10072 2389x2048x13256"; do
  timeout 150 $S/bench_plans11 $group >> $O/plans.txt 2>&1; echo "rc=$? $group" >> $O/steps.txt
  cp $O/* $OUT/
done
