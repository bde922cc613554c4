"""What grading one lab observed: the facts the score is computed from, and that the reports show.
Every fact here comes from the grader's own side: the toolchain's outputs on the student's object,
the referee's test results and events, Nsight Compute's and compute-sanitizer's reports, the
referee's timings."""
from __future__ import annotations

import statistics
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

from .gtest import TestOutcome
from .technique import VariantTechnique

# Why a lab scores 0 whatever its tests say.
MISSING = "missing"
COMPILE_ERROR = "does not compile"
INTEGRITY = "integrity rule broken"
CRASHED = "crashed"
TIME_LIMIT = "time limit"
MEMCHECK = "memcheck errors"
RACECHECK = "racecheck hazards"
SYNCCHECK = "synccheck errors"
INITCHECK = "initcheck errors"
WRONG_AFTER_TIMING = "wrong in a timed run"
NOT_GRADED = "could not be graded"  # the grader's own side failed: no score is given, the report says why

SANITIZER_FATAL = {"memcheck": MEMCHECK, "racecheck": RACECHECK, "synccheck": SYNCCHECK, "initcheck": INITCHECK}


# The step that builds the reference solution as a submission (timed against every student's): once per
# grading build and solution text, so a class pays it once, not per student (LabRun.per_student_seconds).
REFERENCE_BUILD = "reference build (once a class)"


@dataclass
class Rate:
    """A variant's median rate on the benchmark problem (in the unit the referee reports) and the
    student's fraction of the solution's rate in each pair of timed runs."""

    student: float | None = None
    solution: float | None = None
    unit: str = "GFLOP/s"
    pair_fractions: list[float] = field(default_factory=list)

    @property
    def fraction(self) -> float | None:
        """The median of the pairs' fractions (each pair timed the solution, then the student, on the
        same fresh inputs); without pairs, student over solution."""
        if self.pair_fractions:
            return statistics.median(self.pair_fractions)
        if self.student is None or not self.solution:
            return None
        return self.student / self.solution


@dataclass
class LabRun:
    number: str
    folder: str
    fatal: str | None = None  # one of the constants above, or None
    reason: str = ""  # one line for the report when fatal
    details: list[str] = field(default_factory=list)  # compiler errors, violations, sanitizer lines
    tests: list[TestOutcome] = field(default_factory=list)
    test_list_problems: list[str] = field(default_factory=list)  # missing or extra tests, skips not allowed
    sanitizers: str = "not run"
    rates: dict[str, Rate] = field(default_factory=dict)  # by variant name
    benchmark_note: str = ""
    technique: dict[str, VariantTechnique] = field(default_factory=dict)  # by variant
    technique_note: str = ""
    repeated: dict[str, str] = field(default_factory=dict)  # variant -> why it is another variant again
    logs: dict[str, str] = field(default_factory=dict)  # step -> log path, relative to the report
    built_on: list[str] = field(default_factory=list)  # earlier labs whose reference kernels it ran on
    unavailable: dict[str, str] = field(default_factory=dict)  # variant -> why this GPU cannot run it
    seconds: float = 0.0
    step_seconds: dict[str, float] = field(default_factory=dict)  # step -> wall-clock seconds, in order

    @property
    def per_student_seconds(self) -> float:
        """The lab's grading time less what a class pays once (the reference solution's build)."""
        return self.seconds - self.step_seconds.get(REFERENCE_BUILD, 0.0)

    @contextmanager
    def timed(self, step: str) -> Iterator[None]:
        """Adds the block's wall-clock time to `step`: where a lab's grading time goes (an instructor
        sizing a class's run, a grader made faster where it is slow)."""
        started = time.monotonic()
        try:
            yield
        finally:
            self.step_seconds[step] = self.step_seconds.get(step, 0.0) + time.monotonic() - started

    def fail(self, kind: str, reason: str, details: list[str] | None = None) -> "LabRun":
        self.fatal, self.reason = kind, reason
        if details:
            self.details = details
        return self
