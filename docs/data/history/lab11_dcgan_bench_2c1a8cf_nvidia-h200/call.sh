#!/bin/bash
# Session 21, call 7 (issue 54): this GPU's ceilings (lab 00's copy and FMA kernels, lab11_ceiling's BF16 and TF32
# wgmma rates), then scripts/lab11-dcgan-bench at main: the TF32 layers against a TF32 compute floor.
set -u
BINS=${BINS:-$PWD/.bins}; X=$BINS; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib:${LD_LIBRARY_PATH:-}
R=$X/out; mkdir -p $R/lab00
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
echo "checkout at $PWD" >> $R/gpu.txt
# The binaries name the trained weights by the path they were built at: link it where the checkout lies elsewhere.
W=/path/the/binaries/were/built/at/labs/09_dcgan/fashion_mnist.cldw
[ -e $W ] || { mkdir -p $(dirname $W) && ln -s $PWD/labs/09_dcgan/fashion_mnist.cldw $W; }
step lab00 60 $X/p/labs/lab00_solution --results-dir $R/lab00
step lab11_ceiling 60 $X/p/labs/lab11_ceiling
step bench 400 scripts/lab11-dcgan-bench $X/p $R/bench
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/bench.txz -C $R .
