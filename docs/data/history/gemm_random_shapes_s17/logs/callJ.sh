#!/usr/bin/env bash
# Call J (main, lab 11's warp-specialized tiles with 8/6/4 stages): grading and sanitizers, best beside the four-stage
# build (f: 2b1c2e8) at few-unit long-K shapes and large ones (ABBA), random shapes (lab 11, both seeds).
set -u
tar xJf .gpu/s17J.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step g11 150 $H/j/tests/lab11_grading_solution --gtest_filter='Grading.warp_specialized*:Grading.best.*:Grading.tma*'
step g11_student 60 $H/j/tests/lab11_grading_student --gtest_filter='Grading.warp_specialized*:Grading.best.*'
step mc11 150 compute-sanitizer --tool memcheck --error-exitcode 9 $H/j/labs/lab11_solution --variant best --verify-only --shapes 5043x8x2296,130x4x2256,287x1x8528,200x136x72_ldb+1,2173x520x1840,1000x1000x3000
S="5043x8x2296,9313x8x9424,2885x8x4457,2173x520x1840,520x1008x840,3317x87x1720,287x1x8528,130x4x2256,4096,8192x8192x4096,3215x884x4744,977x3572x747"
i=0; for v in f j j f; do i=$((i + 1)); step ws_$v$i 120 $H/$v/labs/lab11_solution --shapes $S --variant best --variant warp_specialized --variant warp_specialized_128 --repetitions 5 --seed 5 --results-dir $R --results-tag ws_$v$i; done
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S1 $H/j $R/s1
step rs_s2 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S2 $H/j $R/s2
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/j.txz -C $R .
