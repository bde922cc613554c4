"""A solution as a student would hand it in: one kernels.cu. The reference solutions of labs 07 and 09
share solutions/07_wide_loads/warp_tile.cuh, a file a submission cannot include (the student build sees
no solutions/); this writes the helper into the kernels.cu where it is included, once.

  PYTHONPATH=python python3 -m cudalabs.grading.solution_file NN_name > kernels.cu
  PYTHONPATH=python python3 -m cudalabs.grading.solution_file NN_name --into DIR
      every file handed in (lab 10's MPI parts)
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from ..paths import REPO, answer_key
from .predictions import NAME as PREDICTIONS
from .submission import Lab, student_files

_SOLUTION_INCLUDE = re.compile(r'^\s*#\s*include\s*"((?:solutions/\d\d_\w+/)?[\w.]+\.cuh)"\s*$')


def single_file(repo: Path, folder: str) -> str:
    """solutions/<folder>/kernels.cu with every include of a header of solutions/ written in place."""
    done: set[Path] = set()

    def expand(path: Path) -> list[str]:
        lines = []
        for line in path.read_text().splitlines():
            match = _SOLUTION_INCLUDE.match(line)
            target = None
            if match:
                name = match.group(1)
                candidate = repo / name if name.startswith("solutions/") else path.parent / name
                if candidate.is_file() and candidate.resolve().is_relative_to((repo / "solutions").resolve()):
                    target = candidate.resolve()
            if target is None:
                lines.append(line)
            elif target not in done:
                done.add(target)
                lines.append(f"// ---- {target.relative_to(repo.resolve())}, written in place ----")
                lines += [text for text in expand(target) if text.strip() != "#pragma once"]
                lines.append(f"// ---- end of {target.name} ----")
        return lines

    return "\n".join(expand(repo / "solutions" / folder / "kernels.cu")) + "\n"


def handed_in(repo: Path, folder: str) -> dict[str, str]:
    """Every file of a lab's solution that a student hands in (submission.student_files): kernels.cu as
    one file, lab 10's MPI parts as they are, and the predictions (predictions.py) as the lab's answer
    key gives them, the filled-in table a student who knew the answers would hand in."""
    files = {"kernels.cu": single_file(repo, folder)}
    for name in student_files(Lab(folder[:2], folder), repo)[1:]:
        files[name] = (repo / "solutions" / folder / name).read_text()
    answers = repo / answer_key(folder)
    if answers.is_file():
        files[PREDICTIONS] = answers.read_text()
    return files


if __name__ == "__main__":
    arguments = sys.argv[1:]
    into = len(arguments) == 3 and arguments[1] == "--into"
    if not (len(arguments) == 1 or into) or not (REPO / "solutions" / arguments[0] / "kernels.cu").is_file():
        print("usage: solution_file.py NN_name [--into DIR] (NN_name a folder of solutions/)", file=sys.stderr)
        sys.exit(2)
    if into:
        for name, text in handed_in(REPO, arguments[0]).items():
            (Path(arguments[2]) / name).write_text(text)
    else:
        sys.stdout.write(single_file(REPO, arguments[0]))
