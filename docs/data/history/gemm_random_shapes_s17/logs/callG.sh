#!/usr/bin/env bash
# Call G (wip-s17 c6a9b25, the code to land): random shapes, both labs, both seeds: the records.
set -u
tar xJf .gpu/s17G.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S1 $H/p $R/s1
step rs_s2 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S2 $H/p $R/s2
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/g.txz -C $R .
