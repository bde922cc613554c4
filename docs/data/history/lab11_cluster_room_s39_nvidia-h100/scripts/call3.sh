#!/usr/bin/env bash
# Session 39, call 3 (issue 53): the sliced short-K kernel only where the GPU holds a cluster a
# tile at once (ClusterRoom, asked of the runtime) - new - beside the fitted model that sliced as
# far as a block an SM (prev: call 2's new, cb69468) and main at 0779a15 (base). Lab 11's CPU plan
# tests, grading tests (solution, student), the split-finish tests, memcheck, synccheck and
# racecheck of the sliced, short-K and split tests; bench_cluster_room11 (the room, runtime and
# probed, then every count of slices) on the 81 shapes and 22 layouts of call 1; both
# random-shapes seeds of lab 11 twice, new, prev and base in turn. Outputs packed after each step.
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
step grading11 240 $N/tests/lab11_grading_solution --gtest_brief=1
step grading11_student 120 $N/tests/lab11_grading_student --gtest_brief=1
step split_finish 120 $N/tests/lab11_split_finish_solution --gtest_brief=1
F='*cluster_slices*:*short_k*:*split_k*:Grading.best.*'
step memcheck11 240 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter="$F"
step synccheck11 120 compute-sanitizer --tool synccheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter="Grading.best.*cluster_slices*"
step racecheck11 180 compute-sanitizer --tool racecheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter="Grading.best.cluster_slices_1*"
step bench_tight 200 $N/bench_cluster_room11 $(cat pack/shapes_tight.txt)
step bench_layouts 100 $N/bench_cluster_room11 $(cat pack/shapes_layouts.txt)
for round in 1 2; do
  for seed in 4998064687210808757 8444672377437012093; do
    for side in new prev base; do
      t=$SECONDS; r=rs_${side}_${seed}_${round}
      timeout 120 scripts/gemm-random-shapes --labs 11 --seed $seed $S/px/$side $S/$r > $O/$r.log 2>&1
      echo "$r rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
      cp $S/$r/gemm_random_shapes_nvidia-h*.txt $O/${r}_summary.txt 2>/dev/null
      cp $S/$r/gemm_random_shapes_times.json $O/${r}_times.json 2>/dev/null; pack
    done
  done
done
for f in $O/rs_*.log; do echo "$(basename $f)"; grep -E "geometric mean" $f | head -1; done
cat $O/steps.txt
