"""Scores from observations and the rubric. Pure functions: tested on the CPU with made-up runs."""
from __future__ import annotations

from dataclasses import dataclass, field

from .gtest import TestOutcome
from .lab_run import LabRun, Rate
from .rubric import LabRubric, VariantRubric


@dataclass
class VariantScore:
    name: str
    state: str  # passed | failed | not implemented yet | no tests | not run here | lab scored 0 |
    #             not distinct | technique not shown
    tests: list[TestOutcome] = field(default_factory=list)
    correctness: float = 0.0
    correctness_max: float = 0.0
    performance: float = 0.0
    performance_max: float = 0.0
    rate: Rate | None = None
    note: str = ""
    challenge: bool = False  # the lab's optional challenge: its points are extra

    @property
    def passed(self) -> int:
        return sum(t.status == "passed" for t in self.tests)

    @property
    def failing(self) -> list[TestOutcome]:
        return [t for t in self.tests if t.status not in ("passed", "skipped")]

    @property
    def not_run(self) -> list[TestOutcome]:
        """Tests the machine could not run (e.g. 'needs 2 GPUs'): they count neither way."""
        return [t for t in self.tests if t.status == "skipped"]

    @property
    def points(self) -> float:
        return self.correctness + self.performance

    @property
    def max_points(self) -> float:
        return self.correctness_max + self.performance_max


@dataclass
class LabScore:
    run: LabRun
    variants: list[VariantScore]
    unscored: list[TestOutcome]
    unmatched: list[TestOutcome]  # tests the rubric does not place: reported, never silently dropped

    @property
    def points(self) -> float:
        """Every point earned, the optional challenge's included (they may take it past max_points)."""
        return round(sum(v.points for v in self.variants), 2)

    @property
    def max_points(self) -> float:
        """The core's maximum: the optional challenge's points are extra."""
        return round(sum(v.max_points for v in self.variants if not v.challenge), 2)

    @property
    def challenge_points(self) -> float:
        return round(sum(v.points for v in self.variants if v.challenge), 2)

    @property
    def challenge_max_points(self) -> float:
        return round(sum(v.max_points for v in self.variants if v.challenge), 2)

    @property
    def tests_passed(self) -> int:
        return sum(v.passed for v in self.variants)

    @property
    def tests_total(self) -> int:
        return sum(len(v.tests) for v in self.variants)

    def tests_of(self, challenge: bool) -> tuple[int, int]:
        """(passed, total) over the core's variants, or the optional challenge's."""
        variants = [v for v in self.variants if v.challenge == challenge]
        return sum(v.passed for v in variants), sum(len(v.tests) for v in variants)


def performance_points(rubric: VariantRubric, fraction: float | None) -> float:
    """Credit that rises linearly through the tiers: 0 at no speed, each tier's points at its fraction
    of the solution's rate, the top tier's points from its fraction on. No cliff, so a few percent of
    noise moves a grade by a few percent of the points, never by a whole tier."""
    if fraction is None or not rubric.performance:
        return 0.0
    points = [(0.0, 0.0)] + [(tier.fraction, tier.points) for tier in reversed(rubric.performance)]
    if fraction >= points[-1][0]:
        return points[-1][1]
    for (low_f, low_p), (high_f, high_p) in zip(points, points[1:]):
        if fraction < high_f:
            return round(low_p + (high_p - low_p) * (max(fraction, 0.0) - low_f) / (high_f - low_f), 2)
    return points[-1][1]


def score_variant(
    rubric: VariantRubric,
    tests: list[TestOutcome],
    rate: Rate | None,
    fatal: bool,
    repeated: str = "",
    technique_failures: list[str] | None = None,
) -> VariantScore:
    score = VariantScore(
        rubric.name,
        "",
        tests,
        correctness_max=rubric.correctness,
        performance_max=rubric.max_performance,
        rate=rate,
        challenge=rubric.challenge,
    )
    if fatal:
        score.state = "lab scored 0"
        return score
    # A variant's own rules first: without its technique it is not the lesson, whatever it repeats; the
    # repeat is named beside the rule it broke.
    if technique_failures:  # right results, but not by the technique the variant teaches
        score.state = "technique not shown"
        score.note = "; ".join(technique_failures + ([repeated] if repeated else []))
        return score
    if repeated:  # the same kernel as another variant: its tests pass, but it is not what its name says
        score.state = "not distinct"
        score.note = repeated
        return score
    if not tests:
        score.state = "no tests"
        score.note = "no grading test ran for this variant"
        return score
    if any(t.status == "not_implemented" for t in tests):
        score.state = "not implemented yet"
        return score
    ran = len(tests) - len(score.not_run)
    not_run_note = "not run on this machine: " + "; ".join(f"{t.case} ({t.message})" for t in score.not_run)
    if ran == 0:
        score.state = "not run here"
        score.note = not_run_note
        return score
    score.correctness = round(rubric.correctness * score.passed / ran, 2)
    if score.not_run:
        score.note = not_run_note
    if score.passed < ran:
        score.state = "failed"
        score.note = "; ".join(filter(None, ["performance counts once every test passes", score.note]))
        return score
    score.state = "passed"
    fraction = rate.fraction if rate else None
    if fraction is None and rubric.max_performance > 0:  # a variant without speed points needs no rate
        missing = "no benchmark result" if not rate or rate.student is None else "no reference rate"
        score.note = "; ".join(filter(None, [missing, score.note]))
    score.performance = performance_points(rubric, fraction)
    return score


def score_lab(rubric: LabRubric, run: LabRun) -> LabScore:
    by_variant: dict[str, list[TestOutcome]] = {v.name: [] for v in rubric.variants}
    unscored, unmatched = [], []
    for test in run.tests:
        if rubric.is_unscored(test.name):
            unscored.append(test)
        elif (variant := rubric.variant_of_test(test.name)) is not None:
            by_variant[variant.name].append(test)
        else:
            unmatched.append(test)
    fatal = run.fatal is not None
    variants = [
        score_variant(
            v,
            by_variant[v.name],
            run.rates.get(v.name),
            fatal,
            run.repeated.get(v.name, ""),
            run.technique[v.name].failures if v.name in run.technique else None,
        )
        for v in rubric.variants
    ]
    return LabScore(run, variants, unscored, unmatched)
