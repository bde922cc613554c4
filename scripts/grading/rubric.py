"""The grading rubric (tests/grading/rubric.json): points, performance tiers, limits, per lab.

The file is validated as it is read, so that a typo in an instructor's edit is one clear line naming the
key and its value, not a wrong score.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .distinct import DistinctRule
from .integrity import Rules


class RubricError(ValueError):
    """The rubric file is unreadable or holds a bad value; the message names the key."""


@dataclass(frozen=True)
class Tier:
    fraction: float  # of the reference solution's rate
    points: float


@dataclass(frozen=True)
class VariantRubric:
    name: str
    correctness: float
    performance: tuple[Tier, ...]
    tests: re.Pattern  # matched (search) against "Suite.Test"
    benchmark: str  # Google Benchmark name prefix

    @property
    def max_performance(self) -> float:
        return max((tier.points for tier in self.performance), default=0.0)

    @property
    def max_points(self) -> float:
        return self.correctness + self.max_performance


@dataclass(frozen=True)
class MpiTests:
    """A GoogleTest program of the grading build run with `ranks` MPI ranks; its tests are scored like the
    grading binary's, by the variants' test patterns."""
    binary: str  # the target's name, under the build's tests/ folder
    ranks: int


@dataclass(frozen=True)
class LabRubric:
    number: str
    variants: tuple[VariantRubric, ...]
    build_time_limit_s: float
    time_limit_s: float
    benchmark_args: tuple[str, ...]
    memcheck_filter: str
    unscored_tests: re.Pattern | None
    integrity: Rules = Rules((), {})
    benchmark_pairs: int = 3
    distinct: DistinctRule | None = None  # what sets the variants apart, checked with Nsight Compute
    mpi_tests: MpiTests | None = None  # a second test program run under mpirun (lab 10's MPI parts)

    @property
    def max_points(self) -> float:
        return sum(v.max_points for v in self.variants)

    def variant_of_test(self, test_name: str) -> VariantRubric | None:
        """The variant a GoogleTest name ('Suite.Test') is scored under, or None."""
        for variant in self.variants:
            if variant.tests.search(test_name):
                return variant
        return None

    def is_unscored(self, test_name: str) -> bool:
        return self.unscored_tests is not None and bool(self.unscored_tests.search(test_name))


@dataclass(frozen=True)
class Rubric:
    path: Path
    labs: dict[str, LabRubric] = field(default_factory=dict)


def _number(where: str, value, minimum: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
        raise RubricError(f"{where} = {value!r}: expected a number >= {minimum}")
    return float(value)


def _pattern(where: str, text) -> re.Pattern | None:
    if not isinstance(text, str):
        raise RubricError(f"{where} = {text!r}: expected a regular expression string")
    if text == "":
        return None
    try:
        return re.compile(text)
    except re.error as error:
        raise RubricError(f"{where} = {text!r}: not a regular expression ({error})") from None


def _tiers(where: str, value) -> tuple[Tier, ...]:
    if not isinstance(value, list):
        raise RubricError(f"{where} = {value!r}: expected a list of {{fraction, points}}")
    tiers = []
    for index, tier in enumerate(value):
        if not isinstance(tier, dict) or set(tier) != {"fraction", "points"}:
            raise RubricError(f"{where}[{index}] = {tier!r}: expected {{\"fraction\": F, \"points\": P}}")
        fraction = _number(f"{where}[{index}].fraction", tier["fraction"])
        if fraction <= 0.0:
            raise RubricError(f"{where}[{index}].fraction = {fraction}: must be above 0")
        tiers.append(Tier(fraction, _number(f"{where}[{index}].points", tier["points"])))
    return tuple(sorted(tiers, key=lambda t: -t.fraction))


_LAB_KEYS = {"build_time_limit_s", "time_limit_s", "benchmark_args", "memcheck_filter", "correctness",
             "performance", "unscored_tests", "variants", "integrity", "benchmark_pairs", "distinct", "mpi_tests"}


def _strings(where: str, value) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise RubricError(f"{where} = {value!r}: expected a list of non-empty strings")
    return tuple(value)


def _integrity(where: str, defaults, settings) -> Rules:
    """The defaults' allowed includes and forbidden names, plus a lab's extra_includes."""
    if not isinstance(defaults, dict) or set(defaults) - {"allowed_includes", "forbidden"}:
        raise RubricError(f"defaults.integrity = {defaults!r}: expected {{allowed_includes, forbidden}}")
    if not isinstance(settings, dict) or set(settings) - {"extra_includes"}:
        raise RubricError(f"{where}.integrity = {settings!r}: a lab may only add extra_includes")
    includes = _strings("defaults.integrity.allowed_includes", defaults.get("allowed_includes", []))
    includes += _strings(f"{where}.integrity.extra_includes", settings.get("extra_includes", []))
    forbidden = defaults.get("forbidden", {})
    if not isinstance(forbidden, dict):
        raise RubricError(f"defaults.integrity.forbidden = {forbidden!r}: expected rule -> list of names")
    return Rules(includes, {rule: _strings(f"defaults.integrity.forbidden.{rule}", names)
                            for rule, names in forbidden.items()})


_DISTINCT_KEYS = {"why", "metrics", "args", "tolerance", "repeats"}


def _distinct(where: str, settings, variants: list[str]) -> DistinctRule | None:
    """A lab's distinct rule: why its variants differ, the ncu metrics that show it, the problem."""
    if settings is None:
        return None
    if not isinstance(settings, dict) or set(settings) - _DISTINCT_KEYS or not {"why", "metrics", "args"} <= set(settings):
        raise RubricError(f"{where}.distinct = {settings!r}: expected {{why, metrics, args[, tolerance, repeats]}}")
    if not isinstance(settings["why"], str) or not settings["why"]:
        raise RubricError(f"{where}.distinct.why = {settings['why']!r}: expected a sentence")
    metrics = _strings(f"{where}.distinct.metrics", settings["metrics"])
    for metric in metrics:
        if not re.fullmatch(r"[a-z0-9_]+__[a-z0-9_.]+", metric):
            raise RubricError(f"{where}.distinct.metrics: {metric!r} is not an Nsight Compute metric name")
    tolerance = _number(f"{where}.distinct.tolerance", settings.get("tolerance", 0.05))
    if not 0.0 < tolerance < 1.0:
        raise RubricError(f"{where}.distinct.tolerance = {tolerance}: expected a fraction between 0 and 1")
    repeats = _strings(f"{where}.distinct.repeats", settings.get("repeats", []))
    for name in repeats:
        if name not in variants:
            raise RubricError(f"{where}.distinct.repeats: {name!r} is not a variant of the lab")
    return DistinctRule(settings["why"], metrics, _strings(f"{where}.distinct.args", settings["args"]), tolerance,
                        repeats)


