#!/bin/bash
# Session 22, call 2 (issue 54): why the RGB layer's new kernel issues 1,000 instructions a warp row:
# its SASS, its executed instruction mix and stall reasons (Nsight Compute), BF16, the DCGAN's batch.
set -u
X=$PWD/.bins; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
R=$X/out; mkdir -p $R
cuobjdump -sass $X/p/exp/rgb_bench > $R/sass_all.txt 2>&1; echo "sass rc=$?" >> $R/log.txt
timeout 200 ncu -k regex:rgb_superpixel -c 1 --section InstructionStats --section WarpStateStats --section SourceCounters \
  --section SchedulerStats --print-details all \
  --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:smsp__inst_executed_pipe_.*\.sum$ \
  $X/p/exp/rgb_bench profile > $R/ncu_bf16.txt 2>&1; echo "ncu rc=$?" >> $R/log.txt
cp $R/log.txt $OUT/log.txt
xz -9 -c $R/sass_all.txt > $OUT/sass_all.txt.xz
cp $R/ncu_bf16.txt $OUT/ncu_bf16.txt
