#!/usr/bin/env bash
# Session 15, call F (prototype on a branch): lab 11's few-rows kernel (f = c5671a8) beside main (z = c1253a3): its grading
# tests and memcheck; named few-rows shapes both builds; random shapes of lab 11 both seeds, both builds (ABBA).
set -u
tar xJf .gpu/s15f.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step f_grading 120 $H/f/tests/lab11_grading_solution --gtest_filter='Grading.best.*'
step f_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 9 $H/f/tests/lab11_grading_solution --gtest_filter='*few_rows*'
S="2x14073x13664,5x8902x16167,1x12000x513,7x8500x2000,16x8447x1000,5x9001x301,3x20000x4096,8x50000x1024,1x30001x777,12x16384x8192"
for v in f z; do step shapes_$v 60 $H/$v/labs/gemm_random_shapes --labs 11 --shapes $S --seed 11 --output $R/shapes_$v.json; done
S1=4998064687210808757; S2=8444672377437012093
step rs_f_s1 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S1 $H/f $R/f_s1
step rs_z_s1 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S1 $H/z $R/z_s1
step rs_z_s2 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S2 $H/z $R/z_s2
step rs_f_s2 90 python3 scripts/gemm-random-shapes --labs 11 --seed $S2 $H/f $R/f_s2
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/f.txz -C $R .
