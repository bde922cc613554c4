"""What grading one lab observed: the facts the score is computed from, and that the reports show."""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from .gtest import TestOutcome

# Why a lab scores 0 whatever its tests say.
MISSING = "missing"
COMPILE_ERROR = "does not compile"
CRASHED = "crashed"
TIME_LIMIT = "time limit"
MEMCHECK = "memcheck errors"
RACECHECK = "racecheck hazards"
SYNCCHECK = "synccheck errors"
INTEGRITY = "integrity rule broken"
WRONG_AFTER_TIMING = "wrong after timing"


@dataclass
class Rate:
    """A variant's median rate at the benchmark size, in the unit its benchmark reports, and the
    student's fraction of the solution's rate in each interleaved pair of runs."""
    student: float | None = None
    solution: float | None = None
    unit: str = "GFLOP/s"
    pair_fractions: list[float] = field(default_factory=list)

    @property
    def fraction(self) -> float | None:
        """The median of the pairs' fractions (the pairs ran solution then student, back to back, so
        a slow spell of a shared GPU hits both of a pair); without pairs, student over solution."""
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
    details: list[str] = field(default_factory=list)  # e.g. compiler errors, memcheck's first lines
    tests: list[TestOutcome] = field(default_factory=list)
    memcheck: str = "not run"
    rates: dict[str, Rate] = field(default_factory=dict)  # by variant name
    benchmark_note: str = ""
    repeated: dict[str, str] = field(default_factory=dict)  # variant -> why it is another variant again
    distinct_note: str = ""  # how the variants' distinctness was checked, or why it was not
    logs: dict[str, str] = field(default_factory=dict)  # step -> log path, relative to the report
    built_on: list[str] = field(default_factory=list)  # earlier labs whose reference kernels it ran on
    seconds: float = 0.0
