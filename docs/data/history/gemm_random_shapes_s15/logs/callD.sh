#!/usr/bin/env bash
# Session 15, call D: lab 11's epilogue, y = 4ab1e73 (width hoisted, a loop up to 128 columns) against z = c1253a3
# (width hoisted, chunks unrolled at every width): z's grading tests, memcheck, racecheck on quick cases; random shapes of
# lab 11, y/z ABBA on both seeds; ncu with warm caches at two small shapes.
set -u
tar xJf .gpu/s15d.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step z_grading 240 $H/z/tests/lab11_grading_solution
step z_memcheck 200 compute-sanitizer --tool memcheck --error-exitcode 9 $H/z/tests/lab11_grading_solution --gtest_filter='Grading.best.*:Grading.warp_specialized*'
step z_racecheck 120 compute-sanitizer --tool racecheck --error-exitcode 9 $H/z/tests/lab11_grading_solution --gtest_filter='Grading.warp_specialized.odd_17x33x65:Grading.warp_specialized*.ldc_misaligned*:Grading.warp_specialized*.padded*'
S1=4998064687210808757; S2=8444672377437012093
step rs_y_s1 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S1 $H/y $R/y_s1
step rs_z_s1 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S1 $H/z $R/z_s1
step rs_z_s2 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S2 $H/z $R/z_s2
step rs_y_s2 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S2 $H/y $R/y_s2
Q="--rounds 2 --min-rounds 1 --round-ms 0.05 --seed 7"
for s in 6158x376x24 10647x440x280 1166x16x2059; do
  for v in y z; do
    step ncu_${v}_$s 60 ncu --cache-control none --clock-control none --section SpeedOfLight --section WarpStateStats --metrics gpu__time_duration.sum,launch__grid_size -k regex:'warp_specialized|nvjet|Kernel2|sm90_|sm80_' --launch-count 6 --csv --page raw $H/$v/labs/gemm_random_shapes --labs 11 --shapes $s $Q --output $R/ncu_${v}_$s.json
  done
done
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/d.txz -C $R .
