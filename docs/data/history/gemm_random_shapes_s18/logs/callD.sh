#!/usr/bin/env bash
# Call D (main 10807c7 + lab 11's few-columns kernel, uncommitted): grading, memcheck and racecheck; the few-columns kernel
# against the warp-specialized plans at C of 1 to 8 columns (a diagnostic build forces either: LAB11_FEW_COLUMNS, never
# committed); random shapes (lab 11, both seeds).
set -u
tar xJf .gpu/s18D.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step grading 300 $H/p/tests/lab11_grading_solution
step memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 9 $H/p/tests/lab11_grading_solution --gtest_filter='Grading.best.*'
step racecheck 300 compute-sanitizer --tool racecheck --error-exitcode 9 $H/p/tests/lab11_grading_solution --gtest_filter='Grading.best.few_columns*:Grading.best.tall*'
step synccheck 300 compute-sanitizer --tool synccheck --error-exitcode 9 $H/p/tests/lab11_grading_solution --gtest_filter='Grading.best.few_columns*:Grading.best.tall*'
P="287x1x8528,130x4x2256,282x4x1864,284x8x1224,5043x8x2296,9313x8x9424,2885x8x4457,11776x7x5552,533x2x6560,2729x3x52,400x6x148,4806x8x72,1000x1x257,100x3x200,16384x8x16384,64x8x65536,8192x4x1024,32x1x100000,1x1x16,16x8x4096,1x8x1000000,3000x5x3000"
step probe 120 $H/p/labs/gemm_random_shapes --labs 11 --shapes $P --output $R/probe.json --shape-ms 100
LAB11_FEW_COLUMNS=force step force 120 $H/d/gemm_random_shapes --labs 11 --shapes $P --output $R/force.json --shape-ms 100
LAB11_FEW_COLUMNS=never step never 120 $H/d/gemm_random_shapes --labs 11 --shapes $P --output $R/never.json --shape-ms 100
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S1 $H/p $R/s1
step rs_s2 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S2 $H/p $R/s2
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/d.txz -C $R .
