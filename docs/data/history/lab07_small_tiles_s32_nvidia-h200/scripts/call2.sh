#!/usr/bin/env bash
# Session 32, call 2 (issue 53): what cuBLAS's SGEMM launches at lab 07's worst random shapes, beside
# main's `best`: Nsight Compute (launch statistics, speed of light, occupancy) of every GEMM kernel of
# one untimed-size run of each (best and cuBLAS: verification, one warm-up, one timed repetition).
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin2.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call2.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt; pack; }
B=$S/px/base/labs/lab07_solution
shapes=286x122x2574,369x91x1368,1190x390x419,514x3391x168,12231x17x464,135x80x2312,6938x544x911,1071x56x1150,106x241x6048,77x1573x95
step ncu_small 300 ncu --section LaunchStats --section SpeedOfLight --section Occupancy --section SchedulerStats -k regex:'gemm|Gemm|xmma|nvjet|cutlass|splitK|reduce|repack|few_rows|short_k|narrow' $B --variant best --shapes $shapes --repetitions 1 --warmups 1 --min-time 0
step times_small 60 $B --variant best --shapes $shapes --repetitions 7
cat $O/steps.txt
