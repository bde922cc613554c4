#!/usr/bin/env bash
# Call C (main d181ad3: lab 11's epilogue, the common store unrolled and the rest a loop): lab 11's grading, DCGAN tests,
# memcheck; probe shapes; random shapes (both labs, both seeds: the records); Nsight Compute's stall samples of the
# 256-wide kernel at 539x6046x24 (against call A) and of lab 07's kernels at three mid-size shapes.
set -u
tar xJf .gpu/s18C.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step grading 300 $H/p/tests/lab11_grading_solution
step dcgan 300 $H/p/tests/lab11_dcgan_solution
step memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 9 $H/p/tests/lab11_grading_solution --gtest_filter='Grading.warp_specialized*:Grading.best.*'
P="128x64x64,128x256x64,1024x1024x64,4096x4096x64,4096x4096x24,539x6048x24,539x6046x24,539x6048x64,539x6048x128,539x6048x640,201x10738x36,201x10744x40,5043x8x2296,282x4x1864,1024x64x4096,9159x15745x2312,1579x536x10112,4096x4096x4096,8192x8192x8192"
step probe 200 $H/p/labs/gemm_random_shapes --labs 11 --shapes $P --output $R/probe.json --shape-ms 150
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S1 $H/p $R/s1
step rs_s2 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S2 $H/p $R/s2
SEC="--section SpeedOfLight --section WarpStateStats --section SourceCounters"
step ncu11_539x6046x24 90 ncu --kernel-name regex:warp_specialized --launch-count 1 $SEC -o $R/rep11 $H/p/labs/lab11_solution --variant best --verify-only --shapes 539x6046x24
step sass11_539x6046x24 60 ncu --import $R/rep11.ncu-rep --page source --csv --print-source sass
for s in 583x331x352 2400x283x1368 977x3572x747; do
  step ncu07_$s 90 ncu --kernel-name regex:wide_gemm --launch-count 1 $SEC -o $R/rep07_$s $H/p/labs/lab07_solution --variant best --verify-only --shapes $s
  step sass07_$s 60 ncu --import $R/rep07_$s.ncu-rep --page source --csv --print-source sass
done
rm -f $R/*.ncu-rep
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/c.txz -C $R .
