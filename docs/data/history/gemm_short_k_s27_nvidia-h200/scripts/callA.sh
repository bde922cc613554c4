#!/usr/bin/env bash
# Call A: the short-K records (lab 11's kernel against its model, lab 07's plans at short K) and
# both seeds' random shapes at HEAD and at the commit before, interleaved seed by seed.
set -u
S=$(mktemp -d)  # scratch: the unpacked binaries, the outputs before they are packed
O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
git -C . log -1 --format=%H >> $O/environment.txt 2>/dev/null
date -u >> $O/environment.txt
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt; }
step bench11 170 $S/px/bench_short_k11 $(tr , ' ' < pack/shapes11.txt)
step plans07 170 $S/px/new/labs/lab07_plans_solution --shapes "$(cat pack/shapes07.txt)" --within 1000 --output $O/plans07.json
for seed in 4998064687210808757 8444672377437012093; do
  for side in new base; do
    t=$SECONDS
    timeout 150 scripts/gemm-random-shapes --labs 07,11 --seed $seed $S/px/$side $S/rs_${side}_$seed > $O/rs_${side}_$seed.log 2>&1
    echo "rs_${side}_$seed rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
  done
done
for side in new base; do for seed in 4998064687210808757 8444672377437012093; do
  tar -cJf $O/rs_${side}_$seed.tar.xz -C $S/rs_${side}_$seed . 2>/dev/null; done; done
cp $O/steps.txt $O/bench11.txt $OUT/; tar -cJf $OUT/callA.tar.xz -C $O .
