#!/usr/bin/env bash
# Call F (wip-s17 c6a9b25): lab 07's planner with the few-rows kernel counted in stages: grading, random shapes (lab 07,
# both seeds), every plan at few-row shapes outside the fit, Nsight Compute on the new loader.
set -u
tar xJf .gpu/s17F.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step g07 120 $H/p/tests/lab07_grading_solution
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 90 python3 scripts/gemm-random-shapes --labs 07 --seed $S1 $H/p $R/s1
step rs_s2 90 python3 scripts/gemm-random-shapes --labs 07 --seed $S2 $H/p $R/s2
V="5x296x1733,30x1113x1042,1x837x3024,16x2000x8000,50x5000x5000,25x777x10001,7x3333x3333,3x12000x900,63x1500x1500,9x640x30000,40x200x2500_off+1,2x50000x2048"
step plans07_val 150 $H/p/labs/lab07_plans_solution --shapes $V --within 4 --repetitions 5 --output $R/plans07_val.json
NCU="ncu --kernel-name regex:few_rows --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats"
for s in 17x2326x3664 64x16384x4096; do step ncu07_$s 90 $NCU $H/p/labs/lab07_solution --variant best --verify-only --shapes $s; done
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/f.txz -C $R .
