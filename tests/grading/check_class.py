#!/usr/bin/env python3
"""Checks a graded planted class (tests/grading/planted_class.py, then `make grade-class`) against what
each submission must show (planted.expectation_problem, as the grader self-test checks one report),
and the similar pair in the gradebook's Findings column.

  check_class.py OUT_DIR EXPECTED_JSON       exit 0 when every expectation holds; one line per check
"""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import planted


def check(out: Path, expected: dict[str, dict[str, str]], graded: set[str]) -> list[str]:
    """The expectations that do not hold, one line each."""
    with open(out / "gradebook.csv") as file:
        book = {row["Student ID"]: row for row in csv.DictReader(file)}
    problems = []
    for student, labs in expected.items():
        labs = {folder: expect for folder, expect in labs.items() if folder[:2] in graded}
        row = book.get(student)
        report_path = out / "students" / student / "grade-report.json"
        if labs and (row is None or not report_path.is_file()):
            problems.append(f"{student}: not in the gradebook, or no report ({row and row['Status']})")
            continue
        report = json.loads(report_path.read_text()) if labs else {"labs": []}
        for folder, expect in labs.items():
            lab = next((lab for lab in report["labs"] if lab["folder"] == folder), None)
            if lab is None:
                problems.append(f"{student} {folder}: not graded")
            elif expect.startswith("similar"):
                if expect.lower() not in row["Findings"].lower():
                    problems.append(f"{student} {folder}: '{expect}' not in the findings: {row['Findings']!r}")
            elif problem := planted.expectation_problem(lab, expect):
                problems.append(f"{student} {folder}: {problem}")
    return problems


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: check_class.py OUT_DIR EXPECTED_JSON", file=sys.stderr)
        return 2
    out, expected = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
    with open(out / "gradebook.csv") as file:
        graded = {key.split()[1] for key in next(csv.DictReader(file), {}) if key.startswith("Lab ")}
    problems = check(out, expected, graded)
    for problem in problems:
        print(f"check_class: FAIL {problem}")
    checked = sum(folder[:2] in graded for labs in expected.values() for folder in labs)
    print(
        f"check_class: {checked - len(problems)} of {checked} expectations hold "
        f"({len(expected)} submissions, labs {','.join(sorted(graded))} graded)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
