"""Grading one lab, start to end.

  1. the tree: a copy of the suite without solutions/, the student's files in its lab folder
  2. compile (sandbox) -> integrity from the compiler's and the linker's view -> link (sandbox)
  3. the grading tests: the referee (trusted) runs them, every call of the student's code made by the
     runner (sandbox) and checked by the referee
  4. the same tests' small shapes under each compute-sanitizer tool, watching the runner
  5. one probe of each variant that passed under Nsight Compute: the technique rules, and whether
     two variants are one kernel
  6. the timed pairs, reference then student, every timed output checked

The first step that fails for a reason the rubric punishes ends the lab with that reason. Everything
a step concludes comes from the grader's side: the toolchain's outputs, the referee's files, the
tools' reports, never a file or an exit status of the student's process.
"""
from __future__ import annotations

import hashlib
import json
import re
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from . import build, confinement, gtest, integrity, predictions, technique
from .lab_run import (
    COMPILE_ERROR,
    CRASHED,
    INTEGRITY,
    MISSING,
    NOT_GRADED,
    REFERENCE_BUILD,
    SANITIZER_FATAL,
    TIME_LIMIT,
    WRONG_AFTER_TIMING,
    LabRun,
    Rate,
)
from .referee import SANITIZER_ERROR_EXIT, RunnerSpec, ncu_tool, referee_environment, run_referee, sanitizer_tool
from .rubric import LabRubric
from .sandbox import Sandbox, copy_out
from .scoring import score_lab
from .solution_file import handed_in
from .submission import Lab


@dataclass
class GpuFacts:
    name: str
    compute_capability: float


@dataclass
class Context:
    repo: Path
    build: Path  # the trusted grading build
    out: Path  # the report folder: the grader's alone
    scratch: Path  # where sandboxed steps write (one folder per step)
    sandbox: Sandbox
    seed: str
    gpu: GpuFacts
    time_limit_s: float | None = None  # overrides the rubric's (grader self-tests)
    check_technique: bool = True  # False: the instructor's --no-technique, named on every report
    system_roots: list[Path] = field(default_factory=list)

    @property
    def work(self) -> Path:
        return self.out / "work"


def _scratch(ctx: Context, lab: Lab, step: str) -> Path:
    folder = ctx.scratch / f"lab{lab.number}" / step
    if folder.exists():
        shutil.rmtree(folder)
    ctx.sandbox.prepare_writable(folder)
    return folder


def _built_architectures(argv: list[str]) -> set[str]:
    """The targets a compile command builds machine code for: {"90a", "80", ...}."""
    found = set()
    for arg in argv:
        for code in re.findall(r",code=\[?([^\]\s]+)", arg):
            for item in code.split(","):
                if item.startswith("sm_"):
                    found.add(item[3:])
        if arg.startswith("-arch=sm_"):
            found.add(arg[len("-arch=sm_") :])
    return found


def unavailable_reasons(rubric: LabRubric, gpu: GpuFacts, built: set[str]) -> dict[str, str]:
    """Variant -> why this GPU or this grading build cannot run it (the grader's decision)."""
    reasons = {}
    for variant in rubric.variants:
        needs = variant.requires
        if needs.compute_capability and gpu.compute_capability + 1e-9 < needs.compute_capability:
            reasons[variant.name] = (
                f"needs compute capability {needs.compute_capability:g} "
                f"(this GPU, {gpu.name}, has {gpu.compute_capability:g})"
            )
        elif needs.architecture and needs.architecture not in built:
            reasons[variant.name] = (
                f"needs a build for sm_{needs.architecture} "
                f"(the grading build has {', '.join(sorted(built)) or 'none'})"
            )
    return reasons


