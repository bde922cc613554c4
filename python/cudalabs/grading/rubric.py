"""The grading rubric (paths.RUBRIC): points, performance tiers, limits, the tests each
lab runs, what its code may include and call, and the technique its variants must show.

The file is validated as it is read, so that a typo in an instructor's edit is one clear line naming the
key and its value, not a wrong score.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..paths import test_list_name
from .integrity import Rules
from .technique import Rule, RuleError, TechniqueRules, validate_rule


class RubricError(ValueError):
    """The rubric file is unreadable or holds a bad value; the message names the key."""


@dataclass(frozen=True)
class Tier:
    fraction: float  # of the reference solution's rate
    points: float


@dataclass(frozen=True)
class Requirement:
    """What a variant needs of the grading GPU and build; the grader decides, never the student's code."""

    compute_capability: float = 0.0  # the GPU's, at least
    architecture: str = ""  # a target the grading build must hold, e.g. "90a"


@dataclass(frozen=True)
class VariantRubric:
    name: str
    correctness: float
    performance: tuple[Tier, ...]
    tests: re.Pattern  # matched (search) against "Suite.Test"
    listed_in: str = "variants"  # the lab.h function that lists it ("fp16_variants" for lab 11's FP16 rungs)
    requires: Requirement = Requirement()
    challenge: bool = False  # part of the lab's optional challenge: extra points beyond the lab's maximum

    @property
    def max_performance(self) -> float:
        return max((tier.points for tier in self.performance), default=0.0)

    @property
    def max_points(self) -> float:
        return self.correctness + self.max_performance


@dataclass(frozen=True)
class Benchmark:
    args: tuple[str, ...]  # the referee's problem flags, e.g. ("--size", "2048")
    pairs: int = 3  # reference then student, each pair on fresh inputs
    rounds: int = 5  # timed rounds per side and pair


@dataclass(frozen=True)
class LabRubric:
    number: str
    variants: tuple[VariantRubric, ...]
    build_time_limit_s: float
    time_limit_s: float
    call_time_limit_s: float
    benchmark: Benchmark | None
    memcheck_filter: str
    sanitizers: tuple[str, ...]
    unscored_tests: re.Pattern | None
    capability_skips: tuple[re.Pattern, ...]  # skip messages of the referee that mean "this machine cannot"
    integrity: Rules
    technique: TechniqueRules | None
    tests: tuple[str, ...]  # every test the referee must report, from the rubric's list file

    @property
    def max_points(self) -> float:
        """The core's points: the optional challenge's come on top (challenge_points)."""
        return sum(v.max_points for v in self.variants if not v.challenge)

    @property
    def challenge_points(self) -> float:
        return sum(v.max_points for v in self.variants if v.challenge)

    def variant_of_test(self, test_name: str) -> VariantRubric | None:
        """The variant a GoogleTest name ('Suite.Test') is scored under, or None."""
        for variant in self.variants:
            if variant.tests.search(test_name):
                return variant
        return None

    def is_unscored(self, test_name: str) -> bool:
        return self.unscored_tests is not None and bool(self.unscored_tests.search(test_name))

    def variant_lists(self) -> dict[str, list[str]]:
        """List name -> its variants, as the referee is told (CUDALABS_VARIANTS)."""
        lists: dict[str, list[str]] = {}
        for variant in self.variants:
            lists.setdefault(variant.listed_in, []).append(variant.name)
        return lists


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


def _strings(where: str, value) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise RubricError(f"{where} = {value!r}: expected a list of non-empty strings")
    return tuple(value)


def _object(where: str, value, keys: set[str], required: set[str] = frozenset()) -> dict:
    if not isinstance(value, dict):
        raise RubricError(f"{where} = {value!r}: expected an object")
    unknown = set(value) - keys
    if unknown:
        raise RubricError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    missing = required - set(value)
    if missing:
        raise RubricError(f"{where}: missing key {sorted(missing)[0]!r}")
    return value


