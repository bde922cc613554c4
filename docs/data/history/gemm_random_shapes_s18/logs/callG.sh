#!/usr/bin/env bash
# Call G (main c68f4cb: lab 11's split taken wherever the model has it faster): grading, DCGAN tests, memcheck; probe shapes;
# random shapes (both labs, both seeds: the records).
set -u
tar xJf .gpu/s18G.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step grading 300 $H/p/tests/lab11_grading_solution
step dcgan 300 $H/p/tests/lab11_dcgan_solution
step memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 9 $H/p/tests/lab11_grading_solution --gtest_filter='Grading.best.*'
P="287x1x8528,130x4x2256,282x4x1864,284x8x1224,5043x8x2296,64x8x65536,32x1x100000,16x8x4096,1x8x1000000,158x2752x4544,1299x100x1536,162x952x1712,17x2326x3664,163x216x13649,21x544x5224,135x80x2312,1x4753x9441,4096x4096x4096,8192x8192x8192"
step probe 120 $H/p/labs/gemm_random_shapes --labs 11 --shapes $P --output $R/probe.json --shape-ms 100
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S1 $H/p $R/s1
step rs_s2 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S2 $H/p $R/s2
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/g.txz -C $R .
