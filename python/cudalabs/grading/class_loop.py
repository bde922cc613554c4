"""A class graded (scripts/grade-class): each student whose report is not current graded by scripts/grade
as its own command, one worker per GPU, one line per finished student with the time left; a student
whose grading crashes, hangs or does not build is a status, never the end of the class. Then, unless
this is one share of a cluster's array (--chunk), the gradebook and the class report from every
student's folder (--merge writes only those)."""
from __future__ import annotations

import datetime
import json
import os
import queue
import socket
import sys
import threading
import time
from pathlib import Path

from ..paths import REPO
from . import classroom, similarity, submission
from .arguments import ClassRequest
from .class_report import ClassSummary, StudentResult, write_class_reports
from .node import gpu_list
from .process import run_logged
from .refusal import CANNOT_GRADE_HERE, Refusal

STATUS = "grade-status.txt"  # why a student has no report (timed out, grader error)


def grade_command(
    student: classroom.Student, labs: str, build: Path, out: Path, rubric: str, extra: list[str]
) -> list[str]:
    # Tests substitute a stand-in grader (CUDALABS_GRADE_COMMAND) to exercise the class logic without a GPU.
    grader = os.environ.get("CUDALABS_GRADE_COMMAND", str(REPO / "scripts" / "grade"))
    return [
        sys.executable,
        grader,
        "--submission",
        str(student.folder),
        "--labs",
        labs,
        "--build",
        str(build),
        "--out",
        str(out),
        "--rubric",
        rubric,
        *extra,
    ]


def grade_one(student: classroom.Student, gpu: str, args, out_dir: Path, meta: dict) -> StudentResult:
    report_dir = out_dir / "students" / student.id
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / classroom.META).unlink(missing_ok=True)
    (report_dir / STATUS).unlink(missing_ok=True)
    if not student.folder.is_dir():
        return StudentResult(student.id, "no submission", report_dir)
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": gpu}
    # One grading build per grader: per GPU, and per host and array task on a cluster's shared disk.
    task = os.environ.get("SLURM_ARRAY_TASK_ID")
    build = (
        REPO
        / "build"
        / (f"grade-build-{socket.gethostname()}-task{task}-gpu{gpu}" if task else f"grade-build-gpu{gpu}")
    )
    extra = (["--unsandboxed"] if args.unsandboxed else []) + (["--no-technique"] if args.no_technique else [])
    done = run_logged(
        grade_command(student, args.labs, build, report_dir, args.rubric, extra),
        report_dir / "grade.log",
        args.student_timeout,
        env,
    )
    result = StudentResult(student.id, "graded", report_dir, seconds=done.seconds)
    report = report_dir / "grade-report.json"
    if done.timed_out:
        result.status = f"timed out after {args.student_timeout:.0f} s"
    elif done.returncode != 0 or not report.is_file():
        lines = [line for line in done.output().splitlines() if line.strip()]
        result.status = f"grader error: {lines[-1] if lines else f'exit {done.returncode}'}"
    else:
        result.report = json.loads(report.read_text())
        classroom.write_meta(report_dir, meta)
    if result.status != "graded":
        (report_dir / STATUS).write_text(result.status + "\n")  # for --merge, which reads the folders
    return result


def read_result(student: classroom.Student, out_dir: Path) -> StudentResult:
    report_dir = out_dir / "students" / student.id
    report = report_dir / "grade-report.json"
    if not student.folder.is_dir():
        return StudentResult(student.id, "no submission", report_dir)
    if (report_dir / classroom.META).is_file() and report.is_file():
        return StudentResult(student.id, "graded", report_dir, json.loads(report.read_text()))
    if (report_dir / STATUS).is_file():
        return StudentResult(student.id, (report_dir / STATUS).read_text().strip(), report_dir)
    return StudentResult(student.id, "not graded yet", report_dir)


def grade_all(students, gpus, args, out_dir, labs, commit) -> None:
    """Grades the students whose report is not current, one worker thread per GPU."""
    work: queue.Queue = queue.Queue()
    todo = []
    for student in students:
        meta = classroom.meta_for(student, labs, commit, Path(args.rubric))
        if not args.regrade and classroom.is_current(out_dir / "students" / student.id, meta):
            print(f"grade-class: {student.id}: current report (same submission, suite and rubric), skipped", flush=True)
            continue
        todo.append((student, meta))
    for item in todo:
        work.put(item)
    lock, finished, started = threading.Lock(), [], time.monotonic()

    def worker(gpu: str) -> None:
        while True:
            try:
                student, meta = work.get_nowait()
            except queue.Empty:
                return
            result = grade_one(student, gpu, args, out_dir, meta)
            with lock:
                finished.append(result)
                left = len(todo) - len(finished)
                per_student = (time.monotonic() - started) * len(gpus) / len(finished)
                eta = datetime.timedelta(seconds=round(per_student * left / len(gpus)))
                points = ""
                if result.report:
                    points = f"{result.report['points']:g} / {result.report['max_points']:g} points, "
                print(
                    f"grade-class: [{len(finished)}/{len(todo)}] {student.id} on GPU {gpu}: {points}{result.status} "
                    f"in {result.seconds:.0f} s; about {eta} left",
                    flush=True,
                )

    threads = [threading.Thread(target=worker, args=(gpu,)) for gpu in gpus]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def grade_class(request: ClassRequest) -> int:
    """Grades the class (or this share of it), then writes the class reports; 0 once they are written."""
    args, out_dir, labs = request.args, request.out, request.labs
    out_dir.mkdir(parents=True, exist_ok=True)
    commit = submission.suite_commit(REPO)
    began = time.monotonic()
    gpus: list[str] = []
    if not args.merge:
        gpus = gpu_list(args.gpus)
        if not gpus and "CUDALABS_GRADE_COMMAND" not in os.environ:
            raise Refusal(
                "no CUDA GPU available: grading runs the kernels and needs one (--merge needs none)", CANNOT_GRADE_HERE
            )
        gpus = gpus or ["0"]
        print(
            f"grade-class: {len(request.chosen)} of {len(request.students)} students, labs "
            f"{','.join(lab.number for lab in labs)}, on GPU(s) {','.join(gpus)}, suite {commit}",
            flush=True,
        )
        grade_all(request.chosen, gpus, args, out_dir, labs, commit)
        if args.chunk:
            print(f"grade-class: share {args.chunk} done; run --merge once every share has finished")
            return 0
    students = request.students
    results = [read_result(student, out_dir) for student in students]
    pairs = similarity.similar_pairs(
        {s.id: s.folder for s in students if s.folder.is_dir()}, labs, REPO, args.similarity_threshold
    )
    notes = [
        f"suite commit {commit}, rubric {Path(args.rubric).name}",
        f"written {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC"
        + (
            f" after {datetime.timedelta(seconds=round(time.monotonic() - began))} on GPU(s) {','.join(gpus)}"
            if gpus
            else ""
        ),
    ]
    summary = ClassSummary(f"Class report: {request.name}", [lab.number for lab in labs], results, pairs, notes)
    for path in write_class_reports(out_dir, summary):
        print(f"grade-class: wrote {path}")
    return 0
