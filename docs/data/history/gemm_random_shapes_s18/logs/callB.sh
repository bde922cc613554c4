#!/usr/bin/env bash
# Call B (main 8cb2662 + lab 11's epilogue store as a loop, uncommitted): grading, memcheck, probe shapes, random shapes
# (lab 11, both seeds); a diagnostic build that forces K's slices (LAB11_SLICES, never committed) at narrow shapes.
set -u
tar xJf .gpu/s18B.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
P="128x64x64,128x256x64,1024x1024x64,4096x4096x64,4096x4096x24,539x6048x24,539x6046x24,539x6048x64,539x6048x128,539x6048x640,201x10738x36,201x10744x40,5043x8x2296,5040x8x2296,282x8x1864,282x4x1864,128x64x2048,1024x64x4096,4096x4096x4096,8192x8192x8192"
step probe 150 $H/p/labs/gemm_random_shapes --labs 11 --shapes $P --output $R/probe.json --shape-ms 150
step grading 240 $H/p/tests/lab11_grading_solution --gtest_filter='Grading.warp_specialized*:Grading.best*:Grading.tma*'
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S1 $H/p $R/s1
step rs_s2 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S2 $H/p $R/s2
for s in 5040x8x2296 1024x64x4096 282x8x1864 135x80x2312; do for n in 2 3 4 6 9 12; do
  LAB11_SLICES=$n step force_${s}_$n 30 $H/d/gemm_random_shapes --labs 11 --shapes $s --output $R/force_${s}_$n.json --shape-ms 60
done; done
step memcheck 240 compute-sanitizer --tool memcheck --error-exitcode 9 $H/p/tests/lab11_grading_solution --gtest_filter='Grading.warp_specialized.*:Grading.best.*'
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/b.txz -C $R .
