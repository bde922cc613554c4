"""The two grading commands' arguments: parsed, checked and resolved before anything runs. A bad one,
an unknown flag or a value of the wrong type included, is a Refusal: one line naming the argument and
its value, exit 2."""
from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from ..paths import REPO, RUBRIC
from . import classroom, predictions, submission
from .refusal import BAD_ARGUMENTS, Refusal
from .rubric import Rubric, RubricError, load_rubric


def _refuse(message: str) -> NoReturn:
    raise Refusal(message, BAD_ARGUMENTS)


class _Parser(argparse.ArgumentParser):
    """argparse's own refusals (an unknown flag, a value of the wrong type) in one line, as every other."""

    def error(self, message: str) -> NoReturn:
        _refuse(f"{message} (--help lists the flags)")


@dataclass
class GradeRequest:
    """One submission to grade, as scripts/grade was asked: the flags, and what they resolve to."""

    args: argparse.Namespace
    submission_dir: Path
    rubric: Rubric
    prediction_rule: predictions.Rule
    labs: list[submission.Lab]
    out: Path
    build: Path


LABS_HELP = "labs to grade, e.g. 01,02 (default: all)"  # both commands take the same list


def grade_parser(description: str) -> argparse.ArgumentParser:
    parser = _Parser(prog="grade", description=description)
    parser.add_argument(
        "--submission", default=str(REPO / "labs"), help="folder of NN_name/kernels.cu (default: labs/)"
    )
    parser.add_argument("--labs", default="", help=LABS_HELP)
    parser.add_argument("--out", default="", help="report folder (default: build/grade/<submission name>)")
    parser.add_argument("--build", default=str(REPO / "build" / "grade-build"), help="the grading build (trusted)")
    parser.add_argument("--rubric", default=str(RUBRIC))
    parser.add_argument("--seed", default="", help="CUDALABS_SEED for every run (default: a fresh random one)")
    parser.add_argument(
        "--unsandboxed",
        action="store_true",
        help="grade without the sandbox where the node cannot give one; every report says so",
    )
    parser.add_argument(
        "--no-technique",
        action="store_true",
        help="skip the technique rules where the node cannot profile; every report says so",
    )
    parser.add_argument(
        "--time-limit", type=float, default=None, help="seconds per lab step, instead of the rubric's time_limit_s"
    )
    return parser


def grade_request(argv: list[str] | None, description: str = "") -> GradeRequest:
    args = grade_parser(description).parse_args(argv)
    if args.seed and not re.fullmatch(r"\d{1,19}", args.seed):
        _refuse(f"--seed: '{args.seed}' is not a non-negative integer")
    if args.time_limit is not None and not 0 < args.time_limit <= 86400:
        _refuse(f"--time-limit: {args.time_limit} is not in (0, 86400] seconds")
    submission_dir = Path(args.submission).resolve()
    if not submission_dir.is_dir():
        _refuse(f"SUBMISSION: '{args.submission}' is not a folder")
    try:
        rubric = load_rubric(Path(args.rubric))
        prediction_rule = predictions.read_rule(Path(args.rubric))
    except (RubricError, ValueError) as error:
        _refuse(str(error))
    try:
        labs = submission.select_labs(submission.suite_labs(REPO), args.labs)
    except ValueError as error:
        _refuse(str(error))
    missing = [lab.number for lab in labs if lab.number not in rubric.labs]
    if missing:
        _refuse(f"rubric {args.rubric}: no entry for lab {missing[0]}")
    out = Path(args.out or REPO / "build" / "grade" / re.sub(r"[^\w.-]+", "_", submission_dir.name)).resolve()
    return GradeRequest(args, submission_dir, rubric, prediction_rule, labs, out, Path(args.build).resolve())


@dataclass
class ClassRequest:
    """A class to grade, as scripts/grade-class was asked: the flags, the students and the labs."""

    args: argparse.Namespace
    name: str  # the class folder's (or the roster's folder's) name
    students: list[classroom.Student]
    chosen: list[classroom.Student]  # this share's (--chunk), else every student
    labs: list[submission.Lab]
    out: Path


def class_parser(description: str) -> argparse.ArgumentParser:
    parser = _Parser(prog="grade-class", description=description)
    parser.add_argument("--class", dest="class_dir", default="", help="folder of one sub-folder per student")
    parser.add_argument(
        "--roster", default="", help="CSV with 'student' and 'folder' columns (instead of, or relative to, --class)"
    )
    parser.add_argument("--labs", default="", help=LABS_HELP)
    parser.add_argument("--out", default="", help="class report folder (default: build/grade-class/<class name>)")
    parser.add_argument("--regrade", action="store_true", help="grade again the students whose report is current")
    parser.add_argument("--gpus", default="", help="CUDA devices to grade on, e.g. 0,1 (default: every GPU)")
    parser.add_argument("--chunk", default="", help="K/N: grade only the K-th of N shares (a cluster array task)")
    parser.add_argument(
        "--merge",
        action="store_true",
        help="grade nothing: write the gradebook and class report from the students' reports in OUT",
    )
    parser.add_argument(
        "--student-timeout",
        type=float,
        default=4 * 3600,
        help="seconds one student's grading may take before it is stopped (default 4 h)",
    )
    parser.add_argument(
        "--similarity-threshold",
        type=int,
        default=50,
        help="list pairs whose code is at least this many percent alike (default 50)",
    )
    parser.add_argument("--rubric", default=str(RUBRIC))
    parser.add_argument("--unsandboxed", action="store_true", help="passed to scripts/grade (every report says so)")
    parser.add_argument("--no-technique", action="store_true", help="passed to scripts/grade (every report says so)")
    return parser


def class_request(argv: list[str] | None, description: str = "") -> ClassRequest:
    args = class_parser(description).parse_args(argv)
    if not args.class_dir and not args.roster:
        _refuse("give CLASS=dir (a folder per student) or ROSTER=file.csv")
    if not 0 < args.student_timeout <= 7 * 86400:
        _refuse(f"--student-timeout: {args.student_timeout} is not in (0, 604800] seconds")
    if not 1 <= args.similarity_threshold <= 100:
        _refuse(f"--similarity-threshold: {args.similarity_threshold} is not a percentage from 1 to 100")
    if args.gpus and not re.fullmatch(r"\d+(,\d+)*", args.gpus):
        _refuse(f"--gpus: '{args.gpus}' is not a comma-separated list of device numbers")
    class_dir = Path(args.class_dir).resolve() if args.class_dir else None
    try:
        students = classroom.read_roster(Path(args.roster), class_dir) if args.roster else classroom.discover(class_dir)
        labs = submission.select_labs(submission.suite_labs(REPO), args.labs)
        chosen = classroom.chunk(students, args.chunk) if args.chunk else students
    except (classroom.ClassError, ValueError) as error:
        _refuse(str(error))
    if not Path(args.rubric).is_file():
        _refuse(f"--rubric: '{args.rubric}' is not a file")
    name = (class_dir or Path(args.roster).resolve().parent).name
    out = Path(args.out or REPO / "build" / "grade-class" / name).resolve()
    return ClassRequest(args, name, students, chosen, labs, out)
