"""The grader's two commands, as their entry points scripts/grade and scripts/grade-class call them: each
reads its arguments (arguments.py), does its work (one_submission.py, class_loop.py) and turns a Refusal
into one line on stderr, prefixed with the command's name, and its exit status."""
from __future__ import annotations

import sys
from typing import Callable

from . import arguments, class_loop, one_submission
from .process import end_children_on_signals
from .refusal import Refusal


def grade_main(argv: list[str] | None = None) -> int:
    """Grades a submission (a folder laid out like labs/): `make grade SUBMISSION=... LABS=...` calls this.

    Only the submission's NN_name/kernels.cu files (and lab 10's MPI parts) are taken. Each is compiled in
    a sandbox against a copy of the suite without solutions, checked from the compiler's and the linker's
    view (what it includes, what it calls, what it defines), linked into a library that exports only the
    lab's interface, and run by a runner in the sandbox that makes the calls the referee asks for. The
    referee (the suite's own code) runs the lab's grading tests, compute-sanitizer, the technique rules
    under Nsight Compute and the timed pairs against the reference solution, and checks every result
    itself. Reports: grade-report.{md,json,xml}, Gradescope's results.json, GitHub Classroom's result, and each
    lab's predictions.md (the student's Predict first table) collected as labNN_predictions.md.

    Exit status: 0 when the reports were written (whatever the score), 2 for bad arguments, 3 when the
    grader cannot grade here (no GPU, no sandbox without --unsandboxed, no profiler without
    --no-technique, the suite does not build).
    """
    return _run("grade", lambda: one_submission.grade(arguments.grade_request(argv, _summary(grade_main))))


def class_main(argv: list[str] | None = None) -> int:
    """Grades a whole class: `make grade-class CLASS=dir [ROSTER=file.csv] [LABS=...]` calls this.

    Every student (a sub-folder of the class folder, or a row of the roster: student id, folder) is graded
    by scripts/grade, with the same build and rubric as `make grade`, one grader per GPU of the node
    (CUDA_VISIBLE_DEVICES), each with its own grading build. One line per finished student, with an
    estimate of the time left. A student whose grading crashes, hangs or does not build never stops the
    class. A second run skips the students already graded from the same submission, labs, suite commit and
    rubric (--regrade grades them again). At the end: OUT/gradebook.csv, OUT/class-report.{md,html,json},
    and each student's reports in OUT/students/<id>/.

    On a cluster, an array job grades one share each (--chunk K/N) into the same OUT, then one --merge
    writes the gradebook and the class report (scripts/grade-class.sbatch).

    Exit status: 0 when the class reports were written, 2 for bad arguments, 3 when nothing can be graded
    (no GPU).
    """
    return _run("grade-class", lambda: class_loop.grade_class(arguments.class_request(argv, _summary(class_main))))


def _summary(command: Callable) -> str:
    """A command's --help description: its docstring's first paragraph."""
    return (command.__doc__ or "").split("\n\n")[0]


def _run(program: str, command: Callable[[], int]) -> int:
    end_children_on_signals()  # a stopped grader leaves no grading running
    try:
        return command()
    except Refusal as error:
        print(f"{program}: {error}", file=sys.stderr)
        return error.code
