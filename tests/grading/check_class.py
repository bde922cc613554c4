#!/usr/bin/env python3
"""Checks a graded planted class (tests/grading/planted_class.py, then `make grade-class`) against what
each submission must show: the solutions full marks, the skeletons nothing, and every planted fault
caught, with its reason in the gradebook's Findings column.

  check_class.py OUT_DIR EXPECTED_JSON       exit 0 when every expectation holds; one line per check
"""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

FULL_MARKS_SHARE = 0.97  # the solutions' speed against themselves: a noisy pair may cost a few hundredths


def lab_of(report: dict, folder: str) -> dict | None:
    return next((lab for lab in report["labs"] if lab["folder"] == folder), None)


def check(out: Path, expected: dict[str, dict[str, str]]) -> list[str]:
    """The expectations that do not hold, one line each."""
    with open(out / "gradebook.csv") as file:
        book = {row["Student ID"]: row for row in csv.DictReader(file)}
    graded = {key.split()[1] for key in next(iter(book.values()), {}) if key.startswith("Lab ")}
    problems = []
    for student, labs in expected.items():
        labs = {folder: expect for folder, expect in labs.items() if folder[:2] in graded}
        row = book.get(student)
        report_path = out / "students" / student / "grade-report.json"
        if row is None or not report_path.is_file():
            problems.append(f"{student}: not in the gradebook, or no report ({row and row['Status']})")
            continue
        report = json.loads(report_path.read_text())
        for folder, expect in labs.items():
            lab = lab_of(report, folder)
            if lab is None:
                problems.append(f"{student} {folder}: not graded")
            elif expect == "full marks":
                if lab["points"] < FULL_MARKS_SHARE * lab["max_points"]:
                    problems.append(f"{student} {folder}: {lab['points']} / {lab['max_points']}, expected full marks")
            elif expect == "not implemented yet":
                states = {v["state"] for v in lab["variants"]}
                if lab["points"] != 0 or states != {"not implemented yet"}:
                    problems.append(f"{student} {folder}: {lab['points']} points, states {sorted(states)}")
            elif expect.lower() not in row["Findings"].lower():
                problems.append(f"{student} {folder}: '{expect}' not in the findings: {row['Findings']!r}")
            elif not expect.startswith("similar") and lab["points"] >= lab["max_points"]:
                problems.append(f"{student} {folder}: the fault was found but cost nothing ({lab['points']} points)")
    return problems


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: check_class.py OUT_DIR EXPECTED_JSON", file=sys.stderr)
        return 2
    out, expected = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
    problems = check(out, expected)
    for problem in problems:
        print(f"check_class: FAIL {problem}")
    with open(out / "gradebook.csv") as file:
        graded = {key.split()[1] for key in next(csv.DictReader(file), {}) if key.startswith("Lab ")}
    checked = sum(folder[:2] in graded for labs in expected.values() for folder in labs)
    print(f"check_class: {checked - len(problems)} of {checked} expectations hold "
          f"({len(expected)} submissions, labs {','.join(sorted(graded))} graded)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
