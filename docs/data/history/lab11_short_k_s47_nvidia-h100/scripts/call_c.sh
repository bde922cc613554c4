#!/usr/bin/env bash
# Issue 53, written in session 48, not yet run (the session's device time ran out): lab 11's
# tile path charged for C's rows off 16 bytes (unaligned_c.patch applied: best_plan.h's
# unaligned_c_us), against the base (main without the patch, built as BASE_BUILD). The plan tests
# (CPU); `best`'s grading tests; bench_short_k11 at the shapes whose path moved
# (shapes_moved.txt); both random-shapes seeds, new and base in turn. Then why an unaligned C costs
# the 256-wide tiles a store a round: bench_widths11 at shapes whose N is one off a multiple of 8
# and at the multiple beside them, and Nsight Compute on the 256-wide kernel at one such pair
# (stall reasons, instructions, sectors: whether the epilogue waits on instruction fetches or on
# memory). Run from the repository root after pack.sh (`bash pack/call_c.sh`), carrying pack/.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call_c.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack; }
N=$S/px/new
step plan_tests 60 $N/tests/lab11_best_width_tests --gtest_brief=1
step grading11_best 120 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.*'
step bench_short_k 60 $S/px/bench_short_k $(cat pack/shapes_moved.txt)
for seed in 4998064687210808757 8444672377437012093; do
  for side in new base; do
    t=$SECONDS; r=rs_${side}_${seed}
    timeout 60 scripts/gemm-random-shapes --labs 11 --seed $seed $S/px/$side $S/$r > $O/$r.log 2>&1
    echo "$r rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
    cp $S/$r/gemm_random_shapes_nvidia-h*.txt $O/${r}_summary.txt 2>/dev/null
    cp $S/$r/gemm_random_shapes_times.json $O/${r}_times.json 2>/dev/null; pack
  done
done
step bench_widths 90 $S/px/bench_widths 6046x6821x57 6046x6824x57 2048x7303x80 2048x7304x80 \
  13807x8579x256 13807x8584x256
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section InstructionStats --section SourceCounters"
for shape in 6046x6821x57 6046x6824x57; do
  step ncu_tiles256_$shape 120 ncu --kernel-name-base demangled \
    -k 'regex:warp_specialized_kernel<256, 128>' -c 1 $sections $S/px/bench_widths $shape
done
cat $O/steps.txt
