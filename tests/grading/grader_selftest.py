#!/usr/bin/env python3
"""The grader graded (GPU): runs scripts/grade end to end on three submissions and checks the reports.

  skeleton   the pristine labs/ grades to 0, every variant "not implemented yet"
  solutions  solutions/ grades to full marks, correctness and performance
  planted    one fault planted per lab (planted.py): a compile error, a kernel that ignores the last
             partial K tile (loses exactly those tests), an out-of-bounds write, a hang and a crash;
             each lab loses what it should, with the reason, and grading goes on

Usage: grader_selftest.py {skeleton,solutions,planted} WORK_DIR
Exit codes: 0 passed, 1 failed, 77 skipped (no GPU; ctest reports it skipped with the reason).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from planted import REPO, make_planted_submission

sys.path.insert(0, str(REPO / "scripts"))
from grading.solution_file import handed_in  # noqa: E402

SKIP = 77
failures: list[str] = []


def check(condition: bool, message: str) -> None:
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}")


def grade(work: Path, name: str, submission: Path, *extra: str) -> dict:
    out = work / name
    command = [sys.executable, str(REPO / "scripts" / "grade"), "--submission", str(submission), "--out", str(out),
               "--build", str(work / "grade-build"), *extra]
    print("$", " ".join(command), flush=True)
    result = subprocess.run(command)
    if result.returncode != 0:
        print(f"FAIL: scripts/grade exited with {result.returncode}")
        sys.exit(1)
    for report in ("grade-report.md", "grade-report.xml"):
        check((out / report).stat().st_size > 0, f"{report} is empty")
    print((out / "grade-report.md").read_text())
    return json.loads((out / "grade-report.json").read_text())


def scored_tests(variant: dict) -> int:
    return variant["tests_total"]


def skeleton(work: Path) -> None:
    report = grade(work, "skeleton", REPO / "labs")
    check(report["points"] == 0, f"the skeletons scored {report['points']}, expected 0")
    for lab in report["labs"]:
        check(lab["fatal"] is None, f"lab {lab['lab']}: {lab['fatal']}: {lab['reason']}")
        for variant in lab["variants"]:
            check(variant["state"] == "not implemented yet",
                  f"lab {lab['lab']} {variant['name']}: state '{variant['state']}', expected 'not implemented yet'")
            check(scored_tests(variant) > 0, f"lab {lab['lab']} {variant['name']}: no tests ran")


def solutions(work: Path) -> None:
    # The solutions as students hand them in: one kernels.cu per lab (the shared warp tile written in),
    # and lab 10's MPI parts.
    submitted = work / "solutions-submission"
    for folder in sorted(p.name for p in (REPO / "solutions").iterdir() if p.is_dir()):
        (submitted / folder).mkdir(parents=True, exist_ok=True)
        for name, text in handed_in(REPO, folder).items():
            (submitted / folder / name).write_text(text)
    report = grade(work, "solutions", submitted)
    check(report["points"] == report["max_points"], f"the solutions scored {report['points']} of {report['max_points']}")
    for lab in report["labs"]:
        check(lab["fatal"] is None, f"lab {lab['lab']}: {lab['fatal']}: {lab['reason']}")
        check(lab["memcheck"].startswith("clean") or lab["memcheck"].startswith("not run: compute-sanitizer"),
              f"lab {lab['lab']}: memcheck {lab['memcheck']}")
        for variant in lab["variants"]:
            where = f"lab {lab['lab']} {variant['name']}"
            check(variant["state"] == "passed", f"{where}: {variant['state']}")
            if variant["performance_max"] > 0:  # lab 10's MPI parts have no speed points, nor a benchmark
                check(variant["rate"] is not None and variant["rate"]["fraction_of_solution"] is not None,
                      f"{where}: no rate next to the solution's")


def planted(work: Path) -> None:
    plants = make_planted_submission(work / "planted-submission")
    labs = ",".join(p.folder[:2] for p in plants)
    # A short time limit, so that the planted hang costs two minutes rather than the rubric's seven.
    report = grade(work, "planted", work / "planted-submission", "--labs", labs, "--time-limit", "120")
    by_folder = {lab["folder"]: lab for lab in report["labs"]}
    for plant in plants:
        lab = by_folder[plant.folder]
        if plant.expect_fatal:
            check(lab["fatal"] == plant.expect_fatal,
                  f"{plant.folder}: fatal '{lab['fatal']}' ({lab['reason']}), expected '{plant.expect_fatal}'")
            check(lab["points"] == 0, f"{plant.folder}: {lab['points']} points, expected 0")
            check(bool(lab["reason"]), f"{plant.folder}: no reason given")
            continue
        check(lab["fatal"] is None, f"{plant.folder}: fatal {lab['fatal']}: {lab['reason']}")
        for variant in lab["variants"]:
            failing = {f["case"] for f in variant["failing"]}
            expected = plant.expect_failing.get(variant["name"], set())
            check(failing == expected, f"{plant.folder} {variant['name']}: failing {sorted(failing)}, "
                                       f"expected exactly {sorted(expected)}")
            passed_share = (variant["tests_total"] - len(expected)) / variant["tests_total"]
            check(abs(variant["correctness"] - round(variant["correctness_max"] * passed_share, 2)) < 1e-9,
                  f"{plant.folder} {variant['name']}: correctness {variant['correctness']}, expected "
                  f"{variant['correctness_max']} x {passed_share:.3f}")
            check(variant["performance"] == 0, f"{plant.folder} {variant['name']}: performance points for a failing variant")


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("skeleton", "solutions", "planted"):
        print(__doc__)
        return 2
    if subprocess.run([str(REPO / "scripts" / "gpu-present")]).returncode != 0:
        print("SKIPPED: no CUDA GPU available: the grader runs kernels")
        return SKIP
    work = Path(sys.argv[2]).resolve()
    work.mkdir(parents=True, exist_ok=True)
    {"skeleton": skeleton, "solutions": solutions, "planted": planted}[sys.argv[1]](work)
    print(f"grader self-test {sys.argv[1]}: {'FAILED' if failures else 'passed'} ({len(failures)} problem(s))")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
