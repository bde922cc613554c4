#!/usr/bin/env bash
# Call D: lab 11's short-K kernel with its aligned copies through staging.cuh's stage_chunk: the
# grading tests (solution, student), memcheck and racecheck of the short-K tests, the kernel timed
# again at the 90 shapes of call A, and the lines bench (its shared support rewritten) at 3 shapes.
set -u
S=$(mktemp -d)  # scratch: the unpacked binaries, the outputs before they are packed
cd "$(dirname "$0")/.."
O=$S/od; mkdir -p $O
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; }
T=$S/px/tests
step lab11_grading_solution 120 $T/lab11_grading_solution --gtest_brief=1
step lab11_grading_student 90 $T/lab11_grading_student --gtest_brief=1
step memcheck11 120 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab11_grading_solution --gtest_brief=1 --gtest_filter='*short_k*'
step racecheck11 120 compute-sanitizer --tool racecheck --error-exitcode 9 $T/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.short_k*'
step bench11 120 $S/px/bench_short_k11 $(tr , ' ' < pack/shapes11.txt)
step lines11 90 $S/px/bench_lines11 1362x10152x1640 6431x3976x3448 1000x16384x1000
cp $O/steps.txt $OUT/; tar -cJf $OUT/callD.tar.xz -C $O .
