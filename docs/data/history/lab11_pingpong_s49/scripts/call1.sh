#!/usr/bin/env bash
# Issue 53, session 49, call 1: bench_pingpong11 (built by build_bench.sh, carried in pack/) at
# shapes_pingpong.txt; its first seven kernels at 4096^3 under Nsight Compute (the tensor pipe's busy
# share, time); then session 48's call_c.sh (unaligned_c.patch against main). Run from the
# repository root: bash pack/call1.sh, carrying pack/.
set -u
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/environment.txt 2>&1
date -u >> $OUT/environment.txt
t=$SECONDS
timeout 150 pack/bench_pingpong $(cat pack/shapes_pingpong.txt) > $OUT/pingpong.txt 2>&1
echo "pingpong rc=$? $((SECONDS-t)) s" | tee $OUT/call1_steps.txt
timeout 90 ncu --kernel-name-base demangled -k 'regex:pingpong_kernel|warp_specialized_kernel' -c 7 \
  --metrics gpu__time_duration.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum.per_second \
  pack/bench_pingpong 4096x4096x4096 > $OUT/pingpong_ncu.txt 2>&1
echo "pingpong_ncu rc=$? $((SECONDS-t)) s" | tee -a $OUT/call1_steps.txt
bash pack/call_c.sh > $OUT/call_c_stdout.txt 2>&1
echo "call_c rc=$? $((SECONDS-t)) s" | tee -a $OUT/call1_steps.txt
