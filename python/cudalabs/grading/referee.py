"""Running a lab's referee (trusted, the suite's code) against a runner (the student's library, in the
sandbox). The referee writes everything the grader reads (test results, events, probes, rates) into
the grader's own work folder, which no sandbox sees; the runner's only way out is its replies, which
the referee checks.

Steps: the grading tests; the same tests under each compute-sanitizer tool; one probe of each variant
under Nsight Compute; the timed pairs against the reference solution.
"""
from __future__ import annotations

import json
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .confinement import Confinement, under_writable
from .process import Completed, run_logged
from .sandbox import Limits, Sandbox

RUN_LIMITS = Limits(processes=256, file_bytes=1 << 30, data_bytes=96 << 30, cpu_seconds=7200)


@dataclass(frozen=True)
class RunnerSpec:
    """One runner: the folder holding a copy of the runner and the library it loads. In the sandbox
    the runner starts under its own confinement (confinement.py), inside any tool that watches it:
    the tool writes its report in the scratch folder, which the runner cannot write."""

    folder: Path  # runner + libsubmission.so (+ the confine launcher)
    scratch: Path  # the one folder the step's processes may write: the tool, never the runner
    confinement: Confinement | None = None  # None: the instructor's --unsandboxed

    def command(self, sandbox: Sandbox, tool: list[str] | None = None, extra_reads: list[Path] = ()) -> list[str]:
        confine = self.confinement.prefix(tool) if sandbox.enabled and self.confinement else []
        if confine and under_writable(self.scratch):
            raise ValueError(
                f"the scratch folder {self.scratch} lies under {under_writable(self.scratch)}, which the runner may "
                "write: the tool's report would be within its reach"
            )
        argv = [*(tool or []), *confine, str(self.folder / "runner")]
        return sandbox.command(
            argv,
            reads=[self.folder, *extra_reads],
            writes=[self.scratch],
            gpu=True,
            workdir=self.scratch,
            limits=RUN_LIMITS,
        )


@dataclass
class Step:
    """What one referee step left in the work folder."""

    completed: Completed
    events: list[dict] = field(default_factory=list)
    tool_log: Path | None = None
    runner_log: Path | None = None

    def events_of(self, *kinds: str) -> list[dict]:
        return [event for event in self.events if event.get("event") in kinds]


def read_events(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    events = []
    for line in path.read_text(errors="replace").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return events


def referee_environment(
    variants: dict[str, list[str]], unavailable: dict[str, str], seed: str, call_time_limit_s: float
) -> dict:
    return {
        **os.environ,
        "CUDALABS_SEED": seed,
        "CUDALABS_VARIANTS": json.dumps(variants),
        "CUDALABS_UNAVAILABLE": json.dumps(unavailable),
        "CUDALABS_CALL_TIME_LIMIT": str(call_time_limit_s),
    }


def run_referee(
    referee: Path,
    arguments: list[str],
    runner_command: list[str],
    work: Path,
    name: str,
    env: dict,
    time_limit_s: float,
    extra_env: dict | None = None,
    tool_file: Path | None = None,
) -> Step:
    """One referee run; its events, tool log and runner log under work/<name>.*

    `tool_file`: where the tool in runner_command writes its report (--log-file, in the runner's
    scratch). The report is read from there, never from the sandbox's stdout: code the runner loads
    prints to that stdout before the runner's main() moves its output aside (a static initialiser),
    and must not be able to forge a tool's lines."""
    events, tool, runner = work / f"{name}.events.jsonl", work / f"{name}.tool.log", work / f"{name}.runner.log"
    stdout = work / f"{name}.stdout.log" if tool_file else tool
    for path in (events, tool, runner, stdout):
        path.unlink(missing_ok=True)
    if tool_file:
        tool_file.unlink(missing_ok=True)
    step_env = {
        **env,
        "CUDALABS_RUNNER": json.dumps(runner_command),
        "CUDALABS_RUNNER_OUTPUT": str(runner),
        "CUDALABS_RUNNER_TOOL": str(stdout),
        "CUDALABS_REFEREE_EVENTS": str(events),
        **(extra_env or {}),
    }
    done = run_logged([str(referee), *arguments], work / f"{name}.log", time_limit_s, step_env)
    if tool_file:
        tool.write_text(read_regular_file(tool_file))
    return Step(done, read_events(events), tool, runner)


def read_regular_file(path: Path, max_bytes: int = 64 << 20) -> str:
    """A file of the sandbox's scratch as text, or "" when it is missing, a link or not a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return ""
        return file.read(max_bytes).decode(errors="replace")


# compute-sanitizer's tools, and the report lines that mean an error of each.
SANITIZER_ERROR_EXIT = 86


def sanitizer_tool(tool: str, log: Path) -> list[str]:
    sanitizer = shutil.which("compute-sanitizer")
    if sanitizer is None:
        raise FileNotFoundError("compute-sanitizer not found")
    return [
        sanitizer,
        "--tool",
        tool,
        "--error-exitcode",
        str(SANITIZER_ERROR_EXIT),
        "--print-limit",
        "8",
        "--log-file",
        str(log),
    ]


def ncu_tool(metrics: list[str], log: Path, nvtx: bool = False, leave_out: tuple[str, ...] = ()) -> list[str]:
    """Nsight Compute measuring `metrics` on every kernel; `nvtx`: each kernel's NVTX ranges in the
    report too (several probes in one run, told apart by the referee's ranges); `leave_out`: push/pop
    ranges whose kernels it does not profile (the warm-up calls: no rule reads them)."""
    ncu = shutil.which("ncu")
    if ncu is None:
        raise FileNotFoundError("Nsight Compute (ncu) not found")
    return [
        ncu,
        *(["--nvtx"] if nvtx else []),
        *[word for name in leave_out for word in ("--nvtx-exclude", name + "/")],
        "--clock-control",
        "none",
        "--target-processes",
        "all",
        "--metrics",
        ",".join(metrics),
        "--csv",
        "--page",
        "raw",
        "--log-file",
        str(log),
    ]
