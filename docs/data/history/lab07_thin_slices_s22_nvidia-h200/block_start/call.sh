#!/bin/bash
# Session 22, call 6 (issue 53): lab 07's planner with a cost a resident block (kBlockStartUs 2.0 us) on top of
# slices down to 64: every plan timed at the 39 shapes of both seeds whose choice moves, then both seeds' random
# shapes (lab 07).
set -u
T0=$(date +%s); BUDGET=330
X=$PWD/.bins; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib:${LD_LIBRARY_PATH:-}
R=$X/out; mkdir -p $R
step() { local name=$1 limit=$2; shift 2; local left=$(( BUDGET - ($(date +%s) - T0) ))
  (( left < limit )) && limit=$left; (( limit < 5 )) && { echo "$name skipped (no time)" | tee -a $R/log.txt; return; }
  local t0=$(date +%s); timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
step seed1 80 scripts/gemm-random-shapes --labs 07 --seed 4998064687210808757 $X $R/seed1
step seed2 80 scripts/gemm-random-shapes --labs 07 --seed 8444672377437012093 $X $R/seed2
step plans 160 $X/labs/lab07_plans_solution --shapes 5892x1056x128,7844x214x48,1299x100x1536,9476x362x18,15488x1427x502,870x299x230,2432x115x3704,11335x400x16,896x13697x16,1140x8111x136,6431x3976x3448,369x91x1368,201x10738x36,2048x7303x80,539x6046x24,13807x8579x256,2721x891x24,6158x376x24,8631x3720x192,1190x390x419,286x122x2574,151x13536x16,2973x4234x51,906x6536x48,2169x1388x78,10695x1711x504,193x9671x16,592x76x848,172x1878x520,3233x2880x77,712x12453x80,15683x552x56,590x8272x80,520x1008x840,162x952x1712,113x1202x5416,1392x10176x88,11843x6737x300,262x2213x3624 --repetitions 3 --output $R/plans_block_start.json
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/out.txz -C $R .