def _build_library(
    ctx: Context,
    lab: Lab,
    rubric: LabRubric,
    files: dict[str, bytes],
    tag: str,
    run: LabRun | None,
    command: build.CompileCommand | None = None,
) -> tuple[Path | None, list[str]]:
    """Tree, compile, integrity, link: the run folder (runner + libsubmission.so), or None with
    `run` failed (for the student) or the reason (for the solution). `command` replaces the grading
    build's compile command (the grader's tests compile for one architecture)."""
    targets = build.lab_targets(ctx.build, lab.number, lab.folder)
    work = ctx.work / f"lab{lab.number}" / tag
    work.mkdir(parents=True, exist_ok=True)
    tree = ctx.scratch / f"lab{lab.number}" / f"{tag}-tree"
    build.stage_tree(ctx.repo, tree)
    build.place_files(tree, lab.folder, files)
    ctx.sandbox.prepare_readable(tree)
    command = command or build.compile_command(ctx.build, ctx.repo, lab.number, lab.folder)
    limit = rubric.build_time_limit_s
    compiled = build.compile_kernels(
        ctx.sandbox, command, tree, lab.folder, _scratch(ctx, lab, f"{tag}-compile"), work / "compile.log", limit
    )
    if not compiled.ok:
        what = "the build exceeded its time limit" if compiled.timed_out else "kernels.cu does not compile"
        reason = what + (f": {compiled.details[0]}" if compiled.details else "")
        if run is not None:
            run.fail(COMPILE_ERROR, reason, compiled.details)
        return None, [reason]
    violations = integrity.check_dependencies(
        compiled.depfile, tree, lab.folder, rubric.integrity, ctx.system_roots + command.include_roots()
    )
    violations += integrity.check_assembler_inputs(compiled.assembler_depfile, compiled.depfile, compiled.object.parent)
    table = integrity.read_symbols(ctx.sandbox, compiled.object, work)
    interface = integrity.interface_of(ctx.sandbox, targets.skeleton_library, work / "nm-interface.log")
    suite_names = integrity.suite_names_of(ctx.sandbox, targets.runner, work / "nm-runner.log")
    violations += integrity.check_symbols(table, rubric.integrity, interface, suite_names)
    violations += integrity.check_no_system_calls(ctx.sandbox, compiled.object, work / "objdump.log")
    if violations:
        reason = f"integrity: {violations[0]}"
        if run is not None:
            run.fail(INTEGRITY, reason, [str(v) for v in violations[:20]])
        return None, [str(v) for v in violations]
    link_out = _scratch(ctx, lab, f"{tag}-link")
    linked = build.link_library(
        ctx.sandbox,
        compiled.object,
        interface,
        cuda_library_folder(ctx.build),
        link_out,
        work / "link.log",
        limit,
        host_compiler=host_compiler(ctx.build),
    )
    if not linked.ok:
        reason = "the object does not link" + (f": {linked.details[0]}" if linked.details else "")
        if run is not None:
            run.fail(COMPILE_ERROR, reason, linked.details)
        return None, [reason]
    folder = ctx.work / f"lab{lab.number}" / f"{tag}-run"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    copy_out(link_out, folder)  # the library only, never through a link
    for extra in folder.iterdir():
        if extra.name != "libsubmission.so":
            extra.unlink()
    shutil.copy2(targets.runner, folder / "runner")
    shutil.copy2(confinement.launcher_in(ctx.build), folder / confinement.LAUNCHER)
    (folder / "libsubmission.so").chmod(0o755)
    ctx.sandbox.prepare_readable(folder)
    return folder, []


def host_compiler(build_dir: Path) -> str:
    """The C++ compiler the grading build linked the runner with: the student's library must be
    linked by the same one (another g++ may bring another C++ runtime, static or shared)."""
    cache = (build_dir / "CMakeCache.txt").read_text(errors="replace")
    match = re.search(r"^CMAKE_CXX_COMPILER:\w+=(.+)$", cache, re.M)
    return match.group(1).strip() if match else "g++"


def cuda_library_folder(build_dir: Path) -> Path:
    """Where the grading build found libcudart (its CMake cache), for the student's library's link."""
    cache = (build_dir / "CMakeCache.txt").read_text(errors="replace")
    match = re.search(r"^CUDAToolkit_LIBRARY_DIR:\w+=(.+)$", cache, re.M)
    if match:
        return Path(match.group(1).strip())
    return Path("/usr/local/cuda/lib64")


