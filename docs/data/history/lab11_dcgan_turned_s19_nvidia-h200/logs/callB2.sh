#!/usr/bin/env bash
# Call B2 (issue 54): the working tree (tconv3 turned, descriptors advanced, warp-uniform consumer index): lab 11's
# DCGAN tests, memcheck and racecheck of the step-7 layers, the generator per layer at batch 5248 (BF16, TF32; call B1
# ran main's the minute before on the same machine), the wide layers under ncu.
set -u
tar xJf .gpu/s19B2.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
W=labs/09_dcgan/fashion_mnist.cldw
for round in 1 2 3; do
  for precision in bf16 tf32; do
    step new_${precision}_$round 60 $H/new/labs/dcgan --weights $W --precision $precision --num 5248 --batch 5248 --repetitions 5 --min-time 0.2 --end-to-end-repetitions 0 --check-images 4
  done
done
step tests 200 $H/p/tests/lab11_dcgan_solution --gtest_brief=1
step memcheck 150 compute-sanitizer --tool memcheck --error-exitcode 1 $H/p/tests/lab11_dcgan_solution --gtest_filter='*SubpixelLayerTest*'
step racecheck 200 compute-sanitizer --tool racecheck --error-exitcode 1 $H/p/tests/lab11_dcgan_solution --gtest_filter='*turned*:*layer*'
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats"
step ncu_new 150 ncu --kernel-name regex:subpixel_wgmma --launch-count 3 $SEC --section SourceCounters -o $R/rep_new $H/new/labs/dcgan --weights $W --precision bf16 --num 5248 --batch 5248 --repetitions 1 --min-time 0 --warmups 0 --end-to-end-repetitions 0 --check-images 1
step ncu_new_details 60 ncu --import $R/rep_new.ncu-rep --page details
step ncu_new_sass 60 ncu --import $R/rep_new.ncu-rep --page source --csv --print-source sass --launch-skip 2 --launch-count 1
rm -f $R/*.ncu-rep
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/b2.txz -C $R .
