#!/usr/bin/env bash
# Session 15, call C: lab 11's epilogue -- x = 6de58fe (chunks a loop up to 128 columns), y = 4ab1e73 (and the store
# width chosen once), old = b9131ec. Grading tests (x, y), memcheck and racecheck on best (y); random shapes of lab 11
# old/x/y on both seeds (orders reversed between seeds); ncu at small shapes (old, y).
set -u
tar xJf .gpu/s15c.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step y_grading 240 $H/y/tests/lab11_grading_solution
step x_grading 240 $H/x/tests/lab11_grading_solution --gtest_filter='Grading.best.*:Grading.warp_specialized*'
F='Grading.best.*:Grading.warp_specialized*'
step y_memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 9 $H/y/tests/lab11_grading_solution --gtest_filter="$F"
step y_racecheck 300 compute-sanitizer --tool racecheck --error-exitcode 9 $H/y/tests/lab11_grading_solution --gtest_filter='Grading.best.misaligned*:Grading.best.ldc*:Grading.best.odd_17*:Grading.best.split_k_odd*:Grading.warp_specialized*.odd_17*:Grading.warp_specialized*.ldc*'
S1=4998064687210808757; S2=8444672377437012093
for v in old x y; do step rs_${v}_s1 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S1 $H/$v $R/${v}_s1; done
for v in y x old; do step rs_${v}_s2 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S2 $H/$v $R/${v}_s2; done
Q="--rounds 2 --min-rounds 1 --round-ms 0.05 --seed 7"
for s in 6158x376x24 5043x8x2296 1166x16x2059 10647x440x280 4096x4096x4096; do
  for v in old y; do
    step ncu_${v}_$s 90 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --metrics gpu__time_duration.sum,launch__grid_size -k regex:'warp_specialized|nvjet|Kernel2|sm90_|sm80_' --launch-count 4 --csv --page raw $H/$v/labs/gemm_random_shapes --labs 11 --shapes $s $Q --output $R/ncu_${v}_$s.json
  done
done
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/c.txz -C $R .