def solution_folder(ctx: Context, lab: Lab, rubric: LabRubric) -> tuple[Path | None, str]:
    """The reference solution built as a student's submission is (same tree, compiler, link,
    runner), once per grading build and solution text."""
    files = {name: text.encode() for name, text in handed_in(ctx.repo, lab.folder).items() if name != predictions.NAME}
    digest = hashlib.sha256(
        b"".join(files[name] for name in sorted(files)) + (ctx.build / "compile_commands.json").read_bytes()
    ).hexdigest()[:16]
    cached = ctx.build / "grader" / f"lab{lab.number}" / "solution" / digest
    if (cached / "libsubmission.so").is_file():
        ctx.sandbox.prepare_readable(cached)
        return cached, ""
    folder, problems = _build_library(ctx, lab, rubric, files, "solution", None)
    if folder is None:
        return None, "the reference solution does not build as a submission: " + "; ".join(problems[:3])
    if cached.parent.exists():
        shutil.rmtree(cached.parent)
    shutil.copytree(folder, cached)
    ctx.sandbox.prepare_readable(cached)
    return cached, ""


def _runner(ctx: Context, lab: Lab, folder: Path, step: str) -> RunnerSpec:
    confined = (
        confinement.for_runner(ctx.sandbox, ctx.build, folder, ctx.work / f"lab{lab.number}" / "confinement.log")
        if ctx.sandbox.enabled
        else None
    )
    return RunnerSpec(folder, _scratch(ctx, lab, step), confined)


def _abnormal(step, what: str) -> tuple[str, str] | None:
    """(fatal kind, reason) when the runner crashed or hit a time limit, from the referee's events."""
    for event in step.events:
        where = f" in {event['test']}" if event.get("test") else ""
        if event.get("event") == "time limit":
            return TIME_LIMIT, f"{what}: {event.get('detail', '')}{where}"
        if event.get("event") == "crashed":
            return CRASHED, f"{what}: the submission's code {event.get('detail', '')}{where}"
    if step.completed.timed_out:
        return TIME_LIMIT, f"{what} exceeded the lab's time limit"
    return None


def _classify(
    outcomes: list[gtest.TestOutcome], rubric: LabRubric, unavailable: dict[str, str], run: LabRun
) -> list[gtest.TestOutcome]:
    """The referee's results against the rubric's test list: a missing test fails, an extra one is
    named, and a skip counts only as 'not implemented yet' or as this GPU's lack (the grader's
    reason or a capability the rubric lists); any other skip fails."""
    by_name = {t.name: t for t in outcomes}
    result = []
    for name in rubric.tests:
        test = by_name.pop(name, None)
        if test is None:
            test = gtest.TestOutcome(name, "failed", "did not run: the referee reported no result for it")
            run.test_list_problems.append(f"{name}: no result")
        elif test.status == "skipped":
            variant = rubric.variant_of_test(name)
            reason = unavailable.get(variant.name, "") if variant else ""
            allowed = (reason and reason in test.message) or any(
                p.search(test.message) for p in rubric.capability_skips
            )
            if not allowed:
                run.test_list_problems.append(f"{name}: skipped ({test.message}), which the rubric does not accept")
                test = gtest.TestOutcome(
                    name, "failed", f"skipped for a reason the grader does not accept: {test.message}", test.seconds
                )
        result.append(test)
    for name in by_name:
        run.test_list_problems.append(f"{name}: ran, but the rubric does not list it")
    return result


