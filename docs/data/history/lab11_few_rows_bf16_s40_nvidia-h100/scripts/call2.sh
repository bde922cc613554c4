#!/usr/bin/env bash
# Session 41, call 2 (issue 53): the few-rows kernel with its model fitted to call 1's bench
# (a group's latency rising with the bytes in flight; kFewRowsMargin). The same steps as call1.sh:
# lab 11's CPU plan tests, grading tests (solution, student), split-finish tests, memcheck and
# racecheck, the bench on shapes_fit.txt (the new model's picks), both random-shapes seeds of lab 11
# twice, new and base (main at 971f3a2) in turn; Nsight Compute of the kernel at 1 x 30001 x 777,
# where a few blocks stream B slower than many.
# The tests and the first round of random shapes first, the bench and the second round after:
# outputs packed after each step.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call2.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack; }
N=$S/px/new
step plan_tests 60 $N/tests/lab11_best_width_tests --gtest_brief=1
step grading11 240 $N/tests/lab11_grading_solution --gtest_brief=1
# SHORT=1 (when little device time is left): the solution's grading tests, memcheck and the first
# round of random shapes alone.
[ -z "${SHORT:-}" ] && step grading11_student 120 $N/tests/lab11_grading_student --gtest_brief=1
[ -z "${SHORT:-}" ] && step split_finish 120 $N/tests/lab11_split_finish_solution --gtest_brief=1
step memcheck11 240 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.*few_rows*:Grading.best.*split_k*:Grading.best.*short_k*'
[ -z "${SHORT:-}" ] && step racecheck11 120 compute-sanitizer --tool racecheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.few_rows_padded*'
random_shapes() {
  for seed in 4998064687210808757 8444672377437012093; do
    for side in new base; do
      t=$SECONDS; r=rs_${side}_${seed}_$1
      timeout 60 scripts/gemm-random-shapes --labs 11 --seed $seed $S/px/$side $S/$r > $O/$r.log 2>&1
      echo "$r rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
      cp $S/$r/gemm_random_shapes_nvidia-h*.txt $O/${r}_summary.txt 2>/dev/null
      cp $S/$r/gemm_random_shapes_times.json $O/${r}_times.json 2>/dev/null; pack
    done
  done
}
random_shapes 1
[ -n "${SHORT:-}" ] && exit 0
step bench_fit 240 $N/bench_few_rows11 $(cat pack/shapes_fit.txt)
random_shapes 2
step ncu_few_rows 120 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats -k regex:few_rows --launch-count 3 $N/bench_few_rows11 1x30001x777
for f in $O/rs_*.log; do echo "$(basename $f)"; grep -E "geometric mean" $f | head -1; done
cat $O/steps.txt
