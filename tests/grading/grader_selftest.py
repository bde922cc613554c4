#!/usr/bin/env python3
"""The grader graded (GPU): scripts/grade end to end on submissions whose outcome is known.

  grader_selftest.py WORK_DIR [--labs 01,05] [--quick] [--only solutions,skeleton,planted] [--plants NAME,...]

  solutions  the reference solutions, handed in as a student would: full marks (speed as the reference's)
  skeleton   the pristine labs/: 0, every variant worth points "not implemented yet", given code passing
  planted    tests/grading/planted.py: each plant of the labs chosen shows its expected outcome (--plants:
             only those named)

--quick grades with the suite's rubric but one timed pair of one round each (the scores' logic is the
same; the timings are noisier). Writes WORK_DIR/selftest.json and prints one line per check.
Exit codes: 0 passed, 1 failed, 77 skipped (no GPU; ctest reports it skipped with the reason).
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from cudalabs.grading.solution_file import handed_in
from cudalabs import paths
from cudalabs.paths import REPO

import planted

SKIP = 77
failures: list[str] = []
passes: list[str] = []


def check(condition: bool, message: str) -> None:
    (passes if condition else failures).append(message)
    print(("ok: " if condition else "FAIL: ") + message, flush=True)


def grade(work: Path, name: str, submission: Path, labs: str, rubric: Path) -> dict | None:
    out = work / name
    command = [
        sys.executable,
        str(REPO / "scripts" / "grade"),
        "--submission",
        str(submission),
        "--out",
        str(out),
        "--build",
        str(work / "grade-build"),
        "--labs",
        labs,
        "--rubric",
        str(rubric),
    ]
    print("$", " ".join(command), flush=True)
    done = subprocess.run(command)
    if done.returncode != 0:
        check(False, f"{name}: scripts/grade exited with {done.returncode}")
        return None
    return json.loads((out / "grade-report.json").read_text())


def solutions(work: Path, labs: list[str], rubric: Path) -> None:
    folder = work / "solutions-handed-in"
    for lab_folder in sorted(p.name for p in (REPO / "solutions").iterdir() if p.name[:2] in labs):
        (folder / lab_folder).mkdir(parents=True, exist_ok=True)
        for name, text in handed_in(REPO, lab_folder).items():
            (folder / lab_folder / name).write_text(text)
    report = grade(work, "solutions", folder, ",".join(labs), rubric)
    if report is None:
        return
    for lab in report["labs"]:
        check(lab["fatal"] is None, f"solution lab {lab['lab']}: no fatal ({lab['fatal']}: {lab['reason']})")
        for variant in lab["variants"]:
            if variant["state"] == "not run here":
                continue
            check(
                variant["state"] == "passed",
                f"solution lab {lab['lab']} {variant['name']}: passed ({variant['state']}: {variant['note']})",
            )
            check(
                variant["correctness"] == variant["correctness_max"],
                f"solution lab {lab['lab']} {variant['name']}: full correctness",
            )
            if variant["performance_max"] > 0:
                fraction = (variant["rate"] or {}).get("fraction_of_solution")
                check(
                    fraction is not None and fraction > 0.8,
                    f"solution lab {lab['lab']} {variant['name']}: timed against itself at {fraction}",
                )
        for name, result in lab.get("technique", {}).items():
            check(
                result["passed"],
                f"solution lab {lab['lab']} {name}: technique rules hold {result['failures']} "
                f"(measured {result['measured']})",
            )
        check(
            not lab.get("test_list_problems"),
            f"solution lab {lab['lab']}: test list complete {lab.get('test_list_problems')}",
        )


def skeleton(work: Path, labs: list[str], rubric: Path) -> None:
    report = grade(work, "skeleton", REPO / "labs", ",".join(labs), rubric)
    if report is None:
        return
    check(report["points"] == 0, f"skeleton: 0 points ({report['points']})")
    for lab in report["labs"]:
        problem = planted.expectation_problem(lab, "not implemented yet")
        check(problem is None, f"skeleton lab {lab['lab']}: {problem or 'not implemented yet'}")


def planted_class(work: Path, rubric: Path, labs: list[str] | None = None, names: set[str] | None = None) -> None:
    folder = work / "planted"
    for plant in planted.write_plants(folder):
        if (labs is not None and plant.folder[:2] not in labs) or (names and plant.name not in names):
            continue
        report = grade(work, f"planted-{plant.name}", folder / plant.name, plant.folder[:2], rubric)
        if report is None:
            continue
        problem = planted.expectation_problem(report["labs"][0], plant.expect)
        check(problem is None, f"plant {plant.name}: {problem or plant.expect}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("work")
    parser.add_argument("--labs", default="01,05")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default="solutions,skeleton,planted")
    parser.add_argument("--plants", default="", help="grade only these plants (names of planted.py)")
    args = parser.parse_args()
    names = {name for name in args.plants.split(",") if name}
    unknown = names - {plant.name for plant in planted.plants()}
    if unknown:
        print(f"grader_selftest: --plants: no plant named {sorted(unknown)[0]!r}")
        return 2
    if shutil.which("nvidia-smi") is None or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode != 0:
        print("grader_selftest: no CUDA GPU available: skipped")
        return SKIP
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    rubric = planted.write_rubric(work, quick=True) if args.quick else paths.RUBRIC
    labs = [lab.zfill(2) for lab in args.labs.split(",") if lab]
    steps = set(args.only.split(","))
    if "solutions" in steps:
        solutions(work, labs, rubric)
    if "skeleton" in steps:
        skeleton(work, labs, rubric)
    if "planted" in steps:
        planted_class(work, rubric, labs, names)
    elif any(step.startswith("planted-lab") for step in steps):
        planted_class(
            work, rubric, [step[len("planted-lab") :] for step in steps if step.startswith("planted-lab")], names
        )
    (work / "selftest.json").write_text(json.dumps({"passed": passes, "failed": failures}, indent=1))
    print(f"grader_selftest: {len(passes)} checks passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
