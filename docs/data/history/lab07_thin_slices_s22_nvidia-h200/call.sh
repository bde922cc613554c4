#!/bin/bash
# Session 22, call 5 (issue 53): lab 07's planner with split slices down to 64 deep (kMinSliceK 64; stream-K's runs
# still 128): every plan timed at the 12 shapes of both seeds whose choice changes and 6 mid-size shapes whose does
# not; both seeds' random shapes (lab 07) with it; the plans' GPU tests.
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
step plans 150 $X/labs/lab07_plans_solution --shapes 2x65x696,870x299x230,65x952x224,77x184x328,583x331x352,225x724x328,304x91x789,369x91x1368,106x88x208,592x76x848,82x191x528,36x112x440,286x122x2574,2721x891x24,1190x390x419,514x3391x168,2255x195x80,527x158x1144 --repetitions 5 --output $R/plans_thin_slices.json
step seed1 90 scripts/gemm-random-shapes --labs 07 --seed 4998064687210808757 $X $R/seed1
step seed2 90 scripts/gemm-random-shapes --labs 07 --seed 8444672377437012093 $X $R/seed2
step split_tests 60 $X/tests/lab07_split_finish_solution
step best_plan_tests 90 $X/tests/lab07_grading_solution --gtest_filter='*BestPlan*:*Best*Plan*'
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/out.txz -C $R .
