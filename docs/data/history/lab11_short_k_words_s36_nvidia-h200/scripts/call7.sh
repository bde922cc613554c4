#!/usr/bin/env bash
# Session 36, call 7 (issue 53): the kept short-K kernel with its copies keeping only their address
# from chunk to chunk, the rest recomputed from the thread's index (lean: the 16-byte kernel no
# longer spills); against call 4's kept build (kept) and main at 7cf9c72 (base). The kernel
# alone (bench_short_k_layouts11) at call 1's shapes and layouts, the three in turn, twice; lab 11's
# grading tests (solution, student) and memcheck of the short-K and `best` tests; both random-shapes
# seeds of lab 11, lean then kept. Outputs packed after each step.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call7.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack; }
E=$S/px/lean
TIGHT=$(cat pack/shapes_tight.txt)
LAYOUTS=$(cat pack/shapes_layouts.txt)
for round in 1 2; do
  for side in lean kept base; do
    step bench_tight_${side}_$round 120 $S/px/$side/bench_short_k_layouts11 $TIGHT
    step bench_layouts_${side}_$round 60 $S/px/$side/bench_short_k_layouts11 $LAYOUTS
  done
done
F='*short_k*:Grading.best.*'
step grading11 240 $E/tests/lab11_grading_solution --gtest_brief=1
step grading11_student 120 $E/tests/lab11_grading_student --gtest_brief=1
step memcheck11 240 compute-sanitizer --tool memcheck --error-exitcode 9 $E/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter="$F"
for seed in 4998064687210808757 8444672377437012093; do
  for side in lean kept; do
    t=$SECONDS; r=rs_${side}_$seed
    timeout 120 scripts/gemm-random-shapes --labs 11 --seed $seed $S/px/$side $S/$r > $O/$r.log 2>&1
    echo "$r rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
    cp $S/$r/gemm_random_shapes_nvidia-h200.txt $O/${r}_summary.txt 2>/dev/null
    cp $S/$r/gemm_random_shapes_times.json $O/${r}_times.json 2>/dev/null; pack
  done
done
for f in $O/rs_*.log; do echo "$(basename $f)"; grep -E "geometric mean" $f | head -1; done
cat $O/steps.txt
