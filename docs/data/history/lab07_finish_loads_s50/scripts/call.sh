#!/usr/bin/env bash
# Issue 53, the split finish's loads (built in session 50, not yet run): common/split_finish.cuh
# with finish_loads.patch (`new`) against main (`base`). Lab 07's and lab 11's split-finish tests
# and lab 07's `best` grading tests of new, memcheck of the split-finish tests, then `best` against
# cuBLAS at shapes.txt (lab 07 and lab 11, split shapes from the random-shapes records' worst),
# base, new, base, new in turn (gemm_random_shapes: 7 interleaved rounds a shape, medians; GPU time
# a launch from 16 launches in a CUDA graph). Everything in a scratch folder, packed at the end into
# $OUT/finish.tar.gz; the steps' lines also in $OUT/finish_steps.txt. Run from the repository root:
# bash pack_finish/call.sh, carrying pack_finish/ (prepare.sh builds it).
set -u
cd "$(dirname "$0")/.."
S=$(mktemp -d)
tar -xJf pack_finish/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
O=$(mktemp -d)
packed() { cp $O/finish_steps.txt $OUT/ 2>/dev/null; tar -czf $OUT/finish.tar.gz -C $O .; }
trap packed EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-s)) s $(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY' $O/$name.txt | tr '\n' ' ')" | tee -a $O/finish_steps.txt; }
step split07 60 $S/new/tests/lab07_split_finish_solution --gtest_brief=1
step split11 60 $S/new/tests/lab11_split_finish_solution --gtest_brief=1
step grading07_best 90 $S/new/tests/lab07_grading_solution --gtest_brief=1 --gtest_filter='Grading.best*'
step memcheck_split07 90 compute-sanitizer --tool memcheck $S/new/tests/lab07_split_finish_solution --gtest_brief=1
step memcheck_split11 90 compute-sanitizer --tool memcheck $S/new/tests/lab11_split_finish_solution --gtest_brief=1
for round in 1 2; do
  for side in base new; do
    step shapes_${side}_$round 60 $S/$side/labs/gemm_random_shapes --labs 07,11 --shapes $(cat pack_finish/shapes.txt) \
      --seed 1 --output $O/shapes_${side}_$round.json --rounds 7 --min-rounds 3 --round-ms 5 --shape-ms 400
  done
done
