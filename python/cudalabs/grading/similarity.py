"""Code similarity across a class: every pair of submissions of a lab, and each against the solution,
compared with Debian's similarity-tester (sim_c), which matches token runs and so sees through renamed
variables and moved comments. The skeleton's own lines are removed first: every student starts from
them, and they would make any two submissions look alike.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from .class_report import SimilarPair
from .submission import KERNELS, Lab

_RESULT = re.compile(r"^(.*)\.cu consists for (\d+) % of (.*)\.cu material$")


def _normalized(line: str) -> str:
    return " ".join(line.split())


def student_written(source: str, skeleton: str) -> str:
    """The source without the lines it shares with the skeleton (compared without spacing)."""
    given = {_normalized(line) for line in skeleton.splitlines() if _normalized(line)}
    return "\n".join(line for line in source.splitlines() if _normalized(line) not in given) + "\n"


def similar_pairs(
    submissions: dict[str, Path], labs: list[Lab], repo: Path, threshold: int = 50, limit: int = 25
) -> list[SimilarPair]:
    """The most similar pairs (percent of the first that is material of the second, >= threshold),
    highest first. `submissions` maps student id -> labs folder. Empty when sim_c is not installed."""
    sim = shutil.which("sim_c")
    if sim is None:
        return []
    pairs: dict[tuple[str, str, str], int] = {}
    for lab in labs:
        skeleton = (repo / "labs" / lab.folder / KERNELS).read_text(errors="replace")
        with tempfile.TemporaryDirectory() as folder:
            written = []
            for student, labs_folder in sorted(submissions.items()):
                source = labs_folder / lab.folder / KERNELS
                if source.is_file():
                    text = student_written(source.read_text(errors="replace"), skeleton)
                    if text.strip():
                        (Path(folder) / f"{student}.cu").write_text(text)
                        written.append(f"{student}.cu")
            if not written:
                continue
            solution = repo / "solutions" / lab.folder / KERNELS
            (Path(folder) / "solution.cu").write_text(student_written(solution.read_text(errors="replace"), skeleton))
            done = subprocess.run(
                [sim, "-p", "-e", "-s", "-T", f"-t{threshold}", *written, "solution.cu"],
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=600,
            )
            for line in done.stdout.splitlines():
                if match := _RESULT.match(line.strip()):
                    first, percent, second = match.group(1), int(match.group(2)), match.group(3)
                    if first == "solution":
                        continue  # the solution's share of a student's code says less than the reverse
                    key = (
                        (lab.number, *sorted((first, second))) if second != "solution" else (lab.number, first, second)
                    )
                    pairs[key] = max(pairs.get(key, 0), percent)
    ranked = sorted(pairs.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [SimilarPair(lab, first, second, percent) for (lab, first, second), percent in ranked]
