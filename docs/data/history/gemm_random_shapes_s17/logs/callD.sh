#!/usr/bin/env bash
# Call D: lab 11's aligned rungs and best, main (m 314173f) beside the staging branch (z e88fb7e), full unroll (f) and
# aligned loops as main (s); lab 11 grading at s, random shapes (lab 11) at s; Nsight Compute on lab 07's few-rows kernel (z).
set -u
tar xJf .gpu/s17D.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step g11s 150 $H/s/tests/lab11_grading_solution --gtest_filter='Grading.wmma*:Grading.mma*:Grading.wgmma.*:Grading.best.*'
A="4096,2048,977x3572x747,3215x884x4744"
i=0; for v in m s f z z f s m; do i=$((i + 1)); step al_$v$i 60 $H/$v/labs/lab11_solution --shapes $A --variant best --variant wgmma --variant mma_swizzled --repetitions 5 --seed 5 --results-dir $R --results-tag al_$v$i; done
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S1 $H/s $R/s1
step rs_s2 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S2 $H/s $R/s2
NCU="ncu --kernel-name regex:few_rows --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats --section SourceCounters"
for s in 17x2326x3664 5x8902x16167 2x65x696; do step ncu07_$s 90 $NCU $H/z/labs/lab07_solution --variant best --verify-only --shapes $s; done
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/d.txz -C $R .
