"""Technique rules: what a variant's kernels must do on the GPU, measured by Nsight Compute while the
runner makes one call of that variant (the referee's probe). Every kernel the runner launched counts,
whatever its name or namespace: the runner links no library that launches kernels of its own.

A rule is an expression over the measurements (each metric summed over the kernels, with max_ and
min_ forms) and the problem's facts (m, n, k, mnk, flops, bytes...), for example
"ffma >= 0.95 * mnk and ffma >= 8 * 32 * lds" (the multiply-adds ran as FFMA on the GPU, eight of
them per value loaded from shared memory). Rules fail closed: no kernel measured, a metric missing,
a probe that failed, all fail the variant with the reason named.

The same measurements decide the rubric's distinct rule: two variants whose measurements agree are
one kernel under two names.
"""
from __future__ import annotations

import ast
import math
import operator
import random
import re
import secrets
from dataclasses import dataclass, field

from ..records import ncu_page

# What a failed rule says: its own words, then this and the formula with what was measured.
RULE_DETAIL = " (rule: "
_NO_PERMISSION = re.compile(r"ERR_NVGPUCTRPERM|does not have permission to access NVIDIA GPU Performance Counters")


@dataclass(frozen=True)
class Rule:
    variants: tuple[str, ...]  # the variants it applies to ("*" for all)
    require: str  # the expression
    why: str  # what it checks, in words, for the report
    padding: str = ""  # what an instruction that does no work costs under it (the instructors' guide)

    def applies_to(self, variant: str) -> bool:
        return "*" in self.variants or variant in self.variants


