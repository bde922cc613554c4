#!/usr/bin/env bash
# Call C: lab 11 one-launch rungs at small misaligned shapes (and the aligned rungs at 4096 and 2048), branch (z: e88fb7e) beside main (m: 314173f), ABBA; random shapes, both
# labs, both seeds (branch).
set -u
tar xJf .gpu/s17C.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
S="50x628x40,46x384x50,1348x389x40,3105x215x32,133x220x56,464x602x144,2874x184x46,19x1473x108,73x16x725,2x65x696,282x4x1864,818x29x1792,539x6046x24,9476x362x18"
i=0; for v in m z z m; do i=$((i + 1)); step rungs_$v$i 90 $H/$v/labs/lab11_solution --shapes $S --variant best --variant wgmma --variant mma_swizzled --repetitions 5 --seed 5 --results-dir $R --results-tag rungs_$v$i; done
i=0; for v in m z z m; do i=$((i + 1)); step aligned_$v$i 60 $H/$v/labs/lab11_solution --shapes 4096,2048 --variant wgmma --variant mma_swizzled --repetitions 5 --seed 5 --results-dir $R --results-tag aligned_$v$i; done
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S1 $H/z $R/s1
step rs_s2 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S2 $H/z $R/s2
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/c.txz -C $R .
