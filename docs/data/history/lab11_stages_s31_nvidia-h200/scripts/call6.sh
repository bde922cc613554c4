#!/usr/bin/env bash
# Session 31, call 6 (issue 53, for the next session): Nsight Compute's launch facts of lab 11's
# best and of cuBLAS at four shapes with few rows of C: kernel, grid, block, cluster, registers,
# time and DRAM throughput (the driver's checks and timing launches, at most 60 kernels a shape).
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
tar -xJf pack/bin6.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
for shape in 17x2326x3664 34x2576x3592 162x952x1712 1x88x723; do
  timeout 100 ncu --launch-count 60 --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__cluster_dim_x,launch__cluster_dim_y,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,dram__throughput.avg.pct_of_peak_sustained_elapsed --csv --page raw $S/lab11_solution --shapes $shape --variant best --repetitions 1 --min-time 0 --warmups 0 > $O/ncu_$shape.csv 2> $O/ncu_$shape.err
  echo "$shape rc=$?" >> $O/steps.txt; cp $O/* $OUT/ 2>/dev/null
done
