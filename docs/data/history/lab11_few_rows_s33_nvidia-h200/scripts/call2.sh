#!/usr/bin/env bash
# Session 33, call 2 (issue 53): call 1's build with the 64-row tiles not weighed for a C of at most
# 8 columns (the few-columns class), chosen on call 1's plans. Lab 11's grading (solution, student),
# split and DCGAN tests, memcheck of the specialized and best tests; bench_plans11 at 10 shapes the
# choice did not see (where call 1's random shapes moved most); both random-shapes seeds of lab 11,
# this build (new) and main's (base) in turn, twice. Outputs packed after each step.
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
step grading11 240 $N/tests/lab11_grading_solution --gtest_brief=1
step grading11_student 120 $N/tests/lab11_grading_student --gtest_brief=1
step split11 60 $N/tests/lab11_split_finish_solution --gtest_brief=1
step memcheck11 180 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='*pecialized*:*Best*:Grading.best.*'
step dcgan11 150 $N/tests/lab11_dcgan_solution --gtest_brief=1
step plans_4 150 $N/bench_plans11 514x3391x168 1299x100x1536 686x120x13245 1958x826x2800 2432x115x3704 527x158x1144 284x8x1224 81x16x104 112x312x112 12x81x1192
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
