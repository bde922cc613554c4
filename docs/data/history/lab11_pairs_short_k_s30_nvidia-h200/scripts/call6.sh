#!/usr/bin/env bash
# Session 30, call 6 (issue 54): call 3's FP32 comparison again with tools/pytorch_dcgan.py's trials under
# torch.no_grad() as its timing is (call 3 ran the trials with autograd on): lab 09's FP32 sub-pixel generator,
# PyTorch's fastest FP32 configuration (TF32 off), ours again.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O/runs
tar -xJf pack/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
python3 -c "import torch; print('torch', torch.__version__, 'cudnn', torch.backends.cudnn.version())" >> $O/environment.txt 2>&1
pack_out() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call6.tar.xz -C $O --exclude='*.cldw' --exclude='*.cldz' .; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $((SECONDS-t)) s" | tee -a $O/steps.txt; pack_out; return $rc; }
W=$PWD/labs/09_dcgan/fashion_mnist.cldw
step runs/fp32_ours_1 60 $S/new/labs/dcgan --weights $W --variant subpixel --num 5248 --batch 5248 --repetitions 5 --end-to-end-repetitions 0 --check-images 2
step pytorch_fp32 300 python3 tools/pytorch_dcgan.py bench --precision fp32 --weights $W --batches 1024,5248 --end-to-end 5248 --repetitions 20 --json $O/pytorch_fp32.json
step runs/fp32_ours_2 60 $S/new/labs/dcgan --weights $W --variant subpixel --num 5248 --batch 5248 --repetitions 5 --end-to-end-repetitions 0 --check-images 2
pack_out
