#!/bin/bash
# Session 21, call 5: lab 07's planner without the rule of fill and with stream-K's pieces costed as
# fitted: every plan at shapes whose largest tile fills half the SMs or more (the H100's evidence for
# the rule), then the random shapes at both seeds.
set -u
BINS=${BINS:-BUILD}; X=$BINS; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib
L=$OUT/log.txt
step() { local name=$1 limit=$2; shift 2; echo "== $name ($(date +%T)): $*" >> $L; local t=$SECONDS; timeout $limit "$@" >> $L 2>&1; echo "== $name rc=$? $((SECONDS-t)) s" | tee -a $L; }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv >> $L
step plans 240 $X/labs/lab07_plans_solution --shapes 20480x64x3200,40960x3x1600,10240x128x6400,65536x64x3200,3000x3000x3000,4096x4096x4096,16384x256x4096,2000x2000x6000,12000x300x3000 --repetitions 5 --output $OUT/plans_fill.json
mkdir -p $X/build/labs $X/r1 $X/r2 && cp $X/labs/gemm_random_shapes $X/build/labs/
step seed1 150 python3 scripts/gemm-random-shapes --labs 07,11 --seed 4998064687210808757 $X/build $X/r1
step seed2 150 python3 scripts/gemm-random-shapes --labs 07,11 --seed 8444672377437012093 $X/build $X/r2
(cd $X && tar cJf $OUT/random.tar.xz r1 r2)
