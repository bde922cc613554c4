#!/usr/bin/env bash
# Session 30, call 4 (issue 54): the turned consumers (tconv3) staggered by stage: the second consumer multiplies
# stage s once the first has finished it (named barrier 3 + s), so that one consumer's products keep the tensor
# cores busy while the other waits, releases and issues (v1: every stage; v2: stages of three taps only), against
# HEAD's build (base), interleaved, batch 5248; the DCGAN tests and racecheck on both.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O/runs
tar -xJf pack/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack_out() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call4.tar.xz -C $O --exclude='*.cldw' --exclude='*.cldz' .; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack_out; return $rc; }
for v in v1 v2; do
  step tests_dcgan_$v 150 $S/$v/tests/lab11_dcgan_solution --gtest_brief=1
  step racecheck_$v 150 compute-sanitizer --tool racecheck --error-exitcode 9 $S/$v/tests/lab11_dcgan_solution --gtest_brief=1 --gtest_filter='*SubpixelLayer*turned*'
done
W=$PWD/labs/09_dcgan/fashion_mnist.cldw
for round in 1 2 3; do for v in base v1 v2; do for prec in bf16 tf32; do
  step runs/${v}_${prec}_$round 40 $S/$v/labs/dcgan --weights $W --precision $prec --num 5248 --batch 5248 --end-to-end-repetitions 0 --check-images 2
done; done; done
pack_out
