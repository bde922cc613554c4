#!/bin/bash
# Session 21, call 6: main's planner as committed (no rule of fill, stream-K's pieces costed, a split
# must save a tenth): lab 07's tests, then the random shapes at both seeds.
set -u
BINS=${BINS:-BUILD}; X=$BINS; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib
L=$OUT/log.txt
step() { local name=$1 limit=$2; shift 2; echo "== $name ($(date +%T)): $*" >> $L; local t=$SECONDS; timeout $limit "$@" >> $L 2>&1; echo "== $name rc=$? $((SECONDS-t)) s" | tee -a $L; }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv >> $L
step grading07 200 $X/tests/lab07_grading_solution
step split07 100 $X/tests/lab07_split_finish_solution
mkdir -p $X/build/labs $X/r1 $X/r2 && cp $X/labs/gemm_random_shapes $X/build/labs/
step seed1 150 python3 scripts/gemm-random-shapes --labs 07,11 --seed 4998064687210808757 $X/build $X/r1
step seed2 150 python3 scripts/gemm-random-shapes --labs 07,11 --seed 8444672377437012093 $X/build $X/r2
(cd $X && tar cJf $OUT/random.tar.xz r1 r2)
