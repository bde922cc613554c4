#!/usr/bin/env bash
# Call C1: lab 11's kernel with A and/or B copied onto 128-byte lines at the shapes where it is
# slowest against cuBLAS; lab 07's plans where the narrow kernel competes (held out of its fit);
# lab 07's and lab 11's GPU tests at HEAD, memcheck of `best`'s tests.
set -u
S=$(mktemp -d)  # scratch: the unpacked binaries, the outputs before they are packed
cd "$(dirname "$0")/.."
O=$S/oc1; rm -rf $O; mkdir -p $O
rm -rf $S/px; mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; }
step lines11 200 $S/px/bench_lines11 1362x10152x1640 10249x272x10072 6431x3976x3448 2389x2048x13256 1579x536x10112 139x792x2872 128x296x10256 6593x9160x9544 17x2326x3664 1000x16384x1000 4096x4096x4104 4096x4096x4096 8192x8192x8192 158x2752x4544
step narrow07 150 $S/px/new/labs/lab07_plans_solution --shapes 1071x56x1150,623x42x6615,818x29x1792,1166x16x2059,2885x8x4457,9313x8x9424,3030x40x57,20000x50x30,7000x24x200,500x60x40,16384x64x16,4096x16x4096,30000x12x100,2000x33x1000,5000x5x300,12231x17x464 --output $O/narrow07.json
T=$S/px/new/tests
step lab11_grading_solution 120 $T/lab11_grading_solution --gtest_brief=1
step lab07_grading_solution 120 $T/lab07_grading_solution --gtest_brief=1
step lab11_grading_student 90 $T/lab11_grading_student --gtest_brief=1
step lab07_grading_student 90 $T/lab07_grading_student --gtest_brief=1
step lab11_split 60 $T/lab11_split_finish_solution --gtest_brief=1
step lab07_split 60 $T/lab07_split_finish_solution --gtest_brief=1
step memcheck11 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.*'
step memcheck07 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab07_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.*:BestPlans.*'
step racecheck07 90 compute-sanitizer --tool racecheck --error-exitcode 9 $T/lab07_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.*'
tail -20 $O/lines11.txt
cp $O/steps.txt $OUT/; tar -cJf $OUT/callC1.tar.xz -C $O .
