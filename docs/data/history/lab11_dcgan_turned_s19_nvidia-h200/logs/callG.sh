#!/usr/bin/env bash
# Call G (issue 54): step 7 with tiles by position where they multiply fewer taps (tconv1: 4 x 4 images, 128 images a tile at one input pixel, only the taps that reach inside).
set -u
tar xJf .gpu/s19G.txz
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
step racecheck 200 compute-sanitizer --tool racecheck --error-exitcode 1 $H/p/tests/lab11_dcgan_solution --gtest_filter='*by_position*:*layer1*'
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats"
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/g.txz -C $R .