def _tests(ctx: Context, lab: Lab, rubric: LabRubric, folder: Path, env: dict, run: LabRun) -> bool:
    targets = build.lab_targets(ctx.build, lab.number, lab.folder)
    work = ctx.work / f"lab{lab.number}"
    xml = work / "tests.xml"
    xml.unlink(missing_ok=True)
    runner = _runner(ctx, lab, folder, "tests")
    limit = ctx.time_limit_s or rubric.time_limit_s
    step = run_referee(
        targets.referee, [f"--gtest_output=xml:{xml}"], runner.command(ctx.sandbox), work, "tests", env, limit
    )
    run.logs["tests"] = _publish(ctx, step.completed.log)
    run.logs["runner output"] = _publish(ctx, step.runner_log)
    if ended := _abnormal(step, "the grading tests"):
        run.fail(*ended)
        return False
    code = step.completed.returncode
    if code not in (0, 1) or not xml.is_file():
        run.fail(
            NOT_GRADED,
            f"the referee ended with {step.completed.signal_name or f'exit {code}'} "
            "before reporting (a grader problem; see the tests log)",
        )
        return False
    outcomes = gtest.parse_xml(xml)
    if (code == 0) != all(t.status != "failed" for t in outcomes):
        run.fail(NOT_GRADED, f"the referee's exit status ({code}) disagrees with its results (a grader problem)")
        return False
    run.tests = _classify(outcomes, rubric, run.unavailable, run)
    return True


_SUMMARY = re.compile(r"(?:ERROR SUMMARY|RACECHECK SUMMARY)[^\n]*?(\d+) (?:error|hazard)")
_DETAIL = re.compile(
    r"Invalid __\w+__ (read|write)|out of bounds|(Race|hazard) reported|Potential \w+ hazard|"
    r"Barrier error|Uninitialized __global__ memory read|divergent"
)


def _sanitizers(
    ctx: Context, lab: Lab, rubric: LabRubric, folder: Path, env: dict, run: LabRun, passed: list[str] = ()
) -> bool:
    if not rubric.sanitizers:
        # A lab whose graded code launches no kernels of its own (lab 10: the GPU work runs in the
        # referee's workers) has nothing in the runner for the sanitizer to watch.
        run.sanitizers = "none: the rubric names no tool for this lab"
        return True
    for tool in rubric.sanitizers:
        with run.timed(tool):
            if not _sanitizer(ctx, lab, rubric, folder, env, run, tool):
                return False
    run.sanitizers = f"{', '.join(rubric.sanitizers)} clean on {rubric.memcheck_filter.count(':') + 1} test patterns"
    # Bugs that only large sizes reach (an index past 2^31, a read past the end from a size on): memcheck
    # also watches one call of each variant that passed its tests and is timed, on the timed problem.
    scored = {v.name for v in rubric.variants if any(tier.points for tier in v.performance)}
    timed = [name for name in passed if name in scored and name not in run.unavailable]
    if "memcheck" in rubric.sanitizers and rubric.benchmark is not None and timed:
        with run.timed("memcheck (timed size)"):
            probe = ["--probe", ",".join(timed), "--out", str(ctx.work / f"lab{lab.number}" / "memcheck-timed.json")]
            if not _sanitizer(ctx, lab, rubric, folder, env, run, "memcheck", [*probe, *rubric.benchmark.args]):
                return False
        run.sanitizers += f", and memcheck on one call of {len(timed)} variants at the timed problem"
    return True


def _sanitizer(
    ctx: Context,
    lab: Lab,
    rubric: LabRubric,
    folder: Path,
    env: dict,
    run: LabRun,
    tool: str,
    referee_args: list[str] | None = None,
) -> bool:
    """The small shapes' tests (or `referee_args`: the referee's probe of the timed problem) under one
    compute-sanitizer tool; False with the lab failed."""
    targets = build.lab_targets(ctx.build, lab.number, lab.folder)
    step_name = tool if referee_args is None else f"{tool}-timed"
    runner = _runner(ctx, lab, folder, step_name)
    tool_file = runner.scratch / "tool.log"
    try:
        prefix = sanitizer_tool(tool, tool_file)
    except FileNotFoundError as error:
        run.fail(NOT_GRADED, f"compute-sanitizer {tool} cannot run: {error}")
        return False
    step = run_referee(
        targets.referee,
        referee_args if referee_args is not None else [f"--gtest_filter={rubric.memcheck_filter}"],
        runner.command(ctx.sandbox, prefix),
        ctx.work / f"lab{lab.number}",
        step_name,
        env,
        ctx.time_limit_s or rubric.time_limit_s,
        tool_file=tool_file,
    )
    run.logs[step_name] = _publish(ctx, step.tool_log)
    report = step.tool_log.read_text(errors="replace") if step.tool_log and step.tool_log.is_file() else ""
    counts = [int(n) for n in _SUMMARY.findall(report)]
    exits = [e for e in step.events if f"code {SANITIZER_ERROR_EXIT}" in e.get("detail", "")]
    if any(counts) or exits:
        lines = [line.strip().lstrip("=").strip() for line in report.splitlines() if _DETAIL.search(line)][:8]
        run.fail(
            SANITIZER_FATAL[tool],
            f"compute-sanitizer {tool}: " + (lines[0] if lines else f"{max(counts, default=0)} errors"),
            lines,
        )
        return False
    if ended := _abnormal(step, f"compute-sanitizer {tool}"):
        run.fail(*ended)
        return False
    if not counts:
        run.fail(NOT_GRADED, f"compute-sanitizer {tool} wrote no summary (see its log)")
        return False
    return True


