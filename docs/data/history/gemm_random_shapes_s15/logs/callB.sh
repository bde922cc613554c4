#!/usr/bin/env bash
# Session 15, call B: the copy kernel walking its chunks four ahead on a grid of resident blocks -- its tests (with a
# copy longer than the grid) under memcheck and initcheck, lab 11's grading tests, lab 07's best and repacked ones,
# memcheck on lab 11's misaligned best tests; ncu of the copy beside the 2303270 build's; random shapes (new, both
# seeds, both labs; the 2303270 build once more on seed 2); ncu raw pages of lab 11's kernel and cuBLAS's at small shapes.
set -u
tar xJf .gpu/s15b.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step copy_tests 60 $H/new/tests/common_gpu_tests --gtest_filter='AlignedOperands*'
step copy_memcheck 180 compute-sanitizer --tool memcheck --error-exitcode 9 $H/new/tests/common_gpu_tests --gtest_filter='AlignedOperands*'
step copy_initcheck 180 compute-sanitizer --tool initcheck --error-exitcode 9 $H/new/tests/common_gpu_tests --gtest_filter='AlignedOperands*'
step l11_grading 240 $H/new/tests/lab11_grading_solution
step l07_grading 200 $H/new/tests/lab07_grading_solution --gtest_filter='*misaligned*:Grading.best.*:*BestPlans*'
step l11_memcheck 200 compute-sanitizer --tool memcheck --error-exitcode 9 $H/new/tests/lab11_grading_solution --gtest_filter='Grading.best.*misaligned*:Grading.best.ld_*:Grading.best.odd*:Grading.best.k_inside*:Grading.best.offset16*:Grading.best.one_launch*:Grading.best.large_odd*'
step l07_memcheck 200 compute-sanitizer --tool memcheck --error-exitcode 9 $H/new/tests/lab07_grading_solution --gtest_filter='Grading.best.misaligned*'
Q="--rounds 2 --min-rounds 1 --round-ms 0.05 --seed 7"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__registers_per_thread
for s in 2885x8x4457 2x14073x13664 17x2326x3664 9476x362x18; do
  for v in new old; do
    step ncu_copy_${v}_$s 90 ncu --metrics $M -k regex:repack --launch-count 2 --csv --page raw $H/$v/labs/gemm_random_shapes --labs 11 --shapes $s $Q --output $R/ncu_copy_${v}_$s.json
  done
done
S1=4998064687210808757; S2=8444672377437012093
step rs_new_s1 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S1 $H/new $R/new_s1
step rs_new_s2 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S2 $H/new $R/new_s2
for s in 6158x376x24 15683x552x56 5892x1056x128 628x405x16; do
  step ncu_small_$s 90 ncu --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --metrics dram__bytes_write.sum,gpu__time_duration.sum -k regex:'warp_specialized|nvjet|Kernel2|sm90_|sm80_|repack|wgmma' --launch-count 4 --csv --page raw $H/new/labs/gemm_random_shapes --labs 11 --shapes $s $Q --output $R/ncu_small_$s.json
done
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/b.txz -C $R .
