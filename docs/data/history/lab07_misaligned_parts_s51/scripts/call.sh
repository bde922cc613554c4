#!/usr/bin/env bash
# Issue 53, session 51 (built, not yet run): what each misaligned operand costs lab 07's `best`.
# Main's lab07_solution, --variant best (cuBLAS SGEMM timed before it at every layout), at
# layouts.txt: lab 07's worst random shapes with a row of A, B or C off 16 bytes, tight and with
# the rows of B, of C, of both and of all three padded to 16 bytes (offline/layouts.py). Two runs,
# each its own process. Everything in a scratch folder, packed after each run into $OUT/parts.tar.gz;
# the steps' lines also in $OUT/parts_steps.txt. Run from the repository root: bash
# pack_parts/call.sh, carrying pack_parts/ (prepare.sh builds it).
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/pack_parts/lib:${LD_LIBRARY_PATH:-}
O=$(mktemp -d)
packed() { cp $O/parts_steps.txt $OUT/ 2>/dev/null; tar -czf $OUT/parts.tar.gz -C $O .; }
trap packed EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
for run in 1 2; do
  s=$SECONDS
  timeout 150 pack_parts/lab07_solution --shapes "$(paste -sd, pack_parts/layouts.txt)" --variant best \
    --repetitions 5 --min-time 0.02 --seed $run --results-dir $O --results-tag parts_run$run > $O/run$run.txt 2>&1
  echo "run$run rc=$? $((SECONDS-s)) s" | tee -a $O/parts_steps.txt
  packed
done
