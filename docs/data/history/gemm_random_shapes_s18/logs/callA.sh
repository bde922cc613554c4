#!/usr/bin/env bash
# Call A (main 8cb2662): where lab 11's small and short-K GEMMs spend their time: GPU time of best and cuBLAS at probe
# shapes (one unit a block, aligned and not), and Nsight Compute's warp states and SASS stalls of the warp-specialized kernel.
set -u
tar xJf .gpu/s18A.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
P="128x64x64,128x256x64,1024x1024x64,4096x4096x64,4096x4096x24,539x6048x24,539x6046x24,539x6048x64,539x6048x128,539x6048x640,201x10738x36,201x10744x40,5043x8x2296,5040x8x2296,282x8x1864,282x4x1864,128x64x2048,1024x64x4096"
step probe 150 $H/p/labs/gemm_random_shapes --labs 11 --shapes $P --output $R/probe.json --shape-ms 150
SEC="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section LaunchStats --section SourceCounters"
for s in 539x6048x24 539x6046x24 5040x8x2296 128x256x64; do
  step ncu_$s 90 ncu --kernel-name regex:warp_specialized --launch-count 1 $SEC -o $R/rep_$s $H/p/labs/lab11_solution --variant best --verify-only --shapes $s
  step sass_$s 60 ncu --import $R/rep_$s.ncu-rep --page source --csv --print-source sass
done
rm -f $R/*.ncu-rep
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/a.txz -C $R .
