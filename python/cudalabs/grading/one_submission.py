"""One submission graded (scripts/grade): the node checked (nothing of the grader's in what the sandbox
shows, a GPU, a sandbox, a profiler), the grading build made and its runner confined, then each lab
graded and scored, and the reports written."""
from __future__ import annotations

import datetime
import fcntl
import random
import shutil
import tempfile
from pathlib import Path

from ..paths import REPO
from . import confinement, predictions, reports, submission
from .arguments import GradeRequest
from .grader_build import build_grader
from .lab_grader import Context, GpuFacts, grade_lab
from .node import gpu_facts
from .refusal import BAD_ARGUMENTS, CANNOT_GRADE_HERE, Refusal
from .sandbox import Sandbox, exposed, make_sandbox
from .scoring import LabScore, score_lab

UNSANDBOXED_HINT = (
    "refusing to run students' code without it (pass --unsandboxed, or UNSANDBOXED=1 to make grade, to grade "
    "anyway: every report then says 'not sandboxed')"
)


def check_node(request: GradeRequest) -> tuple[GpuFacts, Sandbox]:
    """What this node must give before any student code runs; a Refusal says what it lacks."""
    args = request.args
    # What the sandbox shows whole (the system's and the toolchain's folders) must hold nothing of the
    # grader's: the suite with its solutions, the grading build, the reports, the class's submissions.
    seen = [] if args.unsandboxed else exposed([REPO, request.build, request.out, request.submission_dir])
    if seen:
        path, folder = seen[0]
        raise Refusal(
            f"{path} lies under {folder}, which every sandboxed step sees: student code could read it (move the "
            "suite, the grading build, the reports and the submissions out of the system's and the toolchain's "
            "folders)",
            BAD_ARGUMENTS,
        )
    gpu = gpu_facts()
    if gpu is None:
        raise Refusal("no CUDA GPU available: grading runs the kernels and needs one", CANNOT_GRADE_HERE)
    sandbox = make_sandbox(wanted=not args.unsandboxed)
    if not sandbox.enabled and not args.unsandboxed:
        raise Refusal(f"{sandbox.note}; {UNSANDBOXED_HINT}", CANNOT_GRADE_HERE)
    technique_labs = [lab.number for lab in request.labs if request.rubric.labs[lab.number].technique is not None]
    if technique_labs and not args.no_technique and shutil.which("ncu") is None:
        raise Refusal(
            "Nsight Compute (ncu) not found: labs " + ",".join(technique_labs) + " have technique rules that need it "
            "(install it with the CUDA toolkit, or pass --no-technique: every report then says so)",
            CANNOT_GRADE_HERE,
        )
    return gpu, sandbox


def grade_labs(request: GradeRequest, context: Context) -> list[LabScore]:
    """Each lab graded, scored and its handed-in predictions collected, one line each on the way."""
    earlier = submission.earlier_labs(request.build)
    scores = []
    for lab in request.labs:
        print(f"grade: lab {lab.number} ({lab.folder}) ...", flush=True)
        started = datetime.datetime.now()
        lab_rubric = request.rubric.labs[lab.number]
        run = grade_lab(context, lab, lab_rubric, submission.submitted_files(request.submission_dir, lab))
        run.seconds = (datetime.datetime.now() - started).total_seconds()
        run.built_on = earlier.get(lab.number, [])
        score = score_lab(lab_rubric, run)
        # The student's Predict first table, handed in beside the kernels: collected, points for handing it in.
        collected = predictions.collect(
            request.submission_dir, lab, request.out, request.prediction_rule, run.fatal is not None
        )
        score.variants.append(collected)
        scores.append(score)
        status = run.reason if run.fatal else f"{score.tests_passed}/{score.tests_total} tests"
        print(f"grade: lab {lab.number}: {score.points:g} / {score.max_points:g} points ({status})", flush=True)
    return scores


def grade(request: GradeRequest) -> int:
    """Grades the submission and writes its reports; 0 once they are written, whatever the score."""
    args, out, build = request.args, request.out, request.build
    gpu, sandbox = check_node(request)
    out.mkdir(parents=True, exist_ok=True)
    build.mkdir(parents=True, exist_ok=True)
    # One grade at a time per grading build: a second one waits here.
    lock = open(build / ".grade.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    build_grader(build, request.labs, out)
    if sandbox.enabled:
        why = confinement.unavailable(sandbox, build, out / "confinement.log")
        if why is not None:
            raise Refusal(f"the runner cannot be confined on this node: {why}; {UNSANDBOXED_HINT}", CANNOT_GRADE_HERE)

    seed = args.seed or str(random.SystemRandom().randrange(1, 2**63))
    print(
        f"grade: {request.submission_dir} on {gpu.name} (compute {gpu.compute_capability:g}), labs "
        f"{','.join(lab.number for lab in request.labs)}, seed {seed}"
    )
    print(f"grade: {sandbox.note}")
    # Where the sandboxed steps write, in the grading build or, where that lies under /tmp (which the
    # runner may write inside its sandbox: a tool's report in a scratch folder there would be within
    # its reach), in a folder of the grader's elsewhere (confinement.scratch_parent).
    try:
        scratch = Path(tempfile.mkdtemp(prefix="scratch-", dir=confinement.scratch_parent(build)))
    except ValueError as error:
        raise Refusal(str(error), BAD_ARGUMENTS) from None
    scratch.chmod(0o755)
    context = Context(
        repo=REPO,
        build=build,
        out=out,
        scratch=scratch,
        sandbox=sandbox,
        seed=seed,
        gpu=gpu,
        time_limit_s=args.time_limit,
        check_technique=not args.no_technique,
        system_roots=sandbox.system_folders() if sandbox.enabled else [Path("/usr"), Path("/opt")],
    )
    try:
        scores = grade_labs(request, context)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    technique = (
        "checked with Nsight Compute" if not args.no_technique else "NOT CHECKED: the instructor passed --no-technique"
    )
    header = reports.Header(
        submission=str(request.submission_dir),
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        device=gpu.name,
        commit=submission.suite_commit(REPO),
        seed=seed,
        rubric=str(Path(args.rubric)),
        sandbox=sandbox.note if sandbox.enabled else "NOT SANDBOXED: " + sandbox.note,
        technique=technique,
    )
    for path in reports.write_reports(out, header, scores):
        print(f"grade: wrote {path}")
    total = sum(s.points for s in scores)
    print(f"grade: total {total:g} / {sum(s.max_points for s in scores):g} points")
    return 0
