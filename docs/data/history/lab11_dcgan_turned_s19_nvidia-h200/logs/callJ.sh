#!/usr/bin/env bash
# Call J (issue 54, main 78f3055): this GPU's ceilings (lab00's copy and FMA kernels, lab11_ceiling's wgmma rate), then
# scripts/lab11-dcgan-bench (BF16 and TF32 against PyTorch's best configuration of each, same session).
set -u
tar xJf .gpu/s19J.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
# (A guard here linked the trained weights to the path the binaries were built with, CUDALABS_TRAINED_WEIGHTS_FILE,
# where the checkout lay elsewhere; on that machine it lay at the same path and the guard did nothing.)
mkdir -p $R/lab00
step lab00 60 $H/p/labs/lab00_solution --results-dir $R/lab00
step lab11_ceiling 60 $H/p/labs/lab11_ceiling
step bench 420 scripts/lab11-dcgan-bench $H/p $R/bench
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/j.txz -C $R .