def _probe_run(
    ctx: Context,
    lab: Lab,
    rules: technique.TechniqueRules,
    folder: Path,
    env: dict,
    run: LabRun,
    variants: list[str],
    targets,
    work: Path,
    probe_args: tuple[str, ...],
    time_limit_s: float,
    tag: str,
) -> dict[str, tuple[technique.VariantTechnique, str]] | None:
    """One referee run probing `variants` under Nsight Compute: variant -> (its verdict, the problem);
    {} when the report cannot be attributed (`tag` runs only: a runner that started again, a report
    without NVTX columns or no kernel in a range), None when the grading cannot go on (the run's
    failure is recorded)."""
    name = "probe-" + ("all" if len(variants) > 1 else variants[0])
    out = work / f"{name}.json"
    out.unlink(missing_ok=True)
    runner = _runner(ctx, lab, folder, name)
    tool_file = runner.scratch / "tool.log"
    step = run_referee(
        targets.referee,
        ["--probe", ",".join(variants), *(["--ranges", tag] if tag else []), "--out", str(out), *probe_args],
        runner.command(
            ctx.sandbox,
            ncu_tool(
                sorted(set(rules.metrics.values())),
                tool_file,
                nvtx=bool(tag),
                leave_out=(technique.warm_label(tag),) if tag else (),
            ),
        ),
        work,
        name,
        env,
        time_limit_s,
        tool_file=tool_file,
    )
    run.logs["profile" if len(variants) > 1 else f"profile ({variants[0]})"] = _publish(ctx, step.tool_log)
    written = json.loads(out.read_text()) if out.is_file() else {}
    probes = written.get("variants", {variants[0]: written} if written else {})
    tool_output = step.tool_log.read_text(errors="replace") if step.tool_log and step.tool_log.is_file() else ""
    if technique.no_permission(tool_output):
        run.fail(
            NOT_GRADED,
            "this node does not let users read the GPU's performance counters: the technique "
            "rules cannot be checked (grade elsewhere, or pass --no-technique)",
        )
        return None
    for variant in variants:
        if probes.get(variant, {}).get("grader_error"):
            run.fail(
                NOT_GRADED, f"{variant}: the probe's check is the grader's defect: {probes[variant]['grader_error']}"
            )
            return None
    kernels = technique.read_kernels(tool_output)
    if tag:
        attributed = technique.attribute(kernels, tag)
        restarted = len({p["runner_pid"] for p in probes.values() if "runner_pid" in p}) > 1
        # No kernel in any range: ranges this node's tools do not record (no worse than a run each).
        if attributed is None or restarted or (kernels and not attributed[0]):
            return {}
        by_variant, stray = attributed
    else:
        by_variant, stray = {variants[0]: kernels}, 0
    judged = {}
    for variant in variants:
        probe = probes.get(variant, {"ok": False, "error": "the referee wrote no probe"})
        ok, error = bool(probe.get("ok")), probe.get("error", "")
        if ok and stray:
            ok, error = False, (
                f"{stray} kernel(s) ran outside every variant's call (launched from another thread, or after "
                "a call returned): no kernel can be credited"
            )
        facts = {k: float(v) for k, v in probe.get("facts", {}).items()}
        judged[variant] = (
            technique.judge_kernels(variant, rules, ok, error, by_variant.get(variant, []), facts),
            str(probe.get("problem", "")),
        )
    return judged


