#!/usr/bin/env bash
# Issue 53, session 52: lab 07's tile kernels on the scalar path with each operand's loads chosen
# apart (operand_loads.patch, `exp`: an operand whose rows allow them keeps its 128-bit loads, a
# uniform branch a tile) against main (`base`). Exp's grading tests and memcheck of its small
# tiles and best; both random-shapes seeds of lab 07, base and exp in turn. Everything in a scratch
# folder, packed after each step into $OUT/ops.tar.gz; the steps' lines also in $OUT/ops_steps.txt.
# Run from the repository root: bash pack_ops/call.sh, carrying pack_ops/ (prepare.sh builds it).
set -u
cd "$(dirname "$0")/.."
S=$(mktemp -d)
tar -xJf pack_ops/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
O=$(mktemp -d)
packed() { cp $O/ops_steps.txt $OUT/ 2>/dev/null; tar -czf $OUT/ops.tar.gz -C $O .; }
trap packed EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-s)) s $(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY' $O/$name.txt | tr '\n' ' ')" | tee -a $O/ops_steps.txt; packed; }
step grading07_exp 90 $S/exp/tests/lab07_grading_solution --gtest_brief=1
step memcheck07_exp 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
  $S/exp/tests/lab07_grading_solution --gtest_brief=1 \
  --gtest_filter='Grading.wide_32x32.*:Grading.wide_64x64.*:Grading.wide_128x64*:Grading.best.*:BestPlans.*'
for seed in 4998064687210808757 8444672377437012093; do
  for side in base exp; do
    s=$SECONDS; r=rs_${side}_$seed
    timeout 60 scripts/gemm-random-shapes --labs 07 --seed $seed $S/$side $S/$r > $O/$r.log 2>&1
    echo "$r rc=$? $((SECONDS-s)) s" | tee -a $O/ops_steps.txt
    cp $S/$r/gemm_random_shapes_nvidia-h*.txt $O/${r}_summary.txt 2>/dev/null
    cp $S/$r/gemm_random_shapes_times.json $O/${r}_times.json 2>/dev/null
    packed
  done
done
