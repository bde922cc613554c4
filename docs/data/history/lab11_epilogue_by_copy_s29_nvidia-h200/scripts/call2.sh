#!/usr/bin/env bash
# Session 29, call 2: lab 11's sub-pixel epilogue through the copy engine (new, 980250f) beside
# 3a0a5ec (base), interleaved, the DCGAN at batch 5248; the DCGAN tests (solution, student) and
# compute-sanitizer on new; lab 11's grading and split tests; both random-shapes seeds of lab 11,
# new (the planner's unit store, 10d3d11) then base; then, if new's DCGAN tests passed, this GPU's
# ceilings and scripts/lab11-dcgan-bench (PyTorch's best in the same call).
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O/runs
tar -xJf pack/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack_out() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call2.tar.xz -C $O --exclude='*.cldw' --exclude='*.cldz' .; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack_out; return $rc; }
W=$PWD/labs/09_dcgan/fashion_mnist.cldw
for round in 1 2 3; do
  for v in base new; do
    for prec in bf16 tf32; do
      step runs/${v}_${prec}_$round 40 $S/$v/labs/dcgan --weights $W --precision $prec --num 5248 --batch 5248 --end-to-end-repetitions 0 --check-images 2
    done
  done
done
T=$S/new/tests
step tests_dcgan 120 $T/lab11_dcgan_solution --gtest_brief=1; dcgan_rc=$?
step tests_dcgan_student 120 $T/lab11_dcgan_student --gtest_brief=1
step memcheck_dcgan 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab11_dcgan_solution --gtest_brief=1 --gtest_filter='*SubpixelLayer*:*TensorCoreGenerator*b7*'
step racecheck_dcgan 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T/lab11_dcgan_solution --gtest_brief=1 --gtest_filter='*SubpixelLayer*layer1_b9*:*SubpixelLayer*by_position*:*SubpixelLayer*turned*:*SubpixelLayer*halo_partial*:*SubpixelLayer*bytes_in*'
step grading11 200 $T/lab11_grading_solution --gtest_brief=1
step split11 60 $T/lab11_split_finish_solution --gtest_brief=1
for seed in 4998064687210808757 8444672377437012093; do
  for side in new base; do
    t=$SECONDS; timeout 120 scripts/gemm-random-shapes --labs 11 --seed $seed $S/$side $S/rs_${side}_$seed > $O/rs_${side}_$seed.log 2>&1
    echo "rs_${side}_$seed rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
    tar -cJf $O/rs_${side}_$seed.tar.xz -C $S/rs_${side}_$seed . 2>/dev/null; pack_out
  done
done
if [ $dcgan_rc -eq 0 ]; then
  step lab00 45 $S/new/labs/lab00_solution --results-dir $O/lab00
  step lab11_ceiling 30 $S/new/labs/lab11_ceiling
  step bench 330 scripts/lab11-dcgan-bench $S/new $O/bench
fi
pack_out
