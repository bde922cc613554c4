#!/usr/bin/env bash
# Session 35, call 1 (issue 53): lab 11's few-columns kernel on mma.sync m16n8k16 (16 values of K a
# lane a row, A at the widest loads its rows allow, B's 8-column rows staged 16 bytes a load)
# against main's (FP32 FMAs, 8 values a lane). Lab 11's grading tests (solution, student), split and
# DCGAN tests, memcheck of the few-columns and `best` tests; bench_few_columns11 of this build (new)
# and of main (base) at the same shapes; both random-shapes seeds of lab 11, new then base, twice.
# Outputs packed after each step.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call1.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack; }
N=$S/px/new
step grading11 240 $N/tests/lab11_grading_solution --gtest_brief=1
step grading11_student 120 $N/tests/lab11_grading_student --gtest_brief=1
step split11 60 $N/tests/lab11_split_finish_solution --gtest_brief=1
step dcgan11 150 $N/tests/lab11_dcgan_solution --gtest_brief=1
step memcheck11 240 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='*few_columns*:Grading.best.*'
SHAPES="5043x8x2296 2885x8x4457 9313x8x9424 16384x8x16384 8192x4x1024 287x1x8528 284x8x1224 130x7x2255 11776x7x5552 12231x3x464 1166x5x2059 100x3x200 32x1x100000 2049x8x1500 4000x6x3002 777x5x3333 60000x8x512 3000x2x12000"
for side in new base; do
  step bench_$side 150 $S/px/bench/bench_few_columns11_$side $SHAPES
done
for round in 1 2; do
  for seed in 4998064687210808757 8444672377437012093; do
    for side in new base; do
      t=$SECONDS; r=rs_${side}_${seed}_$round
      timeout 120 scripts/gemm-random-shapes --labs 11 --seed $seed $S/px/$side $S/$r > $O/$r.log 2>&1
      echo "$r rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
      tar -cJf $O/$r.tar.xz -C $S/$r . 2>/dev/null; pack
    done
  done
done
for f in $O/rs_*.log; do echo "$(basename $f)"; grep -E "geometric mean" $f | head -1; done
cat $O/steps.txt
