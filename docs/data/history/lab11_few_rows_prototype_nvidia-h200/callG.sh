#!/usr/bin/env bash
# Session 15, call G (prototype on a branch): the few-rows kernel v2 (8 columns a lane, 16-byte loads, split-K), 4 rows
# of B in flight (f4 = 54be833) or 8 (f8 = b9e05d7), beside main (z = c1253a3): grading tests, memcheck, named shapes.
set -u
tar xJf .gpu/s15g.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step f8_grading 120 $H/f8/tests/lab11_grading_solution --gtest_filter='Grading.best.*'
step f4_grading 120 $H/f4/tests/lab11_grading_solution --gtest_filter='Grading.best.*'
step f8_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 9 $H/f8/tests/lab11_grading_solution --gtest_filter='Grading.best.few_rows*:Grading.best.split_k_two*:Grading.best.tall*:Grading.best.wide*'
S="2x14073x13664,5x8902x16167,1x12000x513,7x8500x2000,16x8447x1000,5x9001x301,3x20000x4096,8x50000x1024,1x30001x777,12x16384x8192,15x12445x48,12x408x9058,1x4753x9441,5x3542x32,2x14072x13664"
for v in f8 f4 z; do step shapes_$v 60 $H/$v/labs/gemm_random_shapes --labs 11 --shapes $S --seed 11 --output $R/shapes_$v.json; done
step shapes_f8_again 60 $H/f8/labs/gemm_random_shapes --labs 11 --shapes $S --seed 11 --output $R/shapes_f8_again.json
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/g.txz -C $R .
