#!/usr/bin/env bash
# Call C2: lab 11's lines bench and GPU tests at HEAD (A onto lines on tiles at most 128 wide),
# then both seeds' random shapes at HEAD (new) and at the commit before this session (base),
# interleaved seed by seed.
set -u
S=$(mktemp -d)  # scratch: the unpacked binaries, the outputs before they are packed
cd "$(dirname "$0")/.."
O=$S/oc2; rm -rf $O; mkdir -p $O
rm -rf $S/px; mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; }
T=$S/px/new/tests
step lines11 120 $S/px/bench_lines11 1362x10152x1640 10249x272x10072 6431x3976x3448 2389x2048x13256 1500x6000x1000 6593x9160x9544 1000x16384x1000 4096x4096x4104
step lab11_grading_solution 120 $T/lab11_grading_solution --gtest_brief=1
step lab11_grading_student 90 $T/lab11_grading_student --gtest_brief=1
step lab11_split 60 $T/lab11_split_finish_solution --gtest_brief=1
step memcheck11 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.*'
for seed in 4998064687210808757 8444672377437012093; do
  for side in new base; do
    t=$SECONDS
    timeout 120 scripts/gemm-random-shapes --labs 07,11 --seed $seed $S/px/$side $S/rs2_${side}_$seed > $O/rs_${side}_$seed.log 2>&1
    echo "rs_${side}_$seed rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
    tar -cJf $O/rs_${side}_$seed.tar.xz -C $S/rs2_${side}_$seed . 2>/dev/null
  done
done
cat $O/lines11.txt; grep -h -E "^  120 of 120" $O/*.log
cp $O/steps.txt $OUT/; tar -cJf $OUT/callC2.tar.xz -C $O .
