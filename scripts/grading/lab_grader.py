"""Grading one lab, start to end: build, grading tests, memcheck, benchmark next to the solution.

Each step has a time limit; the first step that fails for a reason the rubric punishes (does not
compile, crashes, hangs, memcheck errors) ends the lab with that reason, and grading goes on.
"""
from __future__ import annotations

import json
import re
import statistics
import shutil
from dataclasses import dataclass
from pathlib import Path

from . import distinct, gtest, integrity
from .lab_run import (COMPILE_ERROR, CRASHED, INTEGRITY, MEMCHECK, RACECHECK, SYNCCHECK, TIME_LIMIT,
                      WRONG_AFTER_TIMING, LabRun, Rate)
from .process import Completed, run_logged
from .rubric import LabRubric
from .sandbox import Sandbox
from .scoring import score_lab
from .submission import Lab, compiler_errors, student_files

RATE_COUNTERS = (("gflops", "GFLOP/s"), ("gbytes_per_s", "GB/s"))
MEMCHECK_EXIT = 86


@dataclass
class Context:
    build: Path  # the grading build folder (configured already)
    logs: Path  # where this submission's logs go
    env: dict  # environment of every run (CUDALABS_SEED set)
    time_limit_s: float | None = None  # overrides the rubric's (grader self-tests)
    protected_names: frozenset[str] = frozenset()  # the suite's names a submission may not redefine
    sandbox: Sandbox = Sandbox()  # wraps every run of student code


def student_driver(build: Path, lab: Lab) -> Path:
    return build / "labs" / f"lab{lab.number}"


def solution_driver(build: Path, lab: Lab) -> Path:
    return build / "labs" / f"lab{lab.number}_solution"


def grading_binary(build: Path, lab: Lab) -> Path:
    return build / "tests" / f"lab{lab.number}_grading_student"


def _abnormal_end(step: str, done: Completed, limit: float) -> tuple[str, str] | None:
    """(fatal kind, reason) when a step hung or crashed; None when it exited by itself."""
    running = gtest.test_running_at_exit(done.output())
    where = f" in {running}" if running else ""
    if done.timed_out:
        return TIME_LIMIT, f"{step} exceeded the time limit of {limit:.0f} s{where}"
    if done.signal_name:
        return CRASHED, f"{step} crashed ({done.signal_name}){where}"
    return None


def _integrity(ctx: Context, lab: Lab, rubric: LabRubric, run: LabRun) -> bool:
    """The rubric's integrity rules on the staged student files, before anything of them is compiled."""
    violations = []
    for name in student_files(lab):
        source = ctx.build / "submission" / lab.folder / name
        violations += integrity.check_file(source, rubric.integrity, lab.folder, set(ctx.protected_names))
    if not violations:
        return True
    run.fatal = INTEGRITY
    run.reason = f"integrity: {violations[0]}"
    run.details = [str(v) for v in violations[:12]]
    return False


def mpi_built(build: Path) -> bool:
    """Whether the grading build found an MPI library (lab 10's MPI parts and their tests are built)."""
    cache = build / "CMakeCache.txt"
    return cache.is_file() and "CUDALABS_MPI_FOUND:INTERNAL=ON" in cache.read_text(errors="replace")


def _build(ctx: Context, lab: Lab, rubric: LabRubric, run: LabRun) -> bool:
    log = ctx.logs / f"lab{lab.number}_build.log"
    run.logs["build"] = log.name
    targets = [f"lab{lab.number}", f"lab{lab.number}_grading_student"]
    if rubric.mpi_tests and mpi_built(ctx.build):
        targets.append(rubric.mpi_tests.binary)
    done = run_logged(["cmake", "--build", str(ctx.build), "--target", *targets], log, rubric.build_time_limit_s,
                      ctx.env)
    if done.returncode == 0:
        return True
    run.fatal = COMPILE_ERROR
    if done.timed_out:
        run.reason = f"the build exceeded {rubric.build_time_limit_s:.0f} s"
    else:
        run.details = compiler_errors(done.output(), ctx.build / "submission")
        what = "kernels.cu does" if len(student_files(lab)) == 1 else "the lab's files do"
        run.reason = f"{what} not compile" + (f": {run.details[0]}" if run.details else "")
    return False


def _gtest_program(ctx: Context, run: LabRun, what: str, log_key: str, stem: str, command: list[str],
                   limit: float, env: dict[str, str]) -> list | None:
    """Runs a GoogleTest program in the sandbox with its XML report and log in the report folder
    (stem.xml, stem.log, listed as log_key). Its tests; None when it hung, crashed or ended before
    reporting (run.fatal says which)."""
    xml = ctx.logs / f"{stem}.xml"
    xml.unlink(missing_ok=True)
    log = ctx.logs / f"{stem}.log"
    run.logs[log_key] = log.name
    done = run_logged(ctx.sandbox.wrap([*command, f"--gtest_output=xml:{xml}"]), log, limit, env)
    if ended := _abnormal_end(what, done, limit):
        run.fatal, run.reason = ended
        return None
    if not xml.exists():
        run.fatal, run.reason = CRASHED, f"{what} exited with code {done.returncode} before reporting"
        return None
    return gtest.parse_xml(xml)


