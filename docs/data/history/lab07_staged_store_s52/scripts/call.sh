#!/usr/bin/env bash
# Issue 53, session 52: lab 07's `best` with C's rows off 16 bytes stored through the shared tiles
# in aligned windows, a rolled loop (store_lane_patch_staged), and each operand's loads chosen
# apart on the scalar path (scripts/staged_store.patch, `new`), against main (`base`). New's
# grading and split-finish tests, memcheck of its misaligned, padded and odd cases and racecheck of
# the staged stores; the 116 layouts of history/lab07_misaligned_parts_s51 with new (base's are
# that record's call_1); both random-shapes seeds of lab 07, base and new in turn; Nsight Compute
# on new's tile kernel at 13807 x 8579 x 256. Everything in a scratch folder, packed after each
# step into $OUT/staged.tar.gz; the steps' lines also in $OUT/staged_steps.txt. Run from the
# repository root: bash pack_staged/call.sh, carrying pack_staged/ (prepare.sh builds it).
set -u
cd "$(dirname "$0")/.."
NAME=staged
source pack_staged/steps.sh  # unpack, packed, step, random_shapes (history/call_helpers/steps.sh)
unpack pack_staged
trap packed EXIT
T=$S/new/tests
step grading07_new 90 $T/lab07_grading_solution --gtest_brief=1
step split07_new 60 $T/lab07_split_finish_solution --gtest_brief=1
step memcheck07_new 90 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab07_grading_solution --gtest_brief=1 \
  --gtest_filter='Grading.wide_*.*misaligned*:Grading.wide_*.ld_mod4*:Grading.wide_*.odd_17*:Grading.wide_*.n_mod4*:Grading.best.*misaligned*:Grading.best.*ld*'
for seed in 4998064687210808757 8444672377437012093; do random_shapes $seed $S base new; done
step racecheck07_new 60 compute-sanitizer --tool racecheck --error-exitcode 9 $T/lab07_grading_solution --gtest_brief=1 \
  --gtest_filter='Grading.wide_128x128.ldc_misaligned*:Grading.wide_256x128.ldc_misaligned*:Grading.wide_32x32.ld_mod4*'
step parts_new 90 $S/new/labs/lab07_solution --shapes "$(paste -sd, pack_staged/layouts.txt)" --variant best \
  --repetitions 5 --min-time 0.02 --seed 1 --results-dir $O --results-tag parts_new
step ncu_new 60 ncu --section SpeedOfLight --section WarpStateStats --section InstructionStats -k regex:wide_gemm \
  --launch-count 1 --print-units base $S/new/labs/lab07_solution --shapes 13807x8579x256 --variant best \
  --verify-beta 0 --repetitions 1 --min-time 0.001 --warmups 0 --seed 3
