#!/usr/bin/env bash
# Session 29, call 1: wgmma rates of the sub-pixel kernel's stage shapes (issue 54); lab 11's short-K
# kernel beside best at the 28 shapes a C-store model would move (issue 53); the consumers keeping
# one stage's wgmmas in flight (new: the sub-pixel kernel and the warp-specialized GEMM) beside main
# (base), interleaved, and new with its epilogue run twice (twice: what the epilogue costs): the DCGAN at batch 5248 and lab 11's GEMM against cuBLAS; the tests and
# sanitizers on new; Nsight Compute's memory view of base's BF16 sub-pixel layers.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O/runs
tar -xJf pack/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
B=$S/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack_out() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call1.tar.xz -C $O --exclude='*.ncu-rep' .; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt; pack_out; }
W=$PWD/labs/09_dcgan/fashion_mnist.cldw
BIG=4096x4096x4096,8192x8192x8192,8192x8200x8192,6593x9160x9544,6431x3976x3448,3000x3000x3000,2048x2048x2048,16384x1000x1024,10249x272x10072,10695x1711x504,1140x8111x136,5892x1056x128,896x13697x16
step wgmma_smem 120 $B/bench_wgmma_smem 4000
step short_k11 120 $B/bench_short_k11 $(cat pack/shapes28.txt)
for round in 1 2 3; do
  for v in base new twice; do
    for prec in bf16 tf32; do
      step runs/${v}_${prec}_$round 40 $S/$v/labs/dcgan --weights $W --precision $prec --num 5248 --batch 5248 --end-to-end-repetitions 0 --check-images 2
    done
  done
done
for v in new base new base; do step big_$v 60 $S/$v/labs/gemm_random_shapes --labs 11 --shapes $BIG --seed 3 --output $O/big_$v.json; done
step tests_dcgan_new 90 $S/new/tests/lab11_dcgan_solution --gtest_brief=1
step grading11_new 200 $S/new/tests/lab11_grading_solution --gtest_brief=1
step split11_new 60 $S/new/tests/lab11_split_finish_solution --gtest_brief=1
step memcheck_new 120 compute-sanitizer --tool memcheck --error-exitcode 9 $S/new/tests/lab11_dcgan_solution --gtest_brief=1 --gtest_filter='*SubpixelLayer*:*TensorCoreGenerator*b7*'
step racecheck_new 120 compute-sanitizer --tool racecheck --error-exitcode 9 $S/new/tests/lab11_dcgan_solution --gtest_brief=1 --gtest_filter='*SubpixelLayer*layer1_b9*:*SubpixelLayer*by_position*:*SubpixelLayer*turned_partial*:*SubpixelLayer*halo_partial*'
step memcheck11_new 150 compute-sanitizer --tool memcheck --error-exitcode 9 $S/new/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='*best*:*warp_specialized*'
for seed in 4998064687210808757; do
  for side in new base; do
    t=$SECONDS; timeout 120 scripts/gemm-random-shapes --labs 11 --seed $seed $S/$side $S/rs_${side}_$seed > $O/rs_${side}_$seed.log 2>&1
    echo "rs_${side}_$seed rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
    tar -cJf $O/rs_${side}_$seed.tar.xz -C $S/rs_${side}_$seed . 2>/dev/null; pack_out
  done
done
step ncu_tconv 200 ncu -k regex:subpixel_wgmma --launch-count 3 --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Chart --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis -f -o $O/ncu_tconv $S/base/labs/dcgan --weights $W --precision bf16 --num 5248 --batch 5248 --repetitions 1 --min-time 0 --warmups 0 --end-to-end-repetitions 0 --check-images 1
[ -f $O/ncu_tconv.ncu-rep ] && { ncu -i $O/ncu_tconv.ncu-rep --page details > $O/ncu_tconv_details.txt 2>&1; ncu -i $O/ncu_tconv.ncu-rep --page raw --csv > $O/ncu_tconv_raw.csv 2>&1; }
pack_out
