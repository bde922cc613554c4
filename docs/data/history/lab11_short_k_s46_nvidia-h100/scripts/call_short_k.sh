#!/usr/bin/env bash
# Issue 53, session 46: where lab 11's short-K kernel and `best` lose to cuBLAS at shapes of a short
# K (session 44's random shapes: large Cs of 2 to 14 us a launch behind, tiny ones 1 to 2.5 us).
# bench_short_k11 built three ways (chunks of 32 and of 64 values of K, LAB11_SHORT_K_CHUNK; 4
# buffers where K is whole, LAB11_SHORT_K_WHOLE_STAGES) at shapes_short_k.txt, then Nsight Compute
# on the short-K kernel (a large C, K whole; tiny Cs, K whole and sliced) and on the
# warp-specialized kernel at two large Cs of odd N; session 47 added cuBLAS's kernel at three
# shapes. Run from the repository root after pack.sh
# packed pack/short_k.tar.xz (bench_short_k32, bench_short_k64, bench_short_k_s4) with this
# script and shapes_short_k.txt.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
tar -xJf pack/short_k.tar.xz -C $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { tar -cJf $OUT/short_k.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt; pack; }
step bench_chunk32 120 $S/bench_short_k32 $(cat pack/shapes_short_k.txt)
step bench_chunk64 120 $S/bench_short_k64 $(cat pack/shapes_short_k.txt)
step bench_stages4 120 $S/bench_short_k_s4 $(cat pack/shapes_short_k.txt)
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis"
for shape in 5892x1056x128 1007x62x72 106x88x208; do
  step ncu_short_k_$shape 90 ncu -k regex:short_k_mma -c 1 $sections $S/bench_short_k32 $shape
done
for shape in 6046x6821x57 2048x7303x80; do
  step ncu_best_$shape 90 ncu -k regex:warp_specialized -c 1 $sections --section SourceCounters $S/bench_short_k32 $shape
done
# session 47: what cuBLAS runs at three of them (the first cuBLAS GEMM a run launches: the check's)
for shape in 5892x1056x128 106x88x208 6046x6821x57; do
  step ncu_cublas_$shape 60 ncu -k regex:'nvjet|sm90|sm80|xmma|cutlass' -c 1 --section SpeedOfLight --section LaunchStats --section MemoryWorkloadAnalysis --section Occupancy $S/bench_short_k32 $shape
done
cat $O/steps.txt
