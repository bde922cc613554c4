#!/usr/bin/env bash
# Runs mpirun (or any command) with a temporary folder of its own. Open MPI keeps its session
# directory under $TMPDIR, and two mpirun started at the same moment (ctest -j, several ctest runs
# at once, two students on one machine) race on the shared one: "ORTE_ERROR_LOG ... session_dir.c"
# and a failed test. Every MPI test runs through this script, so none can race another.
#   mpirun_isolated.sh MPIRUN ARGS...
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: mpirun_isolated.sh MPIRUN ARGS..." >&2; exit 2; }
private=$(mktemp -d "${TMPDIR:-/tmp}/cudalabs-mpi.XXXXXX") || exit 1
trap 'rm -rf "$private"' EXIT
# Open MPI 4 (orte) and 5 (prte) each have a knob of their own beside TMPDIR.
export TMPDIR=$private OMPI_MCA_orte_tmpdir_base=$private PRTE_MCA_prte_tmpdir_base=$private
"$@"