def _mpi_tests(where: str, settings) -> MpiTests | None:
    if settings is None:
        return None
    if not isinstance(settings, dict) or set(settings) != {"binary", "ranks"} or not isinstance(settings["binary"], str) \
            or not re.fullmatch(r"\w+", settings["binary"]):
        raise RubricError(f"{where}.mpi_tests = {settings!r}: expected {{\"binary\": TARGET, \"ranks\": R}}")
    return MpiTests(settings["binary"], int(_number(f"{where}.mpi_tests.ranks", settings["ranks"], 1)))


_VARIANT_KEYS = {"correctness", "performance", "tests", "benchmark"}


def _lab(number: str, settings: dict, defaults: dict) -> LabRubric:
    where = f"labs.{number}"
    unknown = set(settings) - _LAB_KEYS
    if unknown:
        raise RubricError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    merged = {**defaults, **settings}
    integrity = _integrity(where, defaults.get("integrity", {}), settings.get("integrity", {}))
    variants_spec = merged.get("variants")
    if not isinstance(variants_spec, dict) or not variants_spec:
        raise RubricError(f"{where}.variants = {variants_spec!r}: expected at least one variant")
    variants = []
    for name, spec in variants_spec.items():
        vwhere = f"{where}.variants.{name}"
        if not isinstance(spec, dict):
            raise RubricError(f"{vwhere} = {spec!r}: expected an object")
        unknown = set(spec) - _VARIANT_KEYS
        if unknown:
            raise RubricError(f"{vwhere}: unknown key {sorted(unknown)[0]!r}")
        tests = _pattern(f"{vwhere}.tests", spec.get("tests", rf"^Grading\.{re.escape(name)}\."))
        if tests is None:
            raise RubricError(f"{vwhere}.tests is empty: every variant needs its tests")
        variants.append(VariantRubric(
            name=name,
            correctness=_number(f"{vwhere}.correctness", spec.get("correctness", merged.get("correctness"))),
            performance=_tiers(f"{vwhere}.performance", spec.get("performance", merged.get("performance"))),
            tests=tests,
            benchmark=spec.get("benchmark", f"lab{number}/{name}/")))
    args = merged.get("benchmark_args")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise RubricError(f"{where}.benchmark_args = {args!r}: expected a list of strings")
    memcheck_filter = merged.get("memcheck_filter")
    if not isinstance(memcheck_filter, str) or not memcheck_filter:
        raise RubricError(f"{where}.memcheck_filter = {memcheck_filter!r}: expected a GoogleTest filter")
    return LabRubric(
        number=number,
        variants=tuple(variants),
        build_time_limit_s=_number(f"{where}.build_time_limit_s", merged.get("build_time_limit_s"), 1),
        time_limit_s=_number(f"{where}.time_limit_s", merged.get("time_limit_s"), 1),
        benchmark_args=tuple(args),
        memcheck_filter=memcheck_filter,
        unscored_tests=_pattern(f"{where}.unscored_tests", merged.get("unscored_tests", "")),
        integrity=integrity,
        benchmark_pairs=int(_number(f"{where}.benchmark_pairs", merged.get("benchmark_pairs", 3), 1)),
        distinct=_distinct(where, settings.get("distinct"), [v.name for v in variants]),
        mpi_tests=_mpi_tests(where, settings.get("mpi_tests")))


def load_rubric(path: Path) -> Rubric:
    """Reads and validates the rubric; raises RubricError naming the bad key and value."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as error:
        raise RubricError(f"rubric {path}: cannot be read ({error.strerror})") from None
    except json.JSONDecodeError as error:
        raise RubricError(f"rubric {path}: not JSON (line {error.lineno}: {error.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("labs"), dict):
        raise RubricError(f"rubric {path}: expected an object with 'labs'")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise RubricError(f"defaults = {defaults!r}: expected an object")
    labs = {}
    for number, settings in data["labs"].items():
        if not re.fullmatch(r"\d\d", number):
            raise RubricError(f"labs.{number}: lab keys are two-digit numbers, e.g. \"01\"")
        if not isinstance(settings, dict):
            raise RubricError(f"labs.{number} = {settings!r}: expected an object")
        labs[number] = _lab(number, settings, defaults)
    return Rubric(path=Path(path), labs=labs)