@dataclass(frozen=True)
class TechniqueRules:
    metrics: dict[str, str]  # alias -> Nsight Compute metric
    rules: tuple[Rule, ...]
    probe_args: tuple[str, ...]  # the referee's problem flags for the probe
    distinct_metrics: tuple[str, ...] = ()  # aliases whose agreement means "the same kernel"
    distinct_why: str = ""
    distinct_tolerance: float = 0.05
    may_repeat: tuple[str, ...] = ()  # variants that may repeat another (lab 07's best picks one)
    # flag -> (low, high, step): drawn at grading time, so that no file the student can read names
    # the shape the technique is measured on
    probe_draw: dict[str, tuple[int, int, int]] = field(default_factory=dict)

    def draw_probe(self, chooser: random.Random | None = None) -> tuple[str, ...]:
        """The probe's problem flags: the fixed ones, then each drawn flag's value, one of low,
        low + step, ... up to high, from the system's entropy (not the run's seed, which the report
        prints); every variant of the lab is probed on the same draw, so the distinct rule compares
        like with like."""
        chooser = chooser or secrets.SystemRandom()
        args = list(self.probe_args)
        for flag, (low, high, step) in self.probe_draw.items():
            args += [flag, str(low + step * chooser.randrange((high - low) // step + 1))]
        return tuple(args)


def no_permission(text: str) -> bool:
    return bool(_NO_PERMISSION.search(text))


def read_kernels(text: str) -> list[dict[str, str]]:
    """Every kernel row of ncu's `--csv --page raw` output (the runner's and ncu's own lines are
    skipped): metric name -> the cell's text."""
    return ncu_page.kernels(text)


def range_label(tag: str, variant: str) -> str:
    """The NVTX range the referee opens around one variant's probe call (--ranges TAG)."""
    return f"{tag}[{variant}]"


def warm_label(tag: str) -> str:
    """The NVTX range of the unmeasured call the referee makes before each probe: what a variant does
    once (a choice timed, a plan cached, a module loaded) is not the work of a call. One name for
    every variant's, so that Nsight Compute can be told to leave them all out (unprofiled, they cost
    the run no replay)."""
    return f"{tag}-warm"


def attribute(kernels: list[dict[str, str]], tag: str) -> tuple[dict[str, list[dict[str, str]]], int] | None:
    """Each kernel of a report of several probes (ncu --nvtx) filed under the one variant whose range
    it ran in: (variant -> its kernels, the number of kernels in no range or in more than one); the
    kernels of the warm-up calls (warm_label's ranges alone) are left out. None when the report has
    kernels but no NVTX column (an Nsight Compute that does not write them). Only the NVTX columns
    are read, and the tag is drawn at grading time, so a kernel's name cannot claim a range."""
    if kernels and not any("Range" in column for kernel in kernels for column in kernel):
        return None
    pattern = re.compile(re.escape(tag) + r"\[([A-Za-z0-9_]+)\]")
    warm = re.compile(re.escape(warm_label(tag)) + r"(?![A-Za-z0-9_\[-])")
    by_variant: dict[str, list[dict[str, str]]] = {}
    stray = 0
    for kernel in kernels:
        cells = [cell for column, cell in kernel.items() if "Range" in column]
        names = {name for cell in cells for name in pattern.findall(cell)}
        warmed = any(warm.search(cell) for cell in cells)
        if warmed and not names:
            continue
        if len(names) == 1 and not warmed:
            by_variant.setdefault(names.pop(), []).append(kernel)
        else:
            stray += 1
    return by_variant, stray


def _number(cell: str) -> float | None:
    text = cell.replace(",", "").strip()
    match = re.match(r"^\(?\s*(-?[0-9.]+(?:[eE][-+]?\d+)?)", text)  # "256" or "(256, 1, 1)"
    if not match:
        return None
    try:
        return float(match.group(1))
    except ValueError:
        return None


def aggregate(kernels: list[dict[str, str]], metrics: dict[str, str]) -> dict[str, float]:
    """Per alias: the sum over the kernels, and max_<alias>, min_<alias>; `kernels` their number.
    A metric absent from every kernel is absent here (a rule naming it fails)."""
    values: dict[str, float] = {"kernels": float(len(kernels))}
    for alias, metric in metrics.items():
        cells = [_number(kernel[metric]) for kernel in kernels if metric in kernel]
        cells = [c for c in cells if c is not None]
        if not cells:
            continue
        values[alias] = sum(cells)
        values[f"max_{alias}"] = max(cells)
        values[f"min_{alias}"] = min(cells)
    return values


class RuleError(ValueError):
    """A rule that cannot be evaluated: a name not measured, or a form the evaluator does not know."""


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_COMPARE = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}


def evaluate(expression: str, names: dict[str, float]) -> bool:
    """The rule's truth, from arithmetic, comparisons, and/or/not over `names` and numbers only."""

    def value(node: ast.AST):
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise RuleError(f"'{node.id}' was not measured")
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = value(node.left), value(node.right)
            if isinstance(node.op, ast.Div) and right == 0:
                return math.inf if left > 0 else (0.0 if left == 0 else -math.inf)
            return _BINARY[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not value(node.operand)
        if isinstance(node, ast.BoolOp):
            results = [value(v) for v in node.values]
            return all(results) if isinstance(node.op, ast.And) else any(results)
        if isinstance(node, ast.Compare):
            left = value(node.left)
            for op, comparator in zip(node.ops, node.comparators):
                right = value(comparator)
                if type(op) not in _COMPARE or not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        raise RuleError(f"'{ast.unparse(node)}' is not an expression a rule may use")

    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as error:
        raise RuleError(f"'{expression}' does not parse: {error.msg}") from None
    return bool(value(tree))


def validate_rule(expression: str, aliases: set[str]) -> None:
    """Raises RuleError when the expression is malformed (checked as the rubric is read)."""
    names = {name: 1.0 for name in aliases}
    names.update({f"max_{a}": 1.0 for a in aliases})
    names.update({f"min_{a}": 1.0 for a in aliases})
    names.update(
        {
            name: 1.0
            for name in (
                "kernels",
                "m",
                "n",
                "k",
                "mnk",
                "flops",
                "bytes",
                "outputs",
                "macs",
                "a_bytes",
                "b_bytes",
                "c_bytes",
                "threads",
                "factor",
                "count",
                "images",
                "taps",
                "scores",
            )
        }
    )
    evaluate(expression, names)


@dataclass
class VariantTechnique:
    """What the probe of one variant showed."""

    variant: str
    measured: dict[str, float] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)  # each broken rule, with why
    checked: list[str] = field(default_factory=list)  # each rule that held
    facts: dict[str, float] = field(default_factory=dict)  # the probed problem's, as the rules read them

    @property
    def passed(self) -> bool:
        return not self.failures


def judge(
    variant: str, rules: TechniqueRules, probe_ok: bool, probe_error: str, tool_output: str, facts: dict[str, float]
) -> VariantTechnique:
    """The variant's rules against its own probe's report (every kernel in it is the variant's)."""
    return judge_kernels(variant, rules, probe_ok, probe_error, read_kernels(tool_output), facts)


def judge_kernels(
    variant: str,
    rules: TechniqueRules,
    probe_ok: bool,
    probe_error: str,
    kernels: list[dict[str, str]],
    facts: dict[str, float],
) -> VariantTechnique:
    """The variant's rules against the kernels its call launched: fails closed on every missing piece."""
    result = VariantTechnique(variant, facts=dict(facts))
    applicable = [rule for rule in rules.rules if rule.applies_to(variant)]
    if not probe_ok:
        result.failures.append(f"the probe did not run: {probe_error}")
        return result
    if not kernels:
        result.failures.append("no kernel ran on the GPU during the variant's call (Nsight Compute measured none)")
        return result
    result.measured = aggregate(kernels, rules.metrics)
    names = {**facts, **result.measured}
    for rule in applicable:
        try:
            held = evaluate(rule.require, names)
        except RuleError as error:
            result.failures.append(f"{rule.why}: {error}")
            continue
        (result.checked if held else result.failures).append(
            rule.why
            if held
            else f"{rule.why}{RULE_DETAIL}{rule.require}; measured {describe(result.measured, rule.require)})"
        )
    return result


def describe(measured: dict[str, float], expression: str = "") -> str:
    """The measurements a rule names, in one short line."""
    wanted = set(re.findall(r"[A-Za-z_]\w*", expression)) if expression else set(measured)
    return ", ".join(f"{name} {value:.4g}" for name, value in sorted(measured.items()) if name in wanted) or "nothing"


def agree(first: dict[str, float], second: dict[str, float], names: tuple[str, ...], tolerance: float) -> bool:
    """True when every named measurement of the two is within `tolerance` of the larger one."""
    for name in names:
        if name not in first or name not in second:
            return False
        a, b = first[name], second[name]
        if abs(a - b) > tolerance * max(abs(a), abs(b)):
            return False
    return True


def repeated(measured: dict[str, dict[str, float]], rules: TechniqueRules) -> dict[str, str]:
    """Variant -> the earlier variant (in the given order) whose distinct measurements it repeats."""
    found: dict[str, str] = {}
    if not rules.distinct_metrics:
        return found
    kept: list[str] = []
    for name, values in measured.items():
        if name in rules.may_repeat:
            continue
        twin = next(
            (
                earlier
                for earlier in kept
                if agree(measured[earlier], values, rules.distinct_metrics, rules.distinct_tolerance)
            ),
            None,
        )
        if twin is None:
            kept.append(name)
        else:
            found[name] = twin
    return found
