#!/usr/bin/env python3
"""A class of planted submissions for `make grade-class` (the GPU demonstration of the class grader):
the solutions, the skeletons, one student per plant of planted.py (the grader self-test's plants),
two near-copies of each other, and one student per lab of tests/grading/student_versions/ (written
from the handouts alone: honest work, which must pass the whole core of its lab), each with what its
report must show.

  planted_class.py CLASS_DIR [--quick]
                                  writes CLASS_DIR/<student>/NN_name/kernels.cu, CLASS_DIR/expected.json
                                  and CLASS_DIR/.rubric/rubric.json with its test lists (planted.write_rubric:
                                  the suite's with a short time limit for lab 01; --quick, one timed pair)

  make grade-class CLASS=DIR LABS=01,02,03,05,10 RUBRIC=DIR/.rubric/rubric.json
  tests/grading/check_class.py build/grade-class/<DIR's name> DIR/expected.json
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from cudalabs.grading.solution_file import handed_in, single_file
from cudalabs.paths import REPO

import planted
from disguises import alternative_tokens, one_macro, renamed

SIMILAR = "similar pair: copy_a, copy_b"
SIMILAR_05 = "similar pair: disguise_alt_05, disguise_macro_05"
SIMILAR_12 = "similar pair: copy_12, solution"


def write_class(class_dir: Path, quick: bool = False) -> dict[str, dict[str, str]]:
    """Writes the class; returns student -> {lab folder: what the report must say}."""
    if class_dir.exists():
        shutil.rmtree(class_dir)
    folders = sorted(p.name for p in (REPO / "solutions").iterdir() if p.is_dir())
    # The solutions one student a lab (the class grader spreads students over the GPUs), the skeletons
    # one student.
    expected: dict[str, dict[str, str]] = {f"solution_{f[:2]}": {f: "full marks"} for f in folders}
    expected["skeletons"] = {f: "not implemented yet" for f in folders}
    for folder in folders:
        for student, files in (
            (f"solution_{folder[:2]}", handed_in(REPO, folder)),
            ("skeletons", {"kernels.cu": (REPO / "labs" / folder / "kernels.cu").read_text()}),
        ):
            (class_dir / student / folder).mkdir(parents=True, exist_ok=True)
            for name, text in files.items():
                (class_dir / student / folder / name).write_text(text)
    for plant in planted.write_plants(class_dir):
        expected[plant.name] = {plant.folder: plant.expect}
    versions = REPO / "tests" / "grading" / "student_versions"
    for folder in sorted(p.name for p in versions.iterdir() if p.is_dir()):
        student = f"version_{folder[:2]}"  # one student a lab: the class grader spreads them over the GPUs
        shutil.copytree(versions / folder, class_dir / student / folder)
        expected[student] = {folder: "whole core"}
    # Copies in disguise (tests/grading/disguises.py), of honest work (a student version, which the
    # solution shares under half of) so that each pair is what the similarity check must find:
    # lab 01 renamed and re-spaced, lab 05 in alternative tokens and as one macro; and a verbatim copy
    # of lab 12's solution, which is a few #includes of solutions/ headers in the suite.
    own_01 = (versions / "01_naive_gemm" / "kernels.cu").read_text()
    own_05 = (versions / "05_register_tiling" / "kernels.cu").read_text()
    copies = (
        ("copy_a", "01_naive_gemm", own_01, SIMILAR),
        ("copy_b", "01_naive_gemm", renamed(own_01, {"acc": "sum"}).replace("  ", "   "), SIMILAR),
        ("disguise_alt_05", "05_register_tiling", alternative_tokens(own_05), SIMILAR_05),
        ("disguise_macro_05", "05_register_tiling", one_macro(own_05), SIMILAR_05),
        ("copy_12", "12_reduce_scan_histogram", single_file(REPO, "12_reduce_scan_histogram"), SIMILAR_12),
    )
    for student, folder, text, expect in copies:
        (class_dir / student / folder).mkdir(parents=True)
        (class_dir / student / folder / "kernels.cu").write_text(text)
        expected[student] = {folder: expect}
    (class_dir / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    # In a folder the class grader does not take for a student's.
    planted.write_rubric(class_dir / ".rubric", quick)
    return expected


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--quick"]):
        print("usage: planted_class.py CLASS_DIR [--quick]", file=sys.stderr)
        sys.exit(2)
    written = write_class(Path(sys.argv[1]), quick=sys.argv[2:] == ["--quick"])
    print(f"planted_class: {len(written)} submissions in {sys.argv[1]} (expected results in expected.json)")
