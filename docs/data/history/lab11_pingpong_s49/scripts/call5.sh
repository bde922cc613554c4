#!/usr/bin/env bash
# Issue 53, session 50, call 5: the solution's epilogue with C's rows off 16 bytes stored in windows
# shifted to 16-byte boundaries, a float4 a lane (staged_store.cuh's store_shifted_chunks, `new`,
# best_plan.h's charge for C off 16 bytes at 0), against main at 4fa318a (`base`): bench_cstore built
# against each (pack/bench_cstore_base, pack/bench_cstore_new; coop256 and coop128 are the
# solution's) at shapes_call3.txt, base and new in turn; new's warp-specialized and best grading
# tests and memcheck of their misaligned, padded and odd cases; both random-shapes seeds, base and
# new in turn; Nsight Compute's store counts of new's kernels at 6046x6821x57. pack/bin5.tar.xz
# holds base/ and new/ (labs/gemm_random_shapes; new also tests/lab11_grading_solution) and lib/.
# Everything lands in a scratch folder, packed at the end into $OUT/NAME.tar.gz (a call brings
# back at most 8 files); the steps' lines also in $OUT/NAME_steps.txt. Run from the repository
# root: bash pack/call5.sh [NAME] (call5 unless named), carrying pack/. Call 6 ran it again as
# `call6` with session 50's second form of the stores (the windows on 256-wide tiles only, each
# step's reads first) and best_plan.h as on main.
set -u
call=${1:-call5}
cd "$(dirname "$0")/.."
S=$(mktemp -d)
tar -xJf pack/bin5.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
O=$(mktemp -d)
packed() { cp $O/${call}_steps.txt $OUT/ 2>/dev/null; tar -czf $OUT/$call.tar.gz -C $O .; }
trap packed EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-s)) s $(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY' $O/$name.txt | tr '\n' ' ')" | tee -a $O/${call}_steps.txt; }
step cstore_base 60 pack/bench_cstore_base $(cat pack/shapes_call3.txt)
step cstore_new 60 pack/bench_cstore_new $(cat pack/shapes_call3.txt)
step grading11 70 $S/new/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.warp*:Grading.best*'
step memcheck11 70 compute-sanitizer --tool memcheck $S/new/tests/lab11_grading_solution --gtest_brief=1 \
  --gtest_filter='Grading.warp_specialized*.*misaligned*:Grading.warp_specialized*.ld*:Grading.warp_specialized*.odd*:Grading.best.*odd*'
for seed in 4998064687210808757 8444672377437012093; do
  for side in base new; do
    s=$SECONDS; r=rs_${side}_${seed}
    timeout 30 scripts/gemm-random-shapes --labs 11 --seed $seed $S/$side $S/$r > $O/$r.log 2>&1
    echo "$r rc=$? $((SECONDS-s)) s" | tee -a $O/${call}_steps.txt
    cp $S/$r/gemm_random_shapes_nvidia-h*.txt $O/${r}_summary.txt 2>/dev/null
    cp $S/$r/gemm_random_shapes_times.json $O/${r}_times.json 2>/dev/null
  done
done
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum
step ncu_new_6046x6821x57 60 ncu --kernel-name-base demangled -k 'regex:warp_specialized_kernel' -c 3 --metrics $m \
  pack/bench_cstore_new 6046x6821x57
