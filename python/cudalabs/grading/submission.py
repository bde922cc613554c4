"""A submission: which labs it has and the files the student writes (each lab's kernels.cu, and lab
10's MPI parts). Only those are taken from it; lab.h, launch.cuh, the drivers and the tests are always
the suite's own.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .. import labs as declarations
from ..paths import REPO

KERNELS = "kernels.cu"


@dataclass(frozen=True)
class Lab:
    number: str  # "01"
    folder: str  # "01_naive_gemm"


def suite_labs(repo: Path) -> list[Lab]:
    """The labs of this suite, in order, as they declare themselves (labs/NN_name/lab.json)."""
    return [Lab(lab.number, lab.folder) for lab in declarations.declared_labs(repo)]


def student_files(lab: Lab, repo: Path = REPO) -> list[str]:
    """The files of a lab that the student writes: kernels.cu first, then every other source of the
    skeleton that has a TODO of the lab (lab 10's MPI parts: scatter.cpp, node_output.cpp, ...)."""
    folder = repo / "labs" / lab.folder
    marker = f"TODO(lab{lab.number})"
    others = (
        sorted(
            path.name
            for path in folder.iterdir()
            if path.suffix in (".cu", ".cpp") and path.name != KERNELS and marker in path.read_text(errors="replace")
        )
        if folder.is_dir()
        else []
    )
    return [KERNELS, *others]


def select_labs(labs: list[Lab], text: str) -> list[Lab]:
    """LABS=01,02 (or '1 2'); empty means all. Raises ValueError naming an unknown lab."""
    if not text.strip():
        return labs
    by_number = {lab.number: lab for lab in labs}
    chosen = []
    for item in re.split(r"[,\s]+", text.strip()):
        key = item.zfill(2) if item.isdigit() else item
        if key not in by_number:
            raise ValueError(f"LABS: '{item}' is not a lab (labs: {','.join(by_number)})")
        if by_number[key] not in chosen:
            chosen.append(by_number[key])
    return chosen


MAX_FILE_BYTES = 1 << 20


def submitted_files(submission: Path, lab: Lab, repo: Path = REPO) -> dict[str, bytes] | None:
    """The student's files of `lab` (student_files): the submission's where it has them, the
    skeleton's otherwise (a lab counts as submitted when any of its student files is there; lab 10's
    MPI parts alone are a submission). None when none is there. A link, a folder or anything but a
    regular file under 1 MiB is not read (a link could point at a solution on the grader's disk)."""
    files: dict[str, bytes] = {}
    submitted = False
    for name in student_files(lab, repo):
        data = _read_regular(submission / lab.folder / name)
        if data is not None:
            submitted = True
            files[name] = data
        else:
            files[name] = (repo / "labs" / lab.folder / name).read_bytes()
    return files if submitted else None


def _read_regular(path: Path) -> bytes | None:
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
            return None
        return stream.read(MAX_FILE_BYTES)


def earlier_labs(build: Path) -> dict[str, list[str]]:
    """Lab number -> the labs its build runs on (BUILD/earlier_labs.json, written by CMake); {} when absent."""
    path = build / "earlier_labs.json"
    if not path.is_file():
        return {}
    return {lab: list(used) for lab, used in json.loads(path.read_text()).get("builds_on", {}).items()}


def suite_commit(repo: Path) -> str:
    """The suite's commit as reports name it: CUDALABS_GIT_COMMIT when set, else git's short hash."""
    if commit := os.environ.get("CUDALABS_GIT_COMMIT"):
        return commit
    try:
        return (
            subprocess.run(
                ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=30
            ).stdout.strip()
            or "unknown"
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
