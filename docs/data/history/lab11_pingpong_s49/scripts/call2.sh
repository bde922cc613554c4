#!/usr/bin/env bash
# Issue 53, session 49, call 2: bench_cstore11 (bench_pingpong11.cu built with -DBENCH_CSTORE by
# build_bench.sh, carried in pack/) at shapes_cstore.txt; then Nsight Compute's DRAM and L2 write
# counts of the solution's 256-wide kernel, its copy and the copy with sector-aligned stores
# (sector_store11.cuh) at C's rows off 16 bytes and aligned (call 3 runs memcheck of the same
# stores in the solution's grading tests instead). Run from the repository root: bash pack/call2.sh, carrying pack/.
set -u
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/environment.txt 2>&1
date -u >> $OUT/environment.txt
t=$SECONDS
timeout 150 pack/bench_cstore $(cat pack/shapes_cstore.txt) > $OUT/cstore.txt 2>&1
echo "cstore rc=$? $((SECONDS-t)) s" | tee $OUT/call2_steps.txt
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,smsp__inst_executed.sum
for shape in 6046x6821x57 6046x6824x57; do
  timeout 60 ncu --kernel-name-base demangled -k 'regex:pingpong_kernel|warp_specialized_kernel' -c 3 \
    --metrics $metrics pack/bench_cstore $shape > $OUT/ncu_$shape.txt 2>&1
  echo "ncu_$shape rc=$? $((SECONDS-t)) s" | tee -a $OUT/call2_steps.txt
done
