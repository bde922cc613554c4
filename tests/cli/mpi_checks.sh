#!/usr/bin/env bash
# Lab 10's MPI program on the GPUs present (ctest: cli.lab10_mpi_gpu). Needs mpirun and a GPU.
#   - one rank per GPU plus one: the extra rank fails, and rank 0 reports it in one line (no hang);
#   - one rank: the images pass the CPU check;
#   - two GPUs or more: 2 ranks give exactly the images of lab10_solution on 2 GPUs (threads: the
#     same two shares), for 7 images (not divisible by 2), by each way of gathering: rank 1 writing
#     into rank 0's shared output (one node, the default), sending by MPI_Igatherv (--gather
#     collective), and sending from another (simulated) node; each program also checks its output
#     against one GPU generating the same shares in turn. (One GPU given all 7 in one batch may plan
#     lab 07's GEMM otherwise and add in another order: not a bit-for-bit reference.)
#   - on any GPU machine, at each precision (fp32: lab 09's kernels; tf32 and bf16: lab 11's layers):
#     3 ranks on GPU 0 (--devices 0,0,0, shares of 3, 2 and 2) pass the precision's CPU check and
#     write the images of the threaded program's 3 workers on GPU 0, bit for bit.
#   mpi_checks.sh DCGAN_MPI LAB10_SOLUTION DCGAN_MULTI_GPU
set -uo pipefail
mpi=$1 threads=$2 threads_all_precisions=$3
gpus=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU [0-9]")
if [ "$gpus" -eq 0 ]; then echo "SKIPPED: no CUDA GPU available"; exit 0; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Open MPI's session directory in a folder of this run's own: no race with another mpirun.
mkdir -p "$work/tmp"
export TMPDIR=$work/tmp OMPI_MCA_orte_tmpdir_base=$work/tmp PRTE_MCA_prte_tmpdir_base=$work/tmp
run_mpi() { timeout 300 mpirun -q --oversubscribe --bind-to none "$@"; }
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

run_mpi -np $((gpus + 1)) "$mpi" --num 3 --verify-only > "$work/extra.out" 2> "$work/extra.err"
status=$?
lines=$(wc -l < "$work/extra.err")
if [ $status -eq 0 ] || [ $status -eq 124 ] || [ "$lines" -ne 1 ] ||
   ! grep -q "^dcgan_mpi: rank $gpus (node 0, GPU $gpus): no GPU for local rank $gpus: this node has $gpus" "$work/extra.err"; then
  fail "$((gpus + 1)) ranks on $gpus GPU(s): exit $status, stderr: $(cat "$work/extra.err")"
fi

run_mpi -np 1 "$mpi" --num 5 --verify-only > "$work/one.out" 2>&1 || fail "1 rank: $(tail -3 "$work/one.out")"
grep -q "PASS" "$work/one.out" || fail "1 rank: no PASS in $(cat "$work/one.out")"

if [ "$gpus" -ge 2 ]; then
  common=(--weights builtin --num 7 --seed 3 --verify-only)
  run_mpi -np 2 "$mpi" "${common[@]}" --raw "$work/mpi.cldi" > "$work/mpi.out" 2>&1 || fail "2 ranks: $(tail -3 "$work/mpi.out")"
  grep -q "identical to rank 0's GPU alone, share by share .*PASS" "$work/mpi.out" || fail "2 ranks: $(cat "$work/mpi.out")"
  "$threads" "${common[@]}" --gpus 2 --raw "$work/two_gpus.cldi" > "$work/two_gpus.out" 2>&1 || fail "2 GPUs: $(tail -3 "$work/two_gpus.out")"
  grep -q "identical to one GPU's output, share by share .*PASS" "$work/two_gpus.out" || fail "2 GPUs: $(cat "$work/two_gpus.out")"
  cmp -s "$work/mpi.cldi" "$work/two_gpus.cldi" || fail "2 MPI ranks and 2 GPU threads wrote different images"
  for way in "--gather collective" "--simulate-nodes 2"; do
    name=${way// /_}
    # shellcheck disable=SC2086  # $way is a flag and its value
    run_mpi -np 2 "$mpi" "${common[@]}" $way --raw "$work/mpi$name.cldi" > "$work/mpi$name.out" 2>&1 ||
      fail "2 ranks, $way: $(tail -3 "$work/mpi$name.out")"
    grep -q "identical to rank 0's GPU alone, share by share .*PASS" "$work/mpi$name.out" || fail "2 ranks, $way: $(cat "$work/mpi$name.out")"
    cmp -s "$work/mpi$name.cldi" "$work/two_gpus.cldi" || fail "2 MPI ranks ($way) and 2 GPU threads wrote different images"
  done
  echo "2 ranks (shared output, collective gather, two simulated nodes) and 2 GPU threads: identical images, each as one GPU's of the same shares (7 images)"
fi
for precision in fp32 tf32 bf16; do
  common=(--weights builtin --num 7 --seed 11 --devices 0,0,0 --precision "$precision" --verify-only
          --check-images 7)
  run_mpi -np 3 "$mpi" "${common[@]}" --raw "$work/mpi_$precision.cldi" > "$work/mpi_$precision.out" 2>&1 ||
    fail "3 ranks on GPU 0, $precision: $(tail -3 "$work/mpi_$precision.out")"
  grep -q "identical to rank 0's GPU alone, share by share .*PASS" "$work/mpi_$precision.out" &&
    ! grep -q "FAIL" "$work/mpi_$precision.out" || fail "3 ranks on GPU 0, $precision: $(cat "$work/mpi_$precision.out")"
  "$threads_all_precisions" "${common[@]}" --raw "$work/threads_$precision.cldi" > "$work/threads_$precision.out" 2>&1 ||
    fail "3 threads on GPU 0, $precision: $(tail -3 "$work/threads_$precision.out")"
  cmp -s "$work/mpi_$precision.cldi" "$work/threads_$precision.cldi" ||
    fail "$precision: 3 MPI ranks and 3 GPU threads on GPU 0 wrote different images"
done
echo "fp32, tf32, bf16: 3 ranks on GPU 0 pass the CPU check and write the 3 threads' images (7 images)"
echo "mpi_checks: $failures failure(s) on $gpus GPU(s)"
[ $failures -eq 0 ]
