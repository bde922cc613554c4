#!/usr/bin/env bash
# Issue 53, written in session 47, run in session 48 (call_1/): lab 11's short-K model with its
# two times joined by a p-norm (best_plan.h: kShortKNormP), against the base (c4b0d43: their maximum). The plan tests (CPU);
# `best`'s grading tests; both random-shapes seeds, new and base in turn, twice; bench_short_k11
# (short-K kernel, `best`, cuBLAS) at session 46's 31 shapes and the shapes whose path the norm
# changes (shapes_flipped.txt); bench_widths11 (every tile, K whole) at those. Run from the
# repository root after pack.sh (`bash pack/call_norm.sh`), carrying pack/.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call_norm.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack; }
N=$S/px/new
step plan_tests 60 $N/tests/lab11_best_width_tests --gtest_brief=1
step grading11_best 120 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.*'
for round in 1 2; do
  for seed in 4998064687210808757 8444672377437012093; do
    for side in new base; do
      t=$SECONDS; r=rs_${side}_${seed}_$round
      timeout 60 scripts/gemm-random-shapes --labs 11 --seed $seed $S/px/$side $S/$r > $O/$r.log 2>&1
      echo "$r rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
      cp $S/$r/gemm_random_shapes_nvidia-h*.txt $O/${r}_summary.txt 2>/dev/null
      cp $S/$r/gemm_random_shapes_times.json $O/${r}_times.json 2>/dev/null; pack
    done
  done
done
step bench_short_k 90 $S/px/bench_short_k $(cat pack/shapes_short_k.txt pack/shapes_flipped.txt)
step bench_widths 90 $S/px/bench_widths $(cat pack/shapes_flipped.txt)
cat $O/steps.txt
