#!/usr/bin/env bash
# Call B (issue 54): main (aadf0cc) against the working tree (tconv3 turned, descriptors advanced, warp-uniform
set -u
tar xJf .gpu/s19B1.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
W=labs/09_dcgan/fashion_mnist.cldw
for round in 1 2 3; do
  for which in old; do
    for precision in bf16 tf32; do
      step ${which}_${precision}_$round 60 $H/$which/dcgan --weights $W --precision $precision --num 5248 --batch 5248 --repetitions 5 --min-time 0.2 --end-to-end-repetitions 0 --check-images 4
    done
  done
done
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats"
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/b1.txz -C $R .
