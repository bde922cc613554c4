#!/usr/bin/env bash
# The MPI tests (ctest -L mpi, CPU ones) several times at once, as a newcomer's `make test -j` and a
# class on one machine start them: every run must pass (tests/cli/mpirun_isolated.sh keeps each
# mpirun's session directory apart). CI runs it; scripts/arch-check runs it 20 times on a GPU node.
#   mpi_parallel.sh BUILD_DIR [RUNS (default 5)] [CTEST_JOBS (default 6)]
set -uo pipefail
build=${1:?usage: mpi_parallel.sh BUILD_DIR [RUNS] [CTEST_JOBS]}
runs=${2:-5}
jobs=${3:-6}
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "mpi_parallel: RUNS '$runs' is not a positive integer" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "mpi_parallel: CTEST_JOBS '$jobs' is not a positive integer" >&2; exit 2; }
if ! ctest --test-dir "$build" -N -L mpi -LE gpu | grep -q "Total Tests: [1-9]"; then
  echo "mpi_parallel: SKIPPED: no MPI tests in $build (MPI not found when it was configured)"
  exit 0
fi
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=()
for run in $(seq 1 "$runs"); do
  ctest --test-dir "$build" -L mpi -LE gpu -j "$jobs" --output-on-failure > "$logs/run$run.log" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    failed=$((failed + 1))
    echo "mpi_parallel: run $((i + 1)) of $runs FAILED:"
    grep -E "Failed|\*\*\*|ORTE_ERROR|error" "$logs/run$((i + 1)).log" | head -20
  fi
done
tests=$(grep -oE "[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+" "$logs/run1.log" | head -1)
echo "mpi_parallel: $((runs - failed)) of $runs simultaneous runs of ctest -L mpi -j $jobs passed (each: ${tests:-?})"
[ "$failed" -eq 0 ]