def _tiers(where: str, value) -> tuple[Tier, ...]:
    if not isinstance(value, list):
        raise RubricError(f"{where} = {value!r}: expected a list of {{fraction, points}}")
    tiers = []
    for index, tier in enumerate(value):
        if not isinstance(tier, dict) or set(tier) != {"fraction", "points"}:
            raise RubricError(f'{where}[{index}] = {tier!r}: expected {{"fraction": F, "points": P}}')
        fraction = _number(f"{where}[{index}].fraction", tier["fraction"])
        if fraction <= 0.0:
            raise RubricError(f"{where}[{index}].fraction = {fraction}: must be above 0")
        tiers.append(Tier(fraction, _number(f"{where}[{index}].points", tier["points"])))
    return tuple(sorted(tiers, key=lambda t: -t.fraction))


def _symbol_groups(where: str, value) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, dict):
        raise RubricError(f"{where} = {value!r}: expected what-they-are-for -> list of symbol patterns")
    return {purpose: _strings(f"{where}.{purpose}", patterns) for purpose, patterns in value.items()}


def _integrity(where: str, defaults, settings) -> Rules:
    """The defaults' includes and symbol groups, plus a lab's extra_includes and extra_symbols; its
    denied_includes (globs on any file's full path)."""
    defaults = _object(
        "defaults.integrity", defaults, {"includes", "symbols", "toolchain_includes"}, {"includes", "symbols"}
    )
    settings = _object(
        f"{where}.integrity",
        settings,
        {"extra_includes", "extra_symbols", "denied_includes", "extra_toolchain_includes"},
    )
    includes = _strings("defaults.integrity.includes", defaults["includes"])
    toolchain = _strings("defaults.integrity.toolchain_includes", defaults.get("toolchain_includes", []))
    toolchain += _strings(f"{where}.integrity.extra_toolchain_includes", settings.get("extra_toolchain_includes", []))
    includes += _strings(f"{where}.integrity.extra_includes", settings.get("extra_includes", []))
    symbols = dict(_symbol_groups("defaults.integrity.symbols", defaults["symbols"]))
    for purpose, patterns in _symbol_groups(
        f"{where}.integrity.extra_symbols", settings.get("extra_symbols", {})
    ).items():
        symbols[purpose] = symbols.get(purpose, ()) + patterns
    denied = _strings(f"{where}.integrity.denied_includes", settings.get("denied_includes", []))
    return Rules(includes, symbols, denied, toolchain)


_TECHNIQUE_KEYS = {"metrics", "rules", "distinct", "probe_args", "probe_draw"}


