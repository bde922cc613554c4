#!/usr/bin/env bash
# Call H (main b35aa79 + lab 07's tile loop with has_next a runtime branch, two copies of a tile's code instead of five;
# uncommitted): lab 07's and lab 09's grading, memcheck; random shapes (lab 07, both seeds); 4096^3, 8192^3; Nsight
# Compute's stall samples at two mid-size shapes of the scalar path (against call C).
set -u
tar xJf .gpu/s18H.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step g07 200 $H/p/tests/lab07_grading_solution
step g09 200 $H/p/tests/lab09_grading_solution
step memcheck 200 compute-sanitizer --tool memcheck --error-exitcode 9 $H/p/tests/lab07_grading_solution --gtest_filter='Grading.best.*'
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 90 python3 scripts/gemm-random-shapes --labs 07 --seed $S1 $H/p $R/s1
step rs_s2 90 python3 scripts/gemm-random-shapes --labs 07 --seed $S2 $H/p $R/s2
step big 120 $H/p/labs/gemm_random_shapes --labs 07 --shapes 4096x4096x4096,8192x8192x8192,583x331x352,2400x283x1368,977x3572x747 --output $R/big.json --shape-ms 200
SEC="--section SpeedOfLight --section WarpStateStats --section SourceCounters"
for s in 583x331x352 2400x283x1368; do
  step ncu07_$s 90 ncu --kernel-name regex:wide_gemm --launch-count 1 $SEC -o $R/rep07_$s $H/p/labs/lab07_solution --variant best --verify-only --shapes $s
  step sass07_$s 60 ncu --import $R/rep07_$s.ncu-rep --page source --csv --print-source sass
done
rm -f $R/*.ncu-rep
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/h.txz -C $R .
