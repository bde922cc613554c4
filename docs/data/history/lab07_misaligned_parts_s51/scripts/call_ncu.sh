#!/usr/bin/env bash
# Issue 53, session 52, call 2: why C's rows off 16 bytes cost lab 07's `best` a third of its time at
# 13807 x 8579 x 256 (call_1). Nsight Compute on best's tile kernel there, tight and with C's rows
# padded to 16 bytes (beta = 0 in every launch, the first tile launch of each program): speed of
# light, warp states, memory tables, instruction counts and the SASS lines with their stall samples.
# Run from the repository root: bash pack_parts/call_ncu.sh, carrying pack_parts/ (prepare.sh).
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/pack_parts/lib:${LD_LIBRARY_PATH:-}
O=$(mktemp -d)
packed() { tar -czf $OUT/ncu.tar.gz -C $O .; }
trap packed EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
for layout in 13807x8579x256 13807x8579x256_ldc+1; do
  s=$SECONDS
  timeout 120 ncu --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis_Tables \
    --section InstructionStats --section LaunchStats --section Occupancy --section SourceCounters \
    -k regex:wide_gemm --launch-count 1 -o $O/$layout pack_parts/lab07_solution --shapes $layout --variant best \
    --verify-beta 0 --repetitions 1 --min-time 0.001 --warmups 0 --seed 3 > $O/${layout}_run.txt 2>&1
  echo "$layout rc=$? $((SECONDS-s)) s" | tee -a $O/steps.txt
  ncu -i $O/$layout.ncu-rep --page details --print-units base > $O/${layout}_details.txt 2>&1
  ncu -i $O/$layout.ncu-rep --page source --print-source sass --csv > $O/${layout}_sass.csv 2>&1
  rm -f $O/$layout.ncu-rep
  packed
done
