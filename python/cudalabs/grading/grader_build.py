"""The grading build: the trusted side (referees, runners, the skeletons' libraries), configured once per
build folder and built for the labs being graded."""
from __future__ import annotations

import shutil
from pathlib import Path

from ..paths import REPO
from .process import run_logged
from .refusal import CANNOT_GRADE_HERE, Refusal
from .submission import Lab


def targets(labs: list[Lab]) -> list[str]:
    """What grading these labs needs built: the confinement launcher, and each lab's three sides."""
    sides = ("referee", "runner", "submission")
    return ["grader_confine"] + [f"grader_{side}_lab{lab.number}" for lab in labs for side in sides]


def build_grader(build: Path, labs: list[Lab], out: Path) -> None:
    """Configures `build` where it has no cache yet, then builds the labs' targets; the logs go to `out`."""
    generator = "Ninja" if shutil.which("ninja") else "Unix Makefiles"
    if not (build / "CMakeCache.txt").is_file():
        configure = run_logged(
            [
                "cmake",
                "-S",
                str(REPO),
                "-B",
                str(build),
                "-G",
                generator,
                "-DCMAKE_BUILD_TYPE=Release",
                "-DCUDALABS_EARLIER_LABS=reference",
            ],
            out / "setup.log",
            900,
        )
        if configure.returncode != 0:
            raise Refusal(f"the grading build does not configure (see {out / 'setup.log'})", CANNOT_GRADE_HERE)
    built = run_logged(["cmake", "--build", str(build), "--target", *targets(labs)], out / "grader_build.log", 3600)
    if built.returncode != 0:
        raise Refusal(f"the grader does not build (see {out / 'grader_build.log'})", CANNOT_GRADE_HERE)
