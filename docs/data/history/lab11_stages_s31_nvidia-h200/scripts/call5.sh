#!/usr/bin/env bash
# Session 31, call 5 (issue 53): the warp-specialized kernel with as many stages as fit (8, 6, 4 for
# widths 64, 128, 256; new) against 4 (base): bench_plans11 at call 4's shapes, base then new;
# lab 11's grading and split tests, and memcheck, on new; both random-shapes seeds of lab 11, new
# then base.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
tar -xJf pack/bin5.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack_out() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call5.tar.xz -C $O .; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack_out; return $rc; }
SHAPES="17x2326x3664 34x2576x3592 32x1452x2232 139x792x2872 162x952x1712 158x2752x4544 124x7388x328 73x10332x416 1x88x723 5043x8x2296 10647x440x280 2173x520x1840 1579x536x10112 10249x272x10072 2389x2048x13256"
for round in 1; do for v in base new; do
  step plans_${v}_$round 150 $S/$v/bench_plans11 $SHAPES
done; done
T=$S/new/tests
step grading11 240 $T/lab11_grading_solution --gtest_brief=1
step grading11_student 120 $T/lab11_grading_student --gtest_brief=1
step split11 60 $T/lab11_split_finish_solution --gtest_brief=1
step memcheck11 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab11_grading_solution --gtest_brief=1 --gtest_filter='*pecialized*:*Best*'
for seed in 4998064687210808757 8444672377437012093; do
  for side in new base; do
    t=$SECONDS; timeout 120 scripts/gemm-random-shapes --labs 11 --seed $seed $S/$side $S/rs_${side}_$seed > $O/rs_${side}_$seed.log 2>&1
    echo "rs_${side}_$seed rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
    for f in $S/rs_${side}_$seed/*; do [ -f $f ] && cp $f $O/rs_${side}_${seed}_$(basename $f); done; pack_out
  done
done
pack_out
