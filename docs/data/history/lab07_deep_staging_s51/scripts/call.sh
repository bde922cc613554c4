#!/usr/bin/env bash
# Issue 53, session 51 (built, not yet run): lab 07's tile kernels with their loads issued two or
# three tiles ahead (deep_staging.patch: `a` two sets of registers for 32 x 32, 64 x 64 and
# 128 x 64 tiles, `b` three for 32 x 32 and 128 x 64) against main (`base`). Lab 07's grading
# tests and split-finish tests of a and b, memcheck of their small tiles, best and plans; lab 09's
# grading tests of a; every plan of every tile timed at session 32's 30 shapes (lab07_plans, 7
# interleaved rounds), base, a, b in turn; both random-shapes seeds of lab 07, base, a, b in turn.
# Everything in a scratch folder, packed after each step into $OUT/deep.tar.gz; the steps' lines also in
# $OUT/deep_steps.txt. Run from the repository root: bash pack_deep/call.sh, carrying pack_deep/
# (prepare.sh builds it). It ran in 270 s on an H100.
set -u
cd "$(dirname "$0")/.."
S=$(mktemp -d)
tar -xJf pack_deep/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
O=$(mktemp -d)
packed() { cp $O/deep_steps.txt $OUT/ 2>/dev/null; tar -czf $OUT/deep.tar.gz -C $O .; }
trap packed EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-s)) s $(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY' $O/$name.txt | tr '\n' ' ')" | tee -a $O/deep_steps.txt; packed; }
small='Grading.wide_32x32.*:Grading.wide_64x64.*:Grading.wide_128x64*:Grading.best.*:BestPlans.*'
# Most telling first, packed after every step: a run cut short keeps what it did.
step grading07_a 90 $S/a/tests/lab07_grading_solution --gtest_brief=1
step grading07_b 90 $S/b/tests/lab07_grading_solution --gtest_brief=1
step split07_a 60 $S/a/tests/lab07_split_finish_solution --gtest_brief=1
step split07_b 60 $S/b/tests/lab07_split_finish_solution --gtest_brief=1
step memcheck07_a 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
  $S/a/tests/lab07_grading_solution --gtest_brief=1 --gtest_filter="$small"
for part in 00 01 02; do
  for side in base a b; do
    step plans07_${side}_$part 60 $S/$side/labs/lab07_plans_solution --shapes "$(paste -sd, pack_deep/shapes_$part)" \
      --output $O/plans07_${side}_$part.json
  done
done
random_shapes() {  # random_shapes SEED: lab 07's random shapes, base, a, b in turn
  for side in base a b; do
    s=$SECONDS; r=rs_${side}_$1
    timeout 60 scripts/gemm-random-shapes --labs 07 --seed $1 $S/$side $S/$r > $O/$r.log 2>&1
    echo "$r rc=$? $((SECONDS-s)) s" | tee -a $O/deep_steps.txt
    cp $S/$r/gemm_random_shapes_nvidia-h*.txt $O/${r}_summary.txt 2>/dev/null
    cp $S/$r/gemm_random_shapes_times.json $O/${r}_times.json 2>/dev/null
    packed
  done
}
random_shapes 4998064687210808757
step memcheck07_b 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
  $S/b/tests/lab07_grading_solution --gtest_brief=1 --gtest_filter="$small"
step grading09_a 120 $S/a/tests/lab09_grading_solution --gtest_brief=1
random_shapes 8444672377437012093
