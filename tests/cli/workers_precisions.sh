#!/usr/bin/env bash
# Lab 10's threaded program at every precision (ctest: cli.dcgan_multi_gpu_precisions): 7 images on
# three workers of GPU 0 (shares of 3, 2 and 2: the mechanism of three GPUs on any GPU machine),
# built-in weights. At fp32 (lab 09's kernels), tf32 and bf16 (lab 11's tensor-core layers) the
# images must pass the precision's CPU check and be, bit for bit, one GPU's generating the same
# shares in turn.
#   workers_precisions.sh DCGAN_MULTI_GPU
set -uo pipefail
program=$1
if ! nvidia-smi -L 2>/dev/null | grep -q "^GPU 0"; then echo "SKIPPED: no CUDA GPU available"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
for precision in fp32 tf32 bf16; do
  out=$work/$precision.out
  if ! timeout 300 "$program" --weights builtin --num 7 --seed 11 --devices 0,0,0 --precision "$precision" \
      --verify-only --check-images 7 > "$out" 2>&1; then
    echo "FAIL: $precision: exit $?: $(tail -3 "$out")"; failures=$((failures + 1)); continue
  fi
  if grep -q "FAIL" "$out" || ! grep -q "identical to one GPU's output, share by share .*PASS" "$out" ||
     ! grep -q "against .*PASS" "$out"; then
    echo "FAIL: $precision: $(cat "$out")"; failures=$((failures + 1)); continue
  fi
  echo "$precision: 3 workers: $(grep -E "identical to one GPU's output" "$out" | head -1)"
done
echo "workers_precisions: $failures failure(s)"
[ $failures -eq 0 ]