def _technique(
    ctx: Context, lab: Lab, rubric: LabRubric, folder: Path, env: dict, run: LabRun, variants: list[str]
) -> None:
    rules = rubric.technique
    if rules is None:
        return
    if not ctx.check_technique:
        run.technique_note = "not checked: the instructor passed --no-technique"
        return
    if shutil.which("ncu") is None:
        run.fail(
            NOT_GRADED,
            "Nsight Compute (ncu) not found: the technique rules cannot be checked (install the "
            "CUDA toolkit's ncu, or pass --no-technique)",
        )
        return
    targets = build.lab_targets(ctx.build, lab.number, lab.folder)
    work = ctx.work / f"lab{lab.number}"
    probe_args = rules.draw_probe()  # one draw for the lab: the distinct rule compares like with like
    limit = ctx.time_limit_s or rubric.time_limit_s
    # Every variant probed in one runner under one Nsight Compute (its start-up paid once), each
    # call inside an NVTX range named with a tag drawn now, after an unmeasured call of its own. A
    # runner that had to start again (a call killed it) wrote a report of its own: then each variant
    # gets a run of its own, still in ranges; only an Nsight Compute that records no range counts a
    # variant's whole run, its warm-up included.
    judged = _probe_run(
        ctx, lab, rules, folder, env, run, variants, targets, work, probe_args, limit, secrets.token_hex(8)
    )
    if judged == {}:
        judged = {}
        for variant in variants:
            args = (ctx, lab, rules, folder, env, run, [variant], targets, work, probe_args, limit)
            one = _probe_run(*args, secrets.token_hex(8))
            if one == {}:
                one = _probe_run(*args, "")
            if one is None:
                return
            judged.update(one)
    if not judged:
        return
    problem = next((p for _, p in judged.values() if p), "")
    measured = {}
    for variant in variants:
        result = judged[variant][0]
        run.technique[variant] = result
        if result.measured:
            measured[variant] = result.measured
    for name, twin in technique.repeated(measured, rules).items():
        run.repeated[name] = (
            f"not distinct from {twin}: {rules.distinct_why}, yet both measured "
            f"{technique.describe({k: measured[name][k] for k in rules.distinct_metrics if k in measured[name]})}"
        )
    run.technique_note = (
        f"checked with Nsight Compute on {len(variants)} variants, on a problem drawn at grading time "
        f"({problem or ' '.join(probe_args)})"
    )


def _benchmark(
    ctx: Context, lab: Lab, rubric: LabRubric, folder: Path, env: dict, run: LabRun, variants: list[str]
) -> None:
    if rubric.benchmark is None or not variants:
        return
    with run.timed(REFERENCE_BUILD):  # cached after the class's first student: not a student's time
        reference, problem = solution_folder(ctx, lab, rubric)
    if reference is None:
        run.benchmark_note = problem
        return
    with run.timed("benchmark"):
        _timed_pairs(ctx, lab, rubric, folder, env, run, variants, reference)


