#!/usr/bin/env bash
# Session 32, call 5 (issue 53): the grader's counters of wide_32x32, wide_64x64 and best at the
# width record's problem (768 x 512 x 832, every variant checked twice), for the rubric's rules.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin5.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/environment.txt 2>&1; date -u >> $O/environment.txt
timeout 150 ncu --metrics smsp__sass_inst_executed_op_global_ld.sum,smsp__inst_executed_op_ldgsts.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,smsp__sass_data_bytes_mem_global_op_ld.sum,smsp__sass_data_bytes_mem_global_op_ldgsts.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio --csv --page raw --log-file $O/lab07_counters.csv $S/px/new/labs/lab07_solution --m 768 --n 512 --k 832 --verify-only --variant wide_64x64 --variant wide_32x32 --variant best > $O/ncu.txt 2>&1
echo "ncu rc=$?" | tee $O/steps.txt
tar -cJf $OUT/call5.tar.xz -C $O .
