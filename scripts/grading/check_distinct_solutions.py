#!/usr/bin/env python3
"""The rubric's distinct rules against the reference solutions: each variant profiled as the grader
profiles a student's (scripts/grading/lab_grader.py), then the variants that repeat another listed.
Run it on a GPU machine after changing a rule: a reference solution must repeat nothing.

  scripts/grading/check_distinct_solutions.py BUILD_DIR NN [NN ...]     e.g. build 03 06 07
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from grading import distinct  # noqa: E402
from grading.rubric import load_rubric  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    build, labs = Path(sys.argv[1]), sys.argv[2:]
    rubric = load_rubric(REPO / "tests" / "grading" / "rubric.json")
    failures = 0
    for lab in labs:
        rule = rubric.labs[lab].distinct if lab in rubric.labs else None
        if rule is None:
            print(f"lab {lab}: no distinct rule in the rubric")
            continue
        driver = build / "labs" / f"lab{lab}_solution"
        listing = subprocess.run([str(driver), "--list"], capture_output=True, text=True, check=True).stdout
        signatures = {}
        for variant in (line.split()[0] for line in listing.splitlines() if line.strip()):
            output = subprocess.run(distinct.ncu_command("ncu", str(driver), lab, variant, rule),
                                    capture_output=True, text=True).stdout
            measured = distinct.read_ncu_csv(output)
            if measured is None:
                print(f"lab {lab} {variant}: no profile")
                failures += 1
                continue
            signatures[variant] = {m: measured[m] for m in rule.metrics}
            print(f"lab {lab} {variant}: {distinct.describe(signatures[variant])}")
        repeats = distinct.repeated(signatures, rule)
        print(f"lab {lab}: " + ("every variant distinct" if not repeats else f"REPEATED {repeats}"))
        failures += len(repeats)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
