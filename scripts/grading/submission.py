"""A submission staged into the grading build: only the files the student writes are taken from it (each
lab's kernels.cu, and lab 10's MPI parts); lab.h, launch.cuh, the drivers and the tests are always the
suite's own.

The staging folder sits at a fixed place inside the grading build, so the CMake configuration never
changes from one submission to the next: grading a class rebuilds only each student's kernels.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

KERNELS = "kernels.cu"
REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Lab:
    number: str  # "01"
    folder: str  # "01_naive_gemm"


def suite_labs(repo: Path) -> list[Lab]:
    """The labs of this suite, in order (every labs/NN_name/ with a lab.h)."""
    labs = []
    for path in sorted((repo / "labs").iterdir()):
        if path.is_dir() and re.fullmatch(r"\d\d_\w+", path.name) and (path / "lab.h").exists():
            labs.append(Lab(path.name[:2], path.name))
    return labs


def student_files(lab: Lab, repo: Path = REPO) -> list[str]:
    """The files of a lab that the student writes: kernels.cu first, then every other source of the
    skeleton that has a TODO of the lab (lab 10's MPI parts: scatter.cpp, node_output.cpp, ...)."""
    folder = repo / "labs" / lab.folder
    marker = f"TODO(lab{lab.number})"
    others = sorted(path.name for path in folder.iterdir() if path.suffix in (".cu", ".cpp") and path.name != KERNELS
                    and marker in path.read_text(errors="replace")) if folder.is_dir() else []
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


def stage(repo: Path, submission: Path, staging: Path, graded: list[Lab]) -> dict[str, bool]:
    """Fills staging/NN_name/ with the student's files of each lab (student_files): the submission's
    for each graded lab that has them, the pristine skeleton's otherwise (so every lab still
    configures, and a missing MPI part scores as not implemented). A lab counts as submitted when any
    of its student files is there (lab 10's MPI parts alone are a submission). Returns lab number ->
    submitted."""
    submitted = {}
    graded_numbers = {lab.number for lab in graded}
    for lab in suite_labs(repo):
        graded_lab = lab.number in graded_numbers
        names = student_files(lab, repo)
        if graded_lab:
            submitted[lab.number] = any((submission / lab.folder / name).is_file() for name in names)
        for name in names:
            target = staging / lab.folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            source = submission / lab.folder / name
            use_submission = graded_lab and submitted[lab.number] and source.is_file()
            new = (source if use_submission else repo / "labs" / lab.folder / name).read_bytes()
            # Rewritten only when it changed, so an unchanged lab is not recompiled.
            if not target.exists() or target.read_bytes() != new:
                target.write_bytes(new)
    return submitted


def cmake_configure_command(repo: Path, build: Path, staging: Path) -> list[str]:
    generator = "Ninja" if shutil.which("ninja") else "Unix Makefiles"
    # Each lab is graded alone: a later lab runs on the reference kernels of the labs it builds on.
    command = ["cmake", "-S", str(repo), "-B", str(build), "-G", generator, "-DCMAKE_BUILD_TYPE=Release",
               f"-DCUDALABS_STUDENT_LABS_DIR={staging}", "-DCUDALABS_EARLIER_LABS=reference"]
    # An offline bundle carried as .deps (scripts/setup --bundle) is found by CMake itself.
    return command


def compiler_errors(log: str, staging: Path | None = None, limit: int = 12) -> list[str]:
    """The lines of a build log that state an error, for the report, with paths relative to the
    submission ('01_naive_gemm/kernels.cu(32): error: ...')."""
    if staging is not None:
        log = log.replace(str(staging) + "/", "")
    lines = [line.strip() for line in log.splitlines()
             if re.search(r"\berror\b", line, re.IGNORECASE) and not line.startswith("ninja: build stopped")]
    return lines[:limit]


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
        return subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=30).stdout.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
