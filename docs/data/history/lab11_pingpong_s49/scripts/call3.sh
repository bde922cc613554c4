#!/usr/bin/env bash
# Issue 53, session 49, call 3 (call 2 never started: no machine came): call2.sh's bench, then the solution with the sector-aligned stores in staged_store.cuh, built as
# `sk` (best_plan.h's charge for C off 16 bytes as on main) and `s0` (that charge 0): lab 11's
# warp-specialized and best grading tests and memcheck of the unaligned ones (sk), and both
# random-shapes seeds for sk, s0 and the base (main at 98e87c3) in turn. pack.sh put the programs
# in pack/bin.tar.xz. Run from the repository root: bash pack/call3.sh, carrying pack/.
set -u
cd "$(dirname "$0")/.."
S=$(mktemp -d)
tar -xJf pack/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
# call2.sh's bench only, at fewer shapes (its profiles left out: the session's device time was short)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/environment.txt 2>&1
date -u >> $OUT/environment.txt
t=$SECONDS
timeout 70 pack/bench_cstore $(cat pack/shapes_call3.txt) > $OUT/cstore.txt 2>&1
echo "cstore rc=$? $((SECONDS-t)) s" | tee $OUT/call3_steps.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $OUT/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-s)) s $(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY' $OUT/$name.txt | tr '\n' ' ')" | tee -a $OUT/call3_steps.txt; }
step grading11 70 $S/sk/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.warp*:Grading.best*'
step memcheck11 70 compute-sanitizer --tool memcheck $S/sk/tests/lab11_grading_solution --gtest_brief=1 \
  --gtest_filter='Grading.warp_specialized*.*misaligned*:Grading.warp_specialized*.ld*:Grading.warp_specialized*.odd*:Grading.best.*odd*'
for seed in 4998064687210808757 8444672377437012093; do
  for side in base sk s0; do
    s=$SECONDS; r=rs_${side}_${seed}
    timeout 30 scripts/gemm-random-shapes --labs 11 --seed $seed $S/$side $S/$r > $OUT/$r.log 2>&1
    echo "$r rc=$? $((SECONDS-s)) s" | tee -a $OUT/call3_steps.txt
    cp $S/$r/gemm_random_shapes_nvidia-h*.txt $OUT/${r}_summary.txt 2>/dev/null
    cp $S/$r/gemm_random_shapes_times.json $OUT/${r}_times.json 2>/dev/null
  done
done
