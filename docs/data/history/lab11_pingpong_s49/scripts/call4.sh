#!/usr/bin/env bash
# Issue 53, session 50, call 4: why C's rows off 16 bytes cost lab 11's 128-row tiles ~1.85x (call 3:
# the sector-aligned stores did not help): Nsight Compute's DRAM, L2 and L1 store counts and warp
# stalls of every kernel bench_cstore runs in its check pass (the solution's coop256, its copy,
# the copy with sector stores, coop128, coop128 with sectors, 64x128, best, cuBLAS) at 6046x6821x57
# and 6046x6824x57; then lab 07's best and cuBLAS SGEMM at two of its worst shapes (warp states).
set -u
cd "$(dirname "$0")/.."
S=$(mktemp -d)
tar -xJf pack/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/environment.txt 2>&1
date -u >> $OUT/environment.txt
t=$SECONDS
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum,launch__grid_size
for shape in 6046x6821x57 6046x6824x57; do
  timeout 120 ncu --kernel-name-base demangled -c 18 --metrics $m --section WarpStateStats \
    pack/bench_cstore $shape > $OUT/ncu11_$shape.txt 2>&1
  echo "ncu11_$shape rc=$? $((SECONDS-t)) s" | tee -a $OUT/call4_steps.txt
done
timeout 120 ncu --kernel-name-base demangled -c 12 --metrics $m,sm__warps_active.avg.pct_of_peak_sustained_active \
  --section WarpStateStats --section SpeedOfLight $S/base/labs/gemm_random_shapes --labs 07 \
  --shapes 286x122x2574,2255x195x80 --output $S/rs07.json --rounds 2 --min-rounds 2 --round-ms 1 \
  --shape-ms 10 > $OUT/ncu07.txt 2>&1
echo "ncu07 rc=$? $((SECONDS-t)) s" | tee -a $OUT/call4_steps.txt