def _technique(where: str, defaults, settings, variants: list[str]) -> TechniqueRules | None:
    if settings is None:
        return None
    defaults = _object("defaults.technique", defaults or {}, _TECHNIQUE_KEYS)
    settings = _object(f"{where}.technique", settings, _TECHNIQUE_KEYS, {"rules"})
    metrics = {**defaults.get("metrics", {}), **settings.get("metrics", {})}
    for alias, metric in metrics.items():
        if (
            not re.fullmatch(r"[a-z_][a-z0-9_]*", alias)
            or not isinstance(metric, str)
            or not re.fullmatch(r"[a-z0-9_]+__[a-z0-9_.]+", metric)
        ):
            raise RubricError(
                f"{where}.technique.metrics.{alias} = {metric!r}: expected alias -> Nsight Compute metric"
            )
    rules = []
    if not isinstance(settings["rules"], list) or not settings["rules"]:
        raise RubricError(f"{where}.technique.rules: expected at least one rule (a technique lab's rules fail closed)")
    for index, spec in enumerate(settings["rules"]):
        rwhere = f"{where}.technique.rules[{index}]"
        spec = _object(rwhere, spec, {"variants", "require", "why", "padding"}, {"variants", "require", "why"})
        names = _strings(f"{rwhere}.variants", spec["variants"])
        for name in names:
            if name != "*" and name not in variants:
                raise RubricError(f"{rwhere}.variants: {name!r} is not a variant of the lab")
        if (
            not isinstance(spec["require"], str)
            or not isinstance(spec["why"], str)
            or not spec["why"]
            or not isinstance(spec.get("padding", ""), str)
        ):
            raise RubricError(f"{rwhere}: require, why and padding are strings")
        try:
            validate_rule(spec["require"], set(metrics))
        except RuleError as error:
            raise RubricError(f"{rwhere}.require: {error}") from None
        rules.append(Rule(names, spec["require"], spec["why"], spec.get("padding", "")))
    covered = {name for rule in rules for name in (variants if "*" in rule.variants else rule.variants)}
    if set(variants) - covered:
        raise RubricError(
            f"{where}.technique.rules: no rule for {sorted(set(variants) - covered)[0]!r} "
            "(every variant of a technique lab has one)"
        )
    distinct = settings.get("distinct")
    measure, why, tolerance, may_repeat = (), "", 0.05, ()
    if distinct is not None:
        distinct = _object(
            f"{where}.technique.distinct", distinct, {"why", "measure", "tolerance", "may_repeat"}, {"why", "measure"}
        )
        measure = _strings(f"{where}.technique.distinct.measure", distinct["measure"])
        for alias in measure:
            if alias not in metrics:
                raise RubricError(f"{where}.technique.distinct.measure: {alias!r} is not a metric alias")
        why = distinct["why"]
        tolerance = _number(f"{where}.technique.distinct.tolerance", distinct.get("tolerance", 0.05))
        may_repeat = _strings(f"{where}.technique.distinct.may_repeat", distinct.get("may_repeat", []))
        for name in may_repeat:
            if name not in variants:
                raise RubricError(f"{where}.technique.distinct.may_repeat: {name!r} is not a variant of the lab")
    probe_args = _strings(f"{where}.technique.probe_args", settings.get("probe_args", defaults.get("probe_args", [])))
    draw = _probe_draw(f"{where}.technique.probe_draw", settings.get("probe_draw", defaults.get("probe_draw", {})))
    return TechniqueRules(metrics, tuple(rules), probe_args, measure, why, tolerance, may_repeat, draw)


def _probe_draw(where: str, value) -> dict[str, tuple[int, int, int]]:
    """flag -> [low, high, step]: whole numbers, low <= high, step >= 1, (high - low) a multiple of step."""
    if not isinstance(value, dict):
        raise RubricError(f"{where} = {value!r}: expected flag -> [low, high, step]")
    draw = {}
    for flag, bounds in value.items():
        if (
            not re.fullmatch(r"--[a-z][a-z0-9-]*", flag)
            or not isinstance(bounds, list)
            or len(bounds) != 3
            or not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)
            or not 1 <= bounds[0] <= bounds[1]
            or bounds[2] < 1
            or (bounds[1] - bounds[0]) % bounds[2]
        ):
            raise RubricError(
                f"{where}.{flag} = {bounds!r}: expected a flag and [low, high, step], whole numbers with "
                "1 <= low <= high and high - low a multiple of step"
            )
        draw[flag] = tuple(bounds)
    return draw


_LAB_KEYS = {
    "build_time_limit_s",
    "time_limit_s",
    "call_time_limit_s",
    "benchmark",
    "memcheck_filter",
    "sanitizers",
    "correctness",
    "performance",
    "unscored_tests",
    "capability_skips",
    "variants",
    "integrity",
    "technique",
    "tests",
}
_VARIANT_KEYS = {"correctness", "performance", "tests", "list", "requires", "challenge"}


def _variant(where: str, name: str, spec, merged: dict) -> VariantRubric:
    spec = _object(where, spec, _VARIANT_KEYS)
    tests = _pattern(f"{where}.tests", spec.get("tests", rf"^Grading\.{re.escape(name)}\."))
    if tests is None:
        raise RubricError(f"{where}.tests is empty: every variant needs its tests")
    requires = _object(f"{where}.requires", spec.get("requires", {}), {"compute_capability", "architecture"})
    challenge = spec.get("challenge", False)
    if not isinstance(challenge, bool):
        raise RubricError(f"{where}.challenge = {challenge!r}: expected true or false")
    return VariantRubric(
        name=name,
        correctness=_number(f"{where}.correctness", spec.get("correctness", merged.get("correctness"))),
        performance=_tiers(f"{where}.performance", spec.get("performance", merged.get("performance"))),
        tests=tests,
        listed_in=spec.get("list", "variants"),
        requires=Requirement(
            _number(f"{where}.requires.compute_capability", requires.get("compute_capability", 0.0)),
            str(requires.get("architecture", "")),
        ),
        challenge=challenge,
    )


