#!/usr/bin/env bash
# Issue 53: written in session 44 as its call 3; session 45 added bench_widths11 and put the tests
# that landing the code needs first, and could start no machine to run it: the warp-specialized
# kernel's tiles stored through the copy engine (TMA stores from epilogue slots; 3 stages on 128 x
# 256 tiles, 5 slots a consumer), `best` not in pairs. Lab 11's CPU plan tests, grading tests
# (solution, student), split-finish tests, memcheck, racecheck and synccheck of the shapes stored by
# copy; bench_pairs11 three ways (pairs with each block multicasting half of B; block 0 multicasting
# all of B; 4 stages and 2 slots on 128 x 256 tiles) at shapes_short.txt (session 44's ten shapes
# and four more); bench_widths11 (every tile `best` weighs, K whole) at shapes_widths.txt; both
# random-shapes seeds of lab 11, new and base (main at c4b0d43) in turn. Ordered so that what
# matters most comes first (landing's tests, the kernel's bench, the random shapes, then the rest),
# as what a call leaves under $OUT comes back when it is cut short. Run from the repository root
# (`bash pack/call3.sh`) after pack_call.sh has packed pack/bin.tar.xz (new/tests/...,
# new/bench_split_b, new/bench_b_by_one, new/bench_four_stages, new/bench_widths,
# new/labs/gemm_random_shapes, base/labs/gemm_random_shapes, lib/) and copies of this script,
# shapes_short.txt and shapes_widths.txt in pack/.
# Session 46 ran it without its two benches of pairs (bench_four_stages, bench_b_by_one): pairs are
# off by default, and the session's device time, most of it spent on machines that did not start,
# went to the short-K benches instead (history/lab11_short_k_s46_nvidia-h100/).
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call3.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack; }
N=$S/px/new
step plan_tests 60 $N/tests/lab11_best_width_tests --gtest_brief=1
step grading11_by_copy 100 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.*by_copy*:Grading.best.*pairs*:Grading.best.*tail_split*'
step bench_split_b 120 $N/bench_split_b $(cat pack/shapes_short.txt)
step grading11 300 $N/tests/lab11_grading_solution --gtest_brief=1
step grading11_student 150 $N/tests/lab11_grading_student --gtest_brief=1
step split_finish 150 $N/tests/lab11_split_finish_solution --gtest_brief=1
step memcheck11 120 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.by_copy*:Grading.best.*tail_split*'
step racecheck11 150 compute-sanitizer --tool racecheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.by_copy_tail_split*'
step synccheck11 150 compute-sanitizer --tool synccheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.by_copy_rounds*'
for seed in 4998064687210808757 8444672377437012093; do
  for side in new base; do
    t=$SECONDS; r=rs_${side}_${seed}
    timeout 60 scripts/gemm-random-shapes --labs 11 --seed $seed $S/px/$side $S/$r > $O/$r.log 2>&1
    echo "$r rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
    cp $S/$r/gemm_random_shapes_nvidia-h*.txt $O/${r}_summary.txt 2>/dev/null
    cp $S/$r/gemm_random_shapes_times.json $O/${r}_times.json 2>/dev/null; pack
  done
done
step bench_widths 150 $N/bench_widths $(cat pack/shapes_widths.txt)
for f in $O/rs_*.log; do echo "$(basename $f)"; grep -E "geometric mean" $f | head -1; done
cat $O/steps.txt
