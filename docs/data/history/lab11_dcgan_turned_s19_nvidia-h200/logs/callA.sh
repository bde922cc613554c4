#!/usr/bin/env bash
# Call A (issue 54): tconv3 turned around (channels as M): correctness, memcheck, before/after per layer, profile.
set -u
tar xJf .gpu/s19A.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
#step tests 200 $H/p/tests/lab11_dcgan_solution --gtest_brief=1
#step memcheck 150 compute-sanitizer --tool memcheck --error-exitcode 1 $H/p/tests/lab11_dcgan_solution --gtest_filter='*turned*:*layer3*'
for round in 1 2; do
  for which in new; do
    for precision in bf16 tf32; do
      step ${which}_${precision}_$round 60 $H/$which/dcgan --weights labs/09_dcgan/fashion_mnist.cldw --precision $precision --num 5248 --batch 5248 --repetitions 5 --min-time 0.2 --end-to-end-repetitions 0 --check-images 4
    done
  done
done
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats"
step ncu_new 150 ncu --kernel-name regex:subpixel_wgmma --launch-skip 2 --launch-count 1 $SEC --section SourceCounters -o $R/rep_new $H/new/dcgan --weights labs/09_dcgan/fashion_mnist.cldw --precision bf16 --num 5248 --batch 5248 --repetitions 1 --min-time 0 --warmups 0 --end-to-end-repetitions 0 --check-images 1
step ncu_new_details 60 ncu --import $R/rep_new.ncu-rep --page details
step ncu_new_sass 60 ncu --import $R/rep_new.ncu-rep --page source --csv --print-source sass
rm -f $R/*.ncu-rep
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/a.txz -C $R .
