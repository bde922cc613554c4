#!/bin/bash
# Session 22, call 4 (issue 54): the RGB layer with padded rows, its block index folded, 168 registers (the filter's fragments in shared memory,
# two strips a warp, 4 warps a block, bands by the wave model) beside the old one and its knobs; the
# lab's DCGAN tests, compute-sanitizer on the RGB layer; lab 10's threaded program at each precision;
# then the generator against PyTorch (scripts/lab11-dcgan-bench) when the new kernel won.
set -u
T0=$(date +%s); BUDGET=575
X=$PWD/.bins; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib:${LD_LIBRARY_PATH:-}
R=$X/out; mkdir -p $R
step() { local name=$1 limit=$2; shift 2; local left=$(( BUDGET - ($(date +%s) - T0) ))
  (( left < limit )) && limit=$left; (( limit < 5 )) && { echo "$name skipped (no time)" | tee -a $R/log.txt; return; }
  local t0=$(date +%s); timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
W=/path/the/binaries/were/built/at/labs/09_dcgan/fashion_mnist.cldw
[ -e $W ] || { mkdir -p $(dirname $W) && ln -s $PWD/labs/09_dcgan/fashion_mnist.cldw $W; }
step rgb_bench 120 $X/p/exp/rgb_bench
step tests_solution 150 $X/p/tests/lab11_dcgan_solution
step tests_student_rgb 60 $X/p/tests/lab11_dcgan_student --gtest_filter='*RgbLayer*'
step memcheck_rgb 150 compute-sanitizer --tool memcheck $X/p/tests/lab11_dcgan_solution --gtest_filter='*RgbLayer*'
step racecheck_rgb 100 compute-sanitizer --tool racecheck $X/p/tests/lab11_dcgan_solution --gtest_filter='*RgbLayer*layer4_b3*:*RgbLayer*bands*:*RgbLayer*c96*'
step workers_precisions 120 tests/cli/workers_precisions.sh $X/p/labs/dcgan_multi_gpu
step ncu_rgb 90 ncu -k regex:rgb_superpixel --section SpeedOfLight --section InstructionStats --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --metrics smsp__inst_executed.sum,smsp__inst_executed_pipe_tensor.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_uniform.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum $X/p/exp/rgb_bench profile
old=$(awk '/^time bf16 old/ {print $(NF-5)}' $R/rgb_bench.txt); new=$(awk '/^time bf16 padded, folded index/ {print $(NF-5)}' $R/rgb_bench.txt)
echo "bf16 old $old new $new" >> $R/log.txt
if [ -n "$old" ] && [ -n "$new" ] && awk "BEGIN{exit !($new < $old)}"; then
  step lab00 40 $X/p/labs/lab00_solution --results-dir $R/lab00
  step lab11_ceiling 30 $X/p/labs/lab11_ceiling
  step bench 300 scripts/lab11-dcgan-bench $X/p $R/bench
fi
cuobjdump -sass $X/p/exp/rgb_bench 2>/dev/null | xz -9 > $OUT/sass.txt.xz
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/out.txz -C $R .
