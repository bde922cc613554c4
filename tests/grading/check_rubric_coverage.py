#!/usr/bin/env python3
"""The rubric against the built grading tests (CPU: only --gtest_list_tests and --list are run).

Every grading test of every lab must be scored under exactly one rubric variant or be marked unscored;
every rubric variant must own at least one test, at least one memcheck test, and be a variant the lab's
driver lists. Usage: check_rubric_coverage.py BUILD_DIR
"""
from __future__ import annotations

import fnmatch
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))

from grading import gtest, submission  # noqa: E402
from grading.rubric import load_rubric  # noqa: E402


def matches_filter(name: str, gtest_filter: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in gtest_filter.split(":"))


def main() -> int:
    build = Path(sys.argv[1])
    rubric = load_rubric(REPO / "tests" / "grading" / "rubric.json")
    problems = []
    for lab in submission.suite_labs(REPO):
        lab_rubric = rubric.labs.get(lab.number)
        if lab_rubric is None:
            problems.append(f"lab {lab.number}: no rubric entry")
            continue
        binary = build / "tests" / f"lab{lab.number}_grading_solution"
        listing = subprocess.run([str(binary), "--gtest_list_tests"], capture_output=True, text=True, check=True)
        names = gtest.list_tests(listing.stdout)
        mpi_names = set()
        if lab_rubric.mpi_tests:  # a second program, run under mpirun by the grader (lab 10's MPI parts)
            mpi_binary = build / "tests" / lab_rubric.mpi_tests.binary
            if mpi_binary.exists():
                environment = {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
                mpi_listing = subprocess.run([str(mpi_binary), "--gtest_list_tests"], capture_output=True, text=True,
                                             check=True, env=environment)
                mpi_names = set(gtest.list_tests(mpi_listing.stdout))
                names += sorted(mpi_names)
            else:
                print(f"lab {lab.number}: {mpi_binary.name} not built (no MPI library): its variants are not checked")
        owned = {v.name: [] for v in lab_rubric.variants}
        for name in names:
            owners = [v.name for v in lab_rubric.variants if v.tests.search(name)]
            if lab_rubric.is_unscored(name):
                owners.append("(unscored)")
            if len(owners) != 1:
                problems.append(f"lab {lab.number}: test {name} is scored {len(owners)} times ({owners})")
            for owner in owners:
                owned.setdefault(owner, []).append(name)
        for variant in lab_rubric.variants:
            tests = owned[variant.name]
            if not tests:
                if not (lab_rubric.mpi_tests and not mpi_names):
                    problems.append(f"lab {lab.number}: rubric variant {variant.name} owns no test")
            elif set(tests) <= mpi_names:
                pass  # host code under mpirun: nothing for memcheck to check
            elif not any(matches_filter(t, lab_rubric.memcheck_filter) for t in tests):
                problems.append(f"lab {lab.number}: no test of {variant.name} runs under memcheck")
        listed = subprocess.run([str(build / "labs" / f"lab{lab.number}_solution"), "--list"], capture_output=True,
                                text=True)
        if listed.returncode == 0:  # the GEMM drivers list their variants; lab 00 has two fixed kernels
            driver_variants = {line.split("\t")[0] for line in listed.stdout.splitlines() if line.strip()}
            rubric_variants = {v.name for v in lab_rubric.variants}
            if driver_variants != rubric_variants:
                problems.append(f"lab {lab.number}: the driver lists {sorted(driver_variants)}, "
                                f"the rubric scores {sorted(rubric_variants)}")
        print(f"lab {lab.number}: {len(names)} tests, {len(lab_rubric.variants)} variants, "
              f"{lab_rubric.max_points:g} points")
    for problem in problems:
        print(f"FAIL: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
