#!/usr/bin/env python3
"""The rubric against the built grading tests (CPU: only --gtest_list_tests and --list are run).

The referee of a lab is its grading test file linked with the grader's proxy, so the tests it runs
are the tests of the lab's grading programs (tests/labNN_grading_solution and any
tests/labNN_*_grading_solution) when the rubric names the solution's variants. Checked here: the
rubric's test list of each lab is exactly those tests; every test is scored under exactly one variant
or marked unscored; every variant owns a test, and a test under memcheck when the lab names a
sanitizer; the driver lists no variant the rubric does not score, and every one of its main list.
Usage: check_rubric_coverage.py BUILD_DIR [NN ...]   (every lab of the suite, or the labs named)
"""
from __future__ import annotations

import fnmatch
import subprocess
import sys
from pathlib import Path

from cudalabs.grading import gtest, submission, test_lists
from cudalabs.grading.rubric import load_rubric
from cudalabs import paths
from cudalabs.paths import REPO


def matches_filter(name: str, gtest_filter: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in gtest_filter.split(":"))


def grading_tests(build: Path, number: str) -> list[str]:
    names = []
    for binary in [
        build / "tests" / f"lab{number}_grading_solution",
        *sorted((build / "tests").glob(f"lab{number}_*_grading_solution")),
    ]:
        listing = subprocess.run([str(binary), "--gtest_list_tests"], capture_output=True, text=True, check=True)
        names += gtest.list_tests(listing.stdout)
    return names


def lab_problems(build: Path, lab, lab_rubric) -> list[str]:
    names = grading_tests(build, lab.number)
    problems = []
    if sorted(names) != sorted(lab_rubric.tests):
        extra, missing = sorted(set(names) - set(lab_rubric.tests)), sorted(set(lab_rubric.tests) - set(names))
        problems.append(
            f"the test list {test_lists.list_path(lab.number).relative_to(REPO)} is stale (not listed: {extra[:3]}, "
            f"no longer a test: {missing[:3]}); rewrite it with python -m cudalabs.grading.test_lists"
        )
    owned: dict[str, list[str]] = {v.name: [] for v in lab_rubric.variants}
    for name in names:
        owners = [v.name for v in lab_rubric.variants if v.tests.search(name)]
        owners += ["(unscored)"] if lab_rubric.is_unscored(name) else []
        if len(owners) != 1:
            problems.append(f"test {name} is scored {len(owners)} times ({owners})")
        for owner in owners:
            owned.setdefault(owner, []).append(name)
    for variant in lab_rubric.variants:
        tests = owned[variant.name]
        if not tests:
            problems.append(f"rubric variant {variant.name} owns no test")
        elif lab_rubric.sanitizers and not any(matches_filter(t, lab_rubric.memcheck_filter) for t in tests):
            problems.append(f"no test of {variant.name} runs under the sanitizers")
    listed = subprocess.run(
        [str(build / "labs" / f"lab{lab.number}_solution"), "--list"], capture_output=True, text=True
    )
    if listed.returncode == 0:  # the drivers list their variants; lab 00 has two fixed kernels
        driver = {line.split("\t")[0] for line in listed.stdout.splitlines() if line.strip()}
        unscored = driver - {v.name for v in lab_rubric.variants}
        unlisted = {v.name for v in lab_rubric.variants if v.listed_in == "variants"} - driver
        if unscored or unlisted:
            problems.append(
                f"the driver lists {sorted(unscored)} the rubric does not score, and not "
                f"{sorted(unlisted)} that it scores"
            )
    print(
        f"lab {lab.number}: {len(names)} tests, {len(lab_rubric.variants)} variants, "
        f"{lab_rubric.max_points:g} points"
    )
    return [f"lab {lab.number}: {problem}" for problem in problems]


def main() -> int:
    build, numbers = Path(sys.argv[1]), sys.argv[2:]
    labs = submission.suite_labs(REPO)
    unknown = sorted(set(numbers) - {lab.number for lab in labs})
    if unknown:
        print(f"check_rubric_coverage: lab {unknown[0]} is not a lab of {REPO}", file=sys.stderr)
        return 2
    rubric = load_rubric(paths.RUBRIC)
    problems = []
    for lab in (lab for lab in labs if not numbers or lab.number in numbers):
        if lab.number not in rubric.labs:
            problems.append(f"lab {lab.number}: no rubric entry")
        else:
            problems += lab_problems(build, lab, rubric.labs[lab.number])
    for problem in problems:
        print(f"FAIL: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
