#!/usr/bin/env bash
# Session 15, call A: the copy of misaligned operands at vector width (2ce598d) -- its tests under memcheck and
# initcheck, lab 11's grading tests, lab 07's best and repacked ones; random shapes beside the 2303270 build (ABBA, both
# seeds, both labs); ncu of the copy kernel old/new; ncu pages of lab 11's kernel beside cuBLAS at aligned small shapes.
set -u
tar xJf .gpu/s15a.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step copy_tests 60 $H/new/tests/common_gpu_tests --gtest_filter='AlignedOperands*'
step copy_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 9 $H/new/tests/common_gpu_tests --gtest_filter='AlignedOperands*'
step copy_initcheck 120 compute-sanitizer --tool initcheck --error-exitcode 9 $H/new/tests/common_gpu_tests --gtest_filter='AlignedOperands*'
step l11_grading 240 $H/new/tests/lab11_grading_solution
step l07_grading 200 $H/new/tests/lab07_grading_solution --gtest_filter='*misaligned*:Grading.best.*:*BestPlans*'
step l11_memcheck 200 compute-sanitizer --tool memcheck --error-exitcode 9 $H/new/tests/lab11_grading_solution --gtest_filter='Grading.best.*misaligned*:Grading.best.ld_*:Grading.best.odd*:Grading.best.k_inside*:Grading.best.offset16*:Grading.best.one_launch*'
S1=4998064687210808757; S2=8444672377437012093
step rs_new_s1 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S1 $H/new $R/new_s1
step rs_old_s1 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S1 $H/old $R/old_s1
step rs_old_s2 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S2 $H/old $R/old_s2
step rs_new_s2 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S2 $H/new $R/new_s2
Q="--rounds 2 --min-rounds 1 --round-ms 0.05 --seed 7"
for v in new old; do
  step ncu_copy_$v 90 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed -k regex:'repack|warp_specialized|nvjet|cutlass|sm90_|sm80_|gemv|splitK' --launch-count 12 --csv $H/$v/labs/gemm_random_shapes --labs 11 --shapes 2885x8x4457,17x2326x3664,2x14073x13664,539x6046x24 $Q --output $R/ncu_copy_$v.json
done
step ncu_small 150 ncu --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis -k regex:'warp_specialized|nvjet|cutlass|sm90_|sm80_|gemv|splitK' --launch-count 20 --print-units base --csv --page details $H/new/labs/gemm_random_shapes --labs 11 --shapes 6158x376x24,15683x552x56,5892x1056x128,5043x8x2296,135x80x2312 $Q --output $R/ncu_small.json
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/a.txz -C $R .