def _tests(ctx: Context, lab: Lab, rubric: LabRubric, limit: float, run: LabRun) -> bool:
    tests = _gtest_program(ctx, run, "the grading tests", "tests", f"lab{lab.number}_tests",
                           [str(grading_binary(ctx.build, lab))], limit, ctx.env)
    if tests is None:
        return False
    run.tests = tests
    return _mpi_tests(ctx, lab, rubric, limit, run)


# Open MPI refuses to start as root unless told; the grader may run as root in a container.
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def _mpi_tests(ctx: Context, lab: Lab, rubric: LabRubric, limit: float, run: LabRun) -> bool:
    """The rubric's MPI test program (lab 10's parts), under mpirun; its tests join the lab's. Without an
    MPI library those tests are missing, and the report says why."""
    if rubric.mpi_tests is None:
        return True
    binary = ctx.build / "tests" / rubric.mpi_tests.binary
    mpirun = shutil.which("mpirun", path=ctx.env.get("PATH"))
    if mpirun is None or not binary.exists():
        run.details.append("MPI tests not run: no MPI library on the grading node (scripts/setup mpi)")
        return True
    command = [mpirun, "-q", "--oversubscribe", "-np", str(rubric.mpi_tests.ranks), str(binary)]
    tests = _gtest_program(ctx, run, "the MPI tests", "mpi tests", f"lab{lab.number}_mpi_tests", command,
                           limit, {**ctx.env, **MPI_ENV})
    if tests is None:
        return False
    run.tests += tests
    return True


# compute-sanitizer's tools on the small shapes: out-of-bounds and misaligned accesses, shared-memory
# races (a missing barrier that happened not to corrupt a result), and barriers not all threads reach.
SANITIZER_TOOLS = (("memcheck", MEMCHECK, r"Invalid __\w+__ (read|write)|Address 0x|out of bounds"),
                   ("racecheck", RACECHECK, r"(Race|hazard) reported|Potential \w+ hazard|RAW|WAR|WAW"),
                   ("synccheck", SYNCCHECK, r"Barrier error|Invalid arguments|divergent"))


def _memcheck(ctx: Context, lab: Lab, rubric: LabRubric, limit: float, run: LabRun) -> bool:
    """memcheck, racecheck and synccheck over the rubric's small-shape tests; the first tool that
    reports an error ends the lab with it."""
    sanitizer = shutil.which("compute-sanitizer")
    if sanitizer is None:
        run.memcheck = "not run: compute-sanitizer not found"
        return True
    for tool, fatal, detail in SANITIZER_TOOLS:
        log = ctx.logs / f"lab{lab.number}_{tool}.log"
        run.logs[tool] = log.name
        done = run_logged(ctx.sandbox.wrap([sanitizer, "--tool", tool, "--error-exitcode", str(MEMCHECK_EXIT),
                                            "--print-limit", "8", str(grading_binary(ctx.build, lab)),
                                            f"--gtest_filter={rubric.memcheck_filter}"]), log, limit, ctx.env)
        if ended := _abnormal_end(tool, done, limit):
            run.fatal, run.reason = ended
            return False
        output = done.output()
        summary = re.findall(r"(?:ERROR SUMMARY|RACECHECK SUMMARY)[^\n]*?(\d+) (?:error|hazard)", output)
        if done.returncode == MEMCHECK_EXIT or (summary and summary[-1] != "0"):
            run.fatal = fatal
            run.details = [line.strip().lstrip("=").strip() for line in output.splitlines() if re.search(detail, line)][:8]
            count = summary[-1] if summary else "?"
            run.reason = f"compute-sanitizer {tool}: " + (run.details[0] if run.details else f"{count} errors")
            return False
    run.memcheck = f"memcheck, racecheck, synccheck clean ({rubric.memcheck_filter.count(':') + 1} test patterns)"
    return True


def _distinct(ctx: Context, lab: Lab, rubric: LabRubric, limit: float, run: LabRun, passed: list[str]) -> None:
    """The rubric's distinct rule: one profiled launch of each variant that passed its tests; a variant
    whose measurements repeat an earlier one's is recorded in run.repeated (and scores nothing)."""
    rule = rubric.distinct
    if rule is None:
        return
    ncu = shutil.which("ncu")
    if ncu is None:
        run.distinct_note = "not checked: Nsight Compute (ncu) not found"
        return
    signatures: dict[str, dict[str, float]] = {}
    for variant in passed:
        log = ctx.logs / f"lab{lab.number}_distinct_{variant}.log"
        run.logs[f"distinct ({variant})"] = log.name
        command = distinct.ncu_command(ncu, str(student_driver(ctx.build, lab)), lab.number, variant, rule)
        done = run_logged(ctx.sandbox.wrap(command), log, limit, ctx.env)
        output = done.output()
        if distinct.no_permission(output):
            run.distinct_note = "not checked: this node does not let users read the GPU's performance counters"
            return
        measured = distinct.read_ncu_csv(output)
        if done.timed_out or measured is None or not set(rule.metrics) <= set(measured):
            run.distinct_note = f"not checked: no profile of {variant} (see {log.name})"
            return
        signatures[variant] = {m: measured[m] for m in rule.metrics}
    for name, twin in distinct.repeated(signatures, rule).items():
        run.repeated[name] = (f"not distinct from {twin}: {rule.why}, yet both measured "
                              f"{distinct.describe(signatures[name])}")
    run.distinct_note = f"checked with Nsight Compute on {len(signatures)} variants: {rule.why}"