def _timed_pairs(
    ctx: Context,
    lab: Lab,
    rubric: LabRubric,
    folder: Path,
    env: dict,
    run: LabRun,
    variants: list[str],
    reference: Path,
) -> None:
    """The referee's timed pairs, the student's runner against the reference solution's: each variant's rate."""
    targets = build.lab_targets(ctx.build, lab.number, lab.folder)
    work = ctx.work / f"lab{lab.number}"
    out = work / "bench.json"
    out.unlink(missing_ok=True)
    student = _runner(ctx, lab, folder, "bench-student")
    solution = _runner(ctx, lab, reference, "bench-solution")
    extra = {
        "CUDALABS_RUNNER_SOLUTION": json.dumps(solution.command(ctx.sandbox)),
        "CUDALABS_RUNNER_SOLUTION_OUTPUT": str(work / "bench-solution.runner.log"),
    }
    bench = rubric.benchmark
    step = run_referee(
        targets.referee,
        [
            "--bench",
            "--variants",
            ",".join(variants),
            "--pairs",
            str(bench.pairs),
            "--rounds",
            str(bench.rounds),
            "--out",
            str(out),
            *bench.args,
        ],
        student.command(ctx.sandbox),
        work,
        "bench",
        env,
        (ctx.time_limit_s or rubric.time_limit_s) * 2,
        extra,
    )
    run.logs["benchmark"] = _publish(ctx, step.completed.log)
    if not out.is_file():
        if ended := _abnormal(step, "the timed runs"):
            run.fail(*ended)
        else:
            run.benchmark_note = (
                f"the referee wrote no timings ({step.completed.signal_name or step.completed.returncode})"
            )
        return
    data = json.loads(out.read_text())
    unit = data.get("unit", "GFLOP/s")
    for variant in variants:
        rate = Rate(unit=data.get("variants", {}).get(variant, {}).get("unit", unit))
        students, solutions = [], []
        for pair in data.get("variants", {}).get(variant, {}).get("pairs", []):
            mine, theirs = pair.get("student", {}), pair.get("solution", {})
            if "grader_error" in mine or "grader_error" in theirs:
                problem = mine.get("grader_error") or theirs.get("grader_error")
                run.fail(NOT_GRADED, f"{variant}: the timed runs' check is the grader's defect: {problem}")
                return
            if "wrong" in mine:
                run.fail(WRONG_AFTER_TIMING, f"{variant}: {mine['wrong']}")
                return
            if "error" in mine:
                kind = TIME_LIMIT if "time limit" in mine["error"] else CRASHED
                run.fail(kind, f"{variant} during the timed runs: {mine['error']}")
                return
            if "median" in theirs:
                solutions.append(theirs["median"])
            else:
                run.benchmark_note = (
                    f"the reference solution's timing failed: {theirs.get('error') or theirs.get('wrong')}"
                )
            if "median" in mine:
                students.append(mine["median"])
                if "median" in theirs and theirs["median"] > 0:
                    rate.pair_fractions.append(mine["median"] / theirs["median"])
        rate.student = sorted(students)[len(students) // 2] if students else None
        rate.solution = sorted(solutions)[len(solutions) // 2] if solutions else None
        run.rates[variant] = rate


def _publish(ctx: Context, path: Path | None) -> str:
    """A work file named in the report, relative to it."""
    if path is None or not path.exists():
        return ""
    return str(path.relative_to(ctx.out))


def grade_lab(ctx: Context, lab: Lab, rubric: LabRubric, files: dict[str, bytes] | None) -> LabRun:
    run = LabRun(lab.number, lab.folder)
    if not files:
        return run.fail(MISSING, f"the submission has no {lab.folder}/kernels.cu")
    with run.timed("build"):
        folder, _ = _build_library(ctx, lab, rubric, files, "student", run)
    if folder is None:
        run.logs["build"] = _publish(ctx, ctx.work / f"lab{lab.number}" / "student" / "compile.log")
        return run
    command = build.compile_command(ctx.build, ctx.repo, lab.number, lab.folder)
    run.unavailable = unavailable_reasons(rubric, ctx.gpu, _built_architectures(command.argv))
    env = referee_environment(rubric.variant_lists(), run.unavailable, ctx.seed, rubric.call_time_limit_s)
    with run.timed("tests"):
        tested = _tests(ctx, lab, rubric, folder, env, run)
    if not tested:
        return run
    passed = [v.name for v in score_lab(rubric, run).variants if v.state == "passed"]
    if not _sanitizers(ctx, lab, rubric, folder, env, run, passed):
        return run
    if not passed:
        run.benchmark_note = "not run: no variant passed every test"
        return run
    with run.timed("technique"):
        _technique(ctx, lab, rubric, folder, env, run, passed)
    if run.fatal:
        return run
    timed = [
        name
        for name in passed
        if name not in run.repeated
        and (name not in run.technique or run.technique[name].passed)
        and any(t.points for t in [v for v in rubric.variants if v.name == name][0].performance)
    ]
    _benchmark(ctx, lab, rubric, folder, env, run, timed)
    return run
