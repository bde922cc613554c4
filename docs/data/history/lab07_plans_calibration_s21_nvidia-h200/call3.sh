#!/bin/bash
# Session 21, call 3: the random shapes' second seed on call 2's binaries; every plan of lab 07 at its
# worst shapes; Nsight Compute of lab 07's best and cuBLAS at two of them.
set -u
BINS=${BINS:-BUILD}; X=$BINS; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib
L=$OUT/log.txt
step() { local name=$1 limit=$2; shift 2; echo "== $name ($(date +%T)): $*" >> $L; local t=$SECONDS; timeout $limit "$@" >> $L 2>&1; echo "== $name rc=$? $((SECONDS-t)) s" | tee -a $L; }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv >> $L
mkdir -p $X/build/labs $X/random && cp $X/labs/gemm_random_shapes $X/build/labs/
step random_seed2 150 python3 scripts/gemm-random-shapes --labs 07,11 --seed 8444672377437012093 $X/build $X/random
(cd $X/random && tar cJf $OUT/random.tar.xz .)
step plans 150 $X/labs/lab07_plans_solution --shapes 583x331x352,2721x891x24,896x13697x16,304x91x789,12231x17x464,73x16x725,65x952x224,2255x195x80 --repetitions 7 --output $OUT/plans.json
step ncu 200 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis -k regex:'gemm|sgemm|Kernel' --launch-skip 0 --launch-count 40 $X/labs/lab07_solution --variant best --shapes 2721x891x24,583x331x352 --repetitions 1 --min-time 0 --warmups 0
