#!/usr/bin/env bash
# Call D (issue 53): lab 11's GEMM consumers with the warp-uniform index and descriptors advanced by addition (as step 7's
# gained 3 % at tconv1): grading and memcheck; main's gemm_random_shapes (aadf0cc) against the working tree's at probe
# shapes, alternated; then the random shapes of both seeds with the working tree (both labs, one process each).
set -u
tar xJf .gpu/s19D.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
P="4096x4096x4096,8192x8192x8192,2048x2048x2048,1024x1024x1024,4096x4096x64,539x6048x24,9159x15745x2312,1579x536x10112,3000x5000x700,237x198x15304"
for round in 1 2 3; do
  step probe_new_$round 120 $H/p/labs/gemm_random_shapes --labs 11 --shapes $P --output $R/probe_new_$round.json --shape-ms 150
  step probe_old_$round 120 $H/old/gemm_random_shapes --labs 11 --shapes $P --output $R/probe_old_$round.json --shape-ms 150
done
step grading 300 $H/p/tests/lab11_grading_solution
step memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 9 $H/p/tests/lab11_grading_solution --gtest_filter='Grading.warp_specialized*:Grading.best.*:Grading.wgmma*:Grading.tma_wgmma*'
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 150 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S1 $H/p $R/s1
step rs_s2 150 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S2 $H/p $R/s2
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/d.txz -C $R .
