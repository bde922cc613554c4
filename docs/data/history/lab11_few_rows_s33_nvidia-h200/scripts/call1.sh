#!/usr/bin/env bash
# Session 33, call 1 (issue 53): lab 11's warp-specialized kernel on 64-row tiles (one consumer
# warpgroup, 8 stages; the variant warp_specialized_64x128 and best's plans of 64 x 64 and 64 x 128
# tiles). Lab 11's grading (solution, student), split and DCGAN tests, memcheck of the specialized
# and best tests; bench_plans11 at the random shapes' worst lab 11 shapes (every tile and split
# against the model, best and cuBLAS); both random-shapes seeds of lab 11, this build (new) and
# main's (base) in turn. Outputs packed after each step.
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
step memcheck11 180 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='*pecialized*:*Best*:Grading.best.*'
step plans_1 150 $N/bench_plans11 17x2326x3664 34x2576x3592 32x1452x2232 21x544x5224 1x88x723 12x408x9058 73x10332x416 124x7388x328 109x68x3133 139x792x2872 162x952x1712 158x2752x4544
step plans_2 150 $N/bench_plans11 181x479x7144 242x364x2912 5043x8x2296 2885x8x4457 623x42x6615 2173x520x1840 10249x272x10072 1579x536x10112 2389x2048x13256
step plans_3 150 $N/bench_plans11 2x14073x13664 5x8902x16167
for seed in 4998064687210808757 8444672377437012093; do
  for side in new base; do
    t=$SECONDS
    timeout 120 scripts/gemm-random-shapes --labs 11 --seed $seed $S/px/$side $S/rs_${side}_$seed > $O/rs_${side}_$seed.log 2>&1
    echo "rs_${side}_$seed rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
    tar -cJf $O/rs_${side}_$seed.tar.xz -C $S/rs_${side}_$seed . 2>/dev/null; pack
  done
done
step dcgan11 150 $N/tests/lab11_dcgan_solution --gtest_brief=1
for f in $O/rs_new_*.log $O/rs_base_*.log; do echo "$(basename $f)"; grep -E "geometric mean" $f | head -1; done
cat $O/steps.txt
