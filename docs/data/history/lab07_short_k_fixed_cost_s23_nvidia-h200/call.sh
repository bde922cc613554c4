#!/bin/bash
# Session 23, call 4 (issue 53): lab 07's planner with wide_128x64's fixed cost refitted (8 -> 5 us):
# every plan timed at the short-K shapes whose choice moves (and the one it moves the wrong way,
# 9476 x 362 x 18), both seeds' random shapes of both labs with it, the plans' GPU tests.
set -u
T0=$(date +%s); BUDGET=400
X=$PWD/.bins; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib:${LD_LIBRARY_PATH:-}
R=$X/out; mkdir -p $R
step() { local name=$1 limit=$2; shift 2; local left=$(( BUDGET - ($(date +%s) - T0) ))
  (( left < limit )) && limit=$left; (( limit < 5 )) && { echo "$name skipped (no time)" | tee -a $R/log.txt; return; }
  local t0=$(date +%s); timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
step plans 60 $X/labs/lab07_plans_solution --shapes 2721x891x24,6158x376x24,201x10738x36,9235x312x21,1119x7028x24,11844x708x48,604x14960x54,2169x1388x78,590x8272x80,9476x362x18,539x6046x24,12255x167x48,2973x4234x51,712x12453x80,1140x8111x136 --repetitions 5 --output $R/plans_short_k.json
step seed1 100 scripts/gemm-random-shapes --labs 07,11 --seed 4998064687210808757 $X $R/seed1
step seed2 100 scripts/gemm-random-shapes --labs 07,11 --seed 8444672377437012093 $X $R/seed2
step split_tests 60 $X/tests/lab07_split_finish_solution
step best_plan_tests 90 $X/tests/lab07_grading_solution --gtest_filter='*BestPlan*:*Best*Plan*'
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/out.txz -C $R .
