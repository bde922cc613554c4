#!/usr/bin/env bash
# Call I (main b794ca3): the summing kernel with four slices' loads in flight: grading (lab 07 all, lab 11 best), memcheck,
# Nsight Compute on the sum at two shapes, random shapes (lab 07, both seeds).
set -u
tar xJf .gpu/s17I.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step g07 120 $H/q/tests/lab07_grading_solution
step g11 150 $H/q/tests/lab11_grading_solution --gtest_filter='Grading.best.*'
step mc07 150 compute-sanitizer --tool memcheck --error-exitcode 9 $H/q/tests/lab07_grading_solution --gtest_filter='BestPlans.*:Grading.best.*'
NCU="ncu --kernel-name regex:sum_slices --launch-count 2 --section SpeedOfLight --section LaunchStats"
for s in 286x122x2574 583x331x352 304x91x789; do step ncu07_$s 60 $NCU $H/q/labs/lab07_solution --variant best --verify-only --shapes $s; done
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 90 python3 scripts/gemm-random-shapes --labs 07 --seed $S1 $H/q $R/s1
step rs_s2 90 python3 scripts/gemm-random-shapes --labs 07 --seed $S2 $H/q $R/s2
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/i.txz -C $R .
