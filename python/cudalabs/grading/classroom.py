"""A class of submissions: who the students are (a roster or the folders of a class directory), where
each one's labs are, and whether a student's report is still current (resumable class grading).
"""
from __future__ import annotations

import csv
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from .submission import Lab, student_files

_ID = re.compile(r"[\w.@+-]+")
META = "grade-meta.json"


class ClassError(ValueError):
    """A roster or class folder that cannot be graded; the message is one line naming the problem."""


@dataclass(frozen=True)
class Student:
    id: str
    folder: Path  # the folder laid out like labs/ (NN_name/kernels.cu), or where it should have been


def labs_folder(folder: Path) -> Path:
    """Where a student's labs are: the folder itself when it holds NN_name/ folders, else its labs/
    (a clone of the whole suite), else the folder itself (graded as missing)."""

    def has_labs(path: Path) -> bool:
        return path.is_dir() and any(re.fullmatch(r"\d\d_\w+", p.name) and p.is_dir() for p in path.iterdir())

    if has_labs(folder):
        return folder
    if has_labs(folder / "labs"):
        return folder / "labs"
    return folder


def discover(class_dir: Path) -> list[Student]:
    """Every sub-folder of the class folder is a student, named by the folder."""
    if not class_dir.is_dir():
        raise ClassError(f"CLASS: '{class_dir}' is not a folder")
    students = [
        Student(path.name, labs_folder(path))
        for path in sorted(class_dir.iterdir())
        if path.is_dir() and not path.name.startswith(".")
    ]
    for student in students:
        if not _ID.fullmatch(student.id):
            raise ClassError(f"CLASS: folder '{student.id}' is not usable as a student id (letters, digits, . _ - @ +)")
    if not students:
        raise ClassError(f"CLASS: '{class_dir}' holds no student folder")
    return students


def read_roster(path: Path, class_dir: Path | None) -> list[Student]:
    """A CSV with a header naming a student column ('student', 'student_id' or 'id') and a folder
    column ('folder' or 'path'); relative folders are read from the class folder, else from the
    roster's own folder."""
    try:
        text = path.read_text()
    except OSError as error:
        raise ClassError(f"ROSTER: '{path}' cannot be read ({error.strerror})") from None
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        raise ClassError(f"ROSTER: '{path}' is empty")
    header = [cell.strip().lower() for cell in rows[0]]
    id_column = next((header.index(n) for n in ("student", "student_id", "id") if n in header), None)
    folder_column = next((header.index(n) for n in ("folder", "path") if n in header), None)
    if id_column is None or folder_column is None:
        raise ClassError(
            f"ROSTER: '{path}' line 1: expected a header with 'student' and 'folder' columns, " f"found {rows[0]}"
        )
    base = class_dir or path.parent
    students, seen = [], set()
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(id_column, folder_column):
            raise ClassError(f"ROSTER: '{path}' line {line}: expected {len(header)} columns, found {len(row)}")
        student, folder = row[id_column].strip(), row[folder_column].strip()
        if not _ID.fullmatch(student):
            raise ClassError(
                f"ROSTER: '{path}' line {line}: student id '{student}' is not usable " "(letters, digits, . _ - @ +)"
            )
        if student in seen:
            raise ClassError(f"ROSTER: '{path}' line {line}: student '{student}' appears twice")
        if not folder:
            raise ClassError(f"ROSTER: '{path}' line {line}: student '{student}' has no folder")
        seen.add(student)
        students.append(Student(student, labs_folder((base / folder).resolve())))
    if not students:
        raise ClassError(f"ROSTER: '{path}' lists no student")
    return students


def chunk(students: list[Student], text: str) -> list[Student]:
    """`K/N` (1 <= K <= N): the K-th of N interleaved shares, for a cluster's array tasks."""
    match = re.fullmatch(r"(\d+)/(\d+)", text.strip())
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise ClassError(f"--chunk: '{text}' is not K/N with 1 <= K <= N")
    k, n = int(match.group(1)), int(match.group(2))
    return students[k - 1 :: n]


def fingerprint(student: Student, labs: list[Lab]) -> str:
    """What the grade depends on in the submission: each graded lab's files (student_files: kernels.cu,
    lab 10's MPI parts), or their absence."""
    digest = hashlib.sha256()
    for lab in labs:
        digest.update(lab.folder.encode())
        for name in student_files(lab):
            source = student.folder / lab.folder / name
            digest.update(name.encode())
            digest.update(source.read_bytes() if source.is_file() else b"<missing>")
    return digest.hexdigest()


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def meta_for(student: Student, labs: list[Lab], commit: str, rubric: Path) -> dict:
    return {
        "student": student.id,
        "labs": [lab.number for lab in labs],
        "suite_commit": commit,
        "rubric_sha256": file_digest(rubric),
        "submission_sha256": fingerprint(student, labs),
    }


def is_current(report_dir: Path, expected: dict) -> bool:
    """True when report_dir holds a finished report made from the same submission, labs, suite
    commit and rubric (a second class run skips it unless --regrade)."""
    try:
        recorded = json.loads((report_dir / META).read_text())
    except (OSError, json.JSONDecodeError):
        return False
    return recorded == expected and (report_dir / "grade-report.json").is_file()


def write_meta(report_dir: Path, meta: dict) -> None:
    (report_dir / META).write_text(json.dumps(meta, indent=1) + "\n")
