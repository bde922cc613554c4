#!/usr/bin/env bash
# Call I (issue 54, diagnostic build of 0472507 with the by-position plan forced before the halo where it multiplies fewer
# taps, LAB11_DIAG_BY_POSITION=1; never committed): tconv2 and tconv3 by position against the halo, alternating.
set -u
tar xJf .gpu/s19I.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
W=labs/09_dcgan/fashion_mnist.cldw
for round in 1 2; do
  for precision in bf16 tf32; do
    step halo_${precision}_$round 60 $H/new/labs/dcgan --weights $W --precision $precision --num 5248 --batch 5248 --repetitions 5 --min-time 0.2 --end-to-end-repetitions 0 --check-images 4
    step position_${precision}_$round 60 env LAB11_DIAG_BY_POSITION=1 $H/new/labs/dcgan --weights $W --precision $precision --num 5248 --batch 5248 --repetitions 5 --min-time 0.2 --end-to-end-repetitions 0 --check-images 4
  done
done
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/i.txz -C $R .
