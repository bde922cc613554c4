#!/usr/bin/env bash
# Session 43, call 3 (issue 53): call 2's build, and in a stream being captured into a graph the
# summing path poisons only the workspace's rows from the first tile with parts (TailParts:
# first_row_with_parts), so a tail split no longer clears a whole C's worth of workspace. Lab 11's
# CPU plan tests, split-finish tests (captured graphs give the stream's bits) and their memcheck,
# `best`'s grading tests and memcheck of the split shapes; lab 07's split-finish tests
# and `best`'s grading tests (common/slice_sums.cuh is theirs too); the bench's tail mode; both
# random-shapes seeds of lab 11 once, new and base (main at 05f209f).
# Run from the repository root with pack/bin.tar.xz as in call2.sh plus new/tests/lab07_*, and
# copies of this script and shapes_tail.txt in pack/. Cut to these steps after three machines
# failed to start (little device time left).
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
step split_finish 150 $N/tests/lab11_split_finish_solution --gtest_brief=1
step memcheck_split_finish 200 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab11_split_finish_solution --gtest_brief=1 --gtest_filter='*Captured*'
step split_finish07 150 $N/tests/lab07_split_finish_solution --gtest_brief=1
step grading07_best 200 $N/tests/lab07_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.*'
step grading11_best 200 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.*'
step memcheck11 300 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.*tail_split*:Grading.best.*split_k*:Grading.best.*a_onto*'
step bench_tail 240 $N/bench_tail_split11 tail $(cat pack/shapes_tail.txt)
for seed in 4998064687210808757 8444672377437012093; do
  for side in new base; do
    t=$SECONDS; r=rs_${side}_${seed}_3
    timeout 60 scripts/gemm-random-shapes --labs 11 --seed $seed $S/px/$side $S/$r > $O/$r.log 2>&1
    echo "$r rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
    cp $S/$r/gemm_random_shapes_nvidia-h*.txt $O/${r}_summary.txt 2>/dev/null
    cp $S/$r/gemm_random_shapes_times.json $O/${r}_times.json 2>/dev/null; pack
  done
done
for f in $O/rs_*.log; do echo "$(basename $f)"; grep -E "geometric mean" $f | head -1; done
cat $O/steps.txt
