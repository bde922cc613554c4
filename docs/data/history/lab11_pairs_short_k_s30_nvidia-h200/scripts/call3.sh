#!/usr/bin/env bash
# Session 30, call 3 (issue 54, then issue 53's next fit): lab 09's FP32 generator (the sub-pixel variant, which
# the dcgan program times at FP32) beside PyTorch's fastest FP32 configuration (tools/pytorch_dcgan.py bench now
# tries channels-last or not, eager and compiled, TF32 off), ours before and after; Nsight Compute's warp states
# and source counters of BF16 tconv3 (its third sub-pixel launch); the short-K kernel at the four shapes a refit of
# its model to call 2's times would move onto it.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O/runs
tar -xJf pack/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
python3 -c "import torch; print('torch', torch.__version__, 'cudnn', torch.backends.cudnn.version())" >> $O/environment.txt 2>&1
pack_out() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call3.tar.xz -C $O --exclude='*.cldw' --exclude='*.cldz' --exclude='*.ncu-rep' .; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $((SECONDS-t)) s" | tee -a $O/steps.txt; pack_out; return $rc; }
W=$PWD/labs/09_dcgan/fashion_mnist.cldw
step runs/fp32_ours_1 60 $S/new/labs/dcgan --weights $W --variant subpixel --num 5248 --batch 5248 --repetitions 5 --end-to-end-repetitions 0 --check-images 2
step pytorch_fp32 300 python3 tools/pytorch_dcgan.py bench --precision fp32 --weights $W --batches 1024,5248 --end-to-end 5248 --repetitions 20 --json $O/pytorch_fp32.json
step runs/fp32_ours_2 60 $S/new/labs/dcgan --weights $W --variant subpixel --num 5248 --batch 5248 --repetitions 5 --end-to-end-repetitions 0 --check-images 2
step ncu_tconv3 120 ncu -k regex:subpixel_wgmma --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SourceCounters --section MemoryWorkloadAnalysis -f -o $O/ncu_tconv3 $S/new/labs/dcgan --weights $W --precision bf16 --num 5248 --batch 5248 --repetitions 1 --warmups 0 --end-to-end-repetitions 0 --check-images 1
[ -f $O/ncu_tconv3.ncu-rep ] && { ncu -i $O/ncu_tconv3.ncu-rep --page details > $O/ncu_tconv3_details.txt 2>&1; ncu -i $O/ncu_tconv3.ncu-rep --page source --csv --print-source sass > $O/ncu_tconv3_sass.csv 2>&1; }
pack_out
step short_k11_moved 60 $S/new/bench_short_k11 2973x4234x51 5771x256x96 1628x4707x37 10030x126x140
pack_out