def _test_list(where: str, rubric_dir: Path, name) -> tuple[str, ...]:
    if not isinstance(name, str) or not re.fullmatch(r"[\w./-]+", name):
        raise RubricError(f"{where}.tests = {name!r}: expected the name of a test list file beside the rubric")
    path = rubric_dir / name
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise RubricError(f"{where}.tests: {path} cannot be read ({error.strerror})") from None
    tests = tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))
    if not tests:
        raise RubricError(f"{where}.tests: {path} lists no test")
    return tests


def _lab(number: str, settings: dict, defaults: dict, rubric_dir: Path | None) -> LabRubric:
    where = f"labs.{number}"
    unknown = set(settings) - _LAB_KEYS
    if unknown:
        raise RubricError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    merged = {**defaults, **settings}
    variants_spec = merged.get("variants")
    if not isinstance(variants_spec, dict) or not variants_spec:
        raise RubricError(f"{where}.variants = {variants_spec!r}: expected at least one variant")
    variants = [_variant(f"{where}.variants.{name}", name, spec, merged) for name, spec in variants_spec.items()]
    benchmark = None
    if merged.get("benchmark") is not None:
        spec = _object(f"{where}.benchmark", merged["benchmark"], {"args", "pairs", "rounds"}, {"args"})
        benchmark = Benchmark(
            _strings(f"{where}.benchmark.args", spec["args"]) if spec["args"] else (),
            int(_number(f"{where}.benchmark.pairs", spec.get("pairs", 3), 1)),
            int(_number(f"{where}.benchmark.rounds", spec.get("rounds", 5), 1)),
        )
    memcheck_filter = merged.get("memcheck_filter")
    if not isinstance(memcheck_filter, str) or not memcheck_filter:
        raise RubricError(f"{where}.memcheck_filter = {memcheck_filter!r}: expected a GoogleTest filter")
    sanitizers = _strings(f"{where}.sanitizers", merged.get("sanitizers", ["memcheck", "racecheck", "synccheck"]))
    for tool in sanitizers:
        if tool not in ("memcheck", "racecheck", "synccheck", "initcheck"):
            raise RubricError(f"{where}.sanitizers: {tool!r} is not a compute-sanitizer tool")
    skips = tuple(
        _pattern(f"{where}.capability_skips", text)
        for text in _strings(f"{where}.capability_skips", merged.get("capability_skips", [])) or ()
    )
    return LabRubric(
        number=number,
        variants=tuple(variants),
        build_time_limit_s=_number(f"{where}.build_time_limit_s", merged.get("build_time_limit_s"), 1),
        time_limit_s=_number(f"{where}.time_limit_s", merged.get("time_limit_s"), 1),
        call_time_limit_s=_number(f"{where}.call_time_limit_s", merged.get("call_time_limit_s", 300), 1),
        benchmark=benchmark,
        memcheck_filter=memcheck_filter,
        sanitizers=sanitizers,
        unscored_tests=_pattern(f"{where}.unscored_tests", merged.get("unscored_tests", "")),
        capability_skips=skips,
        integrity=_integrity(where, defaults.get("integrity"), settings.get("integrity", {})),
        technique=_technique(where, defaults.get("technique"), settings.get("technique"), [v.name for v in variants]),
        tests=_test_list(where, rubric_dir, merged.get("tests", test_list_name(number))) if rubric_dir else (),
    )


def load_rubric(path: Path, with_test_lists: bool = True) -> Rubric:
    """Reads and validates the rubric; raises RubricError naming the bad key and value. Without
    test lists (the tool that writes them), every lab's `tests` is empty."""
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
            raise RubricError(f'labs.{number}: lab keys are two-digit numbers, e.g. "01"')
        if not isinstance(settings, dict):
            raise RubricError(f"labs.{number} = {settings!r}: expected an object")
        labs[number] = _lab(number, settings, defaults, Path(path).parent if with_test_lists else None)
    return Rubric(path=Path(path), labs=labs)
