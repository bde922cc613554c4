#!/usr/bin/env bash
# Session 15, call E: the records of random shapes, both labs, both seeds, at c1253a3 (the copy four chunks ahead, the
# epilogue's width chosen once).
set -u
tar xJf .gpu/s15e.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S1 $H/z $R/s1
step rs_s2 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S2 $H/z $R/s2
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/e.txz -C $R .