def _rates(json_path: Path) -> dict[str, tuple[float, str]]:
    """Benchmark run name -> (median rate, unit) from a Google Benchmark JSON file."""
    if not json_path.exists():
        return {}
    data = json.loads(json_path.read_text())
    rates = {}
    for bench in data.get("benchmarks", []):
        if bench.get("aggregate_name") != "median":
            continue
        for counter, unit in RATE_COUNTERS:
            if counter in bench:
                rates[bench["run_name"]] = (float(bench[counter]), unit)
                break
    return rates


def _benchmark(ctx: Context, lab: Lab, rubric: LabRubric, limit: float, run: LabRun,
               fully_passed: list[str]) -> bool:
    """rubric.benchmark_pairs pairs of runs at the rubric's size, each the solution's driver then the
    student's, back to back; each pair gives the student's fraction of the solution's rate."""
    pairs: list[dict[str, dict]] = []
    for pair in range(rubric.benchmark_pairs):
        measured = {}
        for who, driver in (("solution", solution_driver(ctx.build, lab)), ("student", student_driver(ctx.build, lab))):
            out = ctx.logs / f"lab{lab.number}_bench_{who}.json"
            out.unlink(missing_ok=True)
            log = ctx.logs / f"lab{lab.number}_bench_{who}.log"
            run.logs[f"benchmark ({who})"] = log.name
            command = [str(driver), *rubric.benchmark_args, f"--benchmark_out={out}", "--benchmark_out_format=json"]
            done = run_logged(ctx.sandbox.wrap(command) if who == "student" else command, log, limit, ctx.env)
            if who == "student" and (ended := _abnormal_end("the benchmark", done, limit)):
                run.fatal, run.reason = ended
                return False
            if who == "student" and done.returncode != 0 and "FAIL after timing" in done.output():
                # The check after timing: fresh inputs gave wrong results once the kernel had been timed.
                run.fatal = WRONG_AFTER_TIMING
                run.reason = "wrong results on fresh inputs after the timed runs (a result kept from earlier runs?)"
                return False
            if who == "solution" and done.returncode != 0:
                run.benchmark_note = f"the reference solution's benchmark failed (exit {done.returncode}); see its log"
            measured[who] = _rates(out)
        pairs.append(measured)
    for variant in rubric.variants:
        if variant.name not in fully_passed:
            continue
        rate = Rate()
        values: dict[str, list[float]] = {"student": [], "solution": []}
        for measured in pairs:
            found = {}
            for who in ("student", "solution"):
                for name, (value, unit) in measured.get(who, {}).items():
                    if name.startswith(variant.benchmark):
                        found[who] = value
                        rate.unit = unit
                        break
            for who, value in found.items():
                values[who].append(value)
            if found.get("student") is not None and found.get("solution"):
                rate.pair_fractions.append(found["student"] / found["solution"])
        rate.student = statistics.median(values["student"]) if values["student"] else None
        rate.solution = statistics.median(values["solution"]) if values["solution"] else None
        run.rates[variant.name] = rate
    return True


def grade_lab(ctx: Context, lab: Lab, rubric: LabRubric, submitted: bool) -> LabRun:
    run = LabRun(lab.number, lab.folder)
    if not submitted:
        files = student_files(lab)
        wanted = files[0] if len(files) == 1 else "any of " + ", ".join(files)
        run.fatal, run.reason = "missing", f"the submission has no {lab.folder}/{wanted}"
        return run
    limit = ctx.time_limit_s or rubric.time_limit_s
    if not _integrity(ctx, lab, rubric, run) or not _build(ctx, lab, rubric, run) or not _tests(ctx, lab, rubric, limit, run):
        return run
    if not _memcheck(ctx, lab, rubric, limit, run):
        return run
    # Only variants that passed every test are worth timing.
    fully_passed = [v.name for v in score_lab(rubric, run).variants if v.state == "passed"]
    if not fully_passed:
        run.benchmark_note = "not run: no variant passed every test"
        return run
    _distinct(ctx, lab, rubric, limit, run, fully_passed)
    fully_passed = [name for name in fully_passed if name not in run.repeated]
    if fully_passed:
        _benchmark(ctx, lab, rubric, limit, run, fully_passed)
    return run
