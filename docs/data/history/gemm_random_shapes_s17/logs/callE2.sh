#!/usr/bin/env bash
# Call E2: lab 07 every plan at few-row shapes, the new loader (n, wip-s17) beside e88fb7e (z); small and short-K
# few-row shapes (n) to fit the model; random shapes, both labs, both seeds (n).
set -u
tar xJf .gpu/s17E2.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
P="17x2326x3664,17x2326x3664_off+1,21x544x5224,12x408x9058,34x2576x3592,22x525x3696,4x416x3344,32x1452x2232,43x104x13384,1x4064x2993,8x8192x4096,4x123x5240,64x16384x4096,114x54x3896"
step plans07_n 150 $H/n/labs/lab07_plans_solution --shapes $P --within 4 --repetitions 5 --output $R/plans07_n.json
step plans07_z 150 $H/z/labs/lab07_plans_solution --shapes $P --within 4 --repetitions 5 --output $R/plans07_z.json
SMALL="2x65x696,36x112x440,39x440x200,1x132x168,14x160x7088,12x81x1192,1x88x723,4x3256x248,15x240x1736,5x8902x16167,19x1473x108,1x221x72,52x5427x16,34x8999x408,15x12445x48,11x128x16,60x3000x20000,48x700x2000"
step plans07_small_n 150 $H/n/labs/lab07_plans_solution --shapes $SMALL --within 4 --repetitions 5 --output $R/plans07_small_n.json
S1=4998064687210808757; S2=8444672377437012093
step rs_s1 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S1 $H/n $R/s1
step rs_s2 120 python3 scripts/gemm-random-shapes --labs 07,11 --seed $S2 $H/n $R/s2
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/e2.txz -C $R .
