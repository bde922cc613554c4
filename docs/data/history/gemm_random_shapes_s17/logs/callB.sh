#!/usr/bin/env bash
# Call B: lab 11 sanitizers on the staging; lab 07 every plan at few-row shapes (z) and at mid M with the few-rows
# kernel allowed 256 rows (h/e: f9f8d3e), against the model and cuBLAS.
set -u
tar xJf .gpu/s17B.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step mc11 120 compute-sanitizer --tool memcheck --error-exitcode 9 $H/z/tests/lab11_grading_solution --gtest_filter='Grading.wgmma.*:Grading.mma_swizzled.*'
MIS="50x628x40,131x67x69_off+1,200x136x72_ldb+1"
step rc11 80 compute-sanitizer --tool racecheck --error-exitcode 9 $H/z/labs/lab11_solution --variant wgmma --variant mma_swizzled --verify-only --shapes $MIS
MID="163x216x13649,106x241x6048,172x267x8312,286x122x2574,109x68x3133,184x259x12216,128x296x10256,139x792x2872,232x1024x4096"
step plans07_mid 120 $H/e/labs/lab07_plans_solution --shapes $MID --within 3 --repetitions 5 --output $R/plans07_mid.json
P="17x2326x3664,17x2326x3664_off+1,21x544x5224,12x408x9058,34x2576x3592,22x525x3696,4x416x3344,32x1452x2232,43x104x13384,1x4064x2993,8x8192x4096,4x123x5240,64x16384x4096,114x54x3896"
step plans07 150 $H/z/labs/lab07_plans_solution --shapes $P --within 4 --repetitions 5 --output $R/plans07.json
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/b.txz -C $R .
