"""GEMM shapes nobody picked: lab 07's `best` against cuBLAS SGEMM and lab 11's `best` against cuBLAS BF16
on shapes drawn at random from a stated distribution (scripts/gemm-random-shapes).

A sweep of named shapes invites tuning to the names; a draw with a seed chosen at run time does not. This
module draws the shapes, runs each lab's driver once on all of them (one process per lab, Google Benchmark's
random interleaving of the repetitions), reads the drivers' records with labdata.Results and writes the
summary: per shape the ratio cuBLAS time / `best` time (medians), its geometric mean, its 10th percentile,
the five worst shapes and the shares of the shape classes, against the goals in LABS.

The distribution (Distribution.describe says it in words, and every record carries it):
- K: a log-uniform integer in [16, 16384] (P(x) proportional to ln((x + 1) / x)); a multiple of 8, except in
  the K-tail share (25 %), where K % 8 != 0.
- M and N: log-uniform integers in [65, 16384], M any integer; except in the small share (20 %), where M
  (half of them) or N (the other half) is a log-uniform integer in [1, 64].
- N (which sets the leading dimension of B and C: the drivers' operands are row-major and tight, lda = K,
  ldb = ldc = N): a multiple of 8 only in the N-aligned share (25 %), N % 8 != 0 elsewhere, so that most
  rows of B and C start off 16-byte alignment, as most shapes users have do (a vocabulary of 50,257 words).
  So the shares of "M or N at most 64", "K % 8 != 0" and "N % 8 != 0" are exact, not left to chance.
- A shape is drawn again while A, B and C in FP32 exceed the memory cap together (2 GiB) or any one of them
  its own cap (1 GiB), or the shape was drawn before.
Which shapes are small and which have a K tail is a shuffle of fixed counts, so the two classes overlap as
chance has it.

Files under OUT_DIR:
- gemm_random_shapes_draw.json: the seed, the distribution and the shapes (what --summarize reads)
- lab07_random_<device>.json, lab11_random_<device>.json (and .log): the drivers' Google Benchmark records
- gemm_random_shapes_<device>.json and .txt: the summary, with device, date, git commit, command and seed
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import math
import os
import pathlib
import random
import shlex
import subprocess
import sys
import time

from cudalabs.records import labdata
from cudalabs.records.benchmark import device_slug

PROGRAM = "gemm-random-shapes"
DRAW_FILE = "gemm_random_shapes_draw.json"
SUMMARY_STEM = "gemm_random_shapes"
RESULTS_TAG = "random"  # the drivers' --results-tag: OUT_DIR/labNN_random_<device>.json
GIB = 1 << 30
MAX_COUNT = 2000
MIN_SHAPES_FOR_GOALS = 100  # fewer measured shapes are not judged against the goals
# What the drivers accept (common/gemm_types.cpp): sizes up to 2^20, each matrix indexable in 32 bits.
DRIVER_MAX_DIM = 1 << 20
INDEX_LIMIT = (1 << 31) - 1
# Linux refuses one command-line argument longer than this (MAX_ARG_STRLEN): --shapes must be shorter.
MAX_ARGUMENT_BYTES = 131072
# The drivers' timing copies are sized against the L2 (common/gemm_lab_driver.cpp, TimingInputs): the
# estimate of their device memory assumes the H100's and H200's 50 MiB.
L2_BYTES = 50 << 20
# 2 ** 63 - 1: what the drivers' --seed takes (the same seed draws the shapes and seeds their inputs).
MAX_SEED = (1 << 63) - 1
# The drivers' timing: medians of 3 repetitions of at least 0.01 s each (the drivers' default is 0.05 s):
# each repetition is still several launches of the largest shapes and thousands of the smallest, and
# both labs' 120 shapes take about a minute and a half of a GPU.
REPETITIONS = 3
MIN_TIME = 0.01


@dataclasses.dataclass(frozen=True)
class Lab:
    """One lab's side of the benchmark: its driver, its reference and its goals."""

    number: str
    precision: str
    reference: str  # the reference's benchmark name prefix in the driver's record
    reference_name: str
    geomean_goal: float
    p10_goal: float
    # The driver's timing sets per shape, each as the bytes it keeps per element of A and B (C is FP32 in
    # all): lab 07 one FP32 set; lab 11 a BF16 set with FP32 copies of A and B (cuBLAS in TF32). Its FP16
    # pass is not run: --variant best names no FP16 rung.
    timing_sets: tuple

    @property
    def record_prefix(self):
        return f"lab{self.number}_{RESULTS_TAG}_"


LABS = {
    "07": Lab("07", "FP32", "cublas", "cuBLAS SGEMM", 1.00, 0.95, (4,)),
    "11": Lab("11", "BF16", "cublas_bf16", "cuBLAS BF16 (FP32 sums and C)", 1.00, 0.90, (2 + 4,)),
}


class BadInput(ValueError):
    """A bad argument or file: the command line prints its one line and exits 2."""


@dataclasses.dataclass(frozen=True)
class Distribution:
    """The stated distribution the shapes are drawn from (see the module's docstring)."""

    count: int = 120
    min_dim: int = 16
    max_dim: int = 16384
    small_share: float = 0.20
    small_min: int = 1
    small_max: int = 64
    k_tail_share: float = 0.25
    n_aligned_share: float = 0.25
    align: int = 8
    max_gib: float = 2.0
    max_operand_gib: float = 1.0

    def check(self):
        """Raises BadInput when the parameters cannot draw a shape (or are not what the drivers take)."""
        if not 1 <= self.count <= MAX_COUNT:
            raise BadInput(f"count: {self.count} is not from 1 to {MAX_COUNT}")
        if not 1 <= self.small_min <= self.small_max < self.max_dim <= DRIVER_MAX_DIM:
            raise BadInput("dimensions: need 1 <= small_min <= small_max < max_dim <= 2^20")
        if not self.min_dim <= self.max_dim or self.min_dim < 1:
            raise BadInput("dimensions: need 1 <= min_dim <= max_dim")
        if self.align < 2 or self.max_dim - max(self.min_dim, self.small_max + 1) < 2 * self.align:
            raise BadInput("align: need align >= 2 and room for two multiples of it in every range")
        for name in ("small_share", "k_tail_share", "n_aligned_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise BadInput(f"{name}: {getattr(self, name)} is not from 0 to 1")
        for name in ("max_gib", "max_operand_gib"):
            if not getattr(self, name) > 0.0:
                raise BadInput(f"{name}: {getattr(self, name)} is not positive")

    @property
    def bulk_min(self):
        """The least M or N outside the small share: above small_max, so that the small share is exact."""
        return max(self.min_dim, self.small_max + 1)

    def counts(self):
        """(small M, small N, K tail): how many shapes of `count` each class has, rounded half up."""
        small = math.floor(self.count * self.small_share + 0.5)
        tail = math.floor(self.count * self.k_tail_share + 0.5)
        return (small + 1) // 2, small // 2, tail

    def aligned_n_count(self):
        """How many shapes of `count` have N a multiple of `align`, rounded half up."""
        return math.floor(self.count * self.n_aligned_share + 0.5)

    def describe(self):
        share = lambda value: f"{100 * value:g} %"  # noqa: E731 - a local formatter
        return (
            f"{self.count} shapes; M, N and K log-uniform integers (P(x) proportional to ln((x + 1) / x)): "
            f"K in [{self.min_dim}, {self.max_dim}], a multiple of {self.align} except in the K-tail share "
            f"({share(self.k_tail_share)}: K % {self.align} != 0); M and N in [{self.bulk_min}, {self.max_dim}], "
            f"except in the small share ({share(self.small_share)}: half with M, half with N in "
            f"[{self.small_min}, {self.small_max}]); M any integer; N % {self.align} != 0 except in the N-aligned "
            f"share ({share(self.n_aligned_share)}: N a multiple of {self.align}); drawn again while A, B and C "
            f"in FP32 exceed {self.max_gib:g} GiB together or "
            f"{self.max_operand_gib:g} GiB each, or the shape was drawn before"
        )

    def as_record(self):
        return dict(dataclasses.asdict(self), description=self.describe())

    @classmethod
    def from_record(cls, record):
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in record.items() if k in fields})


@dataclasses.dataclass(frozen=True)
class Shape:
    m: int
    n: int
    k: int

    @property
    def label(self):
        """As the drivers name a problem (GemmShape::label): MxNxK."""
        return f"{self.m}x{self.n}x{self.k}"

    @classmethod
    def parse(cls, label):
        m, n, k = (int(part) for part in label.split("x"))
        return cls(m, n, k)

    def operand_elements(self):
        return self.m * self.k, self.k * self.n, self.m * self.n

    def fp32_bytes(self):
        """A, B and C in FP32, tight."""
        return 4 * sum(self.operand_elements())

    def flops(self):
        return 2 * self.m * self.n * self.k

    def small(self, dist):
        return min(self.m, self.n) <= dist.small_max

    def k_tail(self, dist):
        return self.k % dist.align != 0

    def n_unaligned(self, dist):
        return self.n % dist.align != 0


def fresh_seed():
    """A seed chosen at run time: the operating system's randomness, else the clock."""
    try:
        return int.from_bytes(os.urandom(8), "little") & MAX_SEED
    except NotImplementedError:
        return (time.time_ns() ^ (os.getpid() << 40)) & MAX_SEED


def log_uniform(rng, low, high, accept=lambda value: True):
    """An integer in [low, high] with P(x) proportional to ln((x + 1) / x), drawn again until `accept`."""
    while True:
        value = min(high, int(math.exp(rng.uniform(math.log(low), math.log(high + 1)))))
        if accept(value):
            return value


def fits(shape, dist):
    """Under the caps of the distribution and within what the drivers index in 32 bits."""
    elements = shape.operand_elements()
    return (
        shape.fp32_bytes() <= dist.max_gib * GIB
        and all(4 * e <= dist.max_operand_gib * GIB for e in elements)
        and all(e <= INDEX_LIMIT for e in elements)
    )


MAX_TRIES = 100000  # per shape: caps that leave (almost) nothing to draw are refused, not looped on


def draw(dist, seed):
    """The shapes of `dist` drawn with `seed`, and how often the caps and duplicates made a shape redrawn."""
    dist.check()
    rng = random.Random(seed)
    small_m, small_n, tails = dist.counts()
    small_roles = ["m"] * small_m + ["n"] * small_n + [None] * (dist.count - small_m - small_n)
    tail_roles = [True] * tails + [False] * (dist.count - tails)
    aligned_n = dist.aligned_n_count()
    n_roles = [True] * aligned_n + [False] * (dist.count - aligned_n)
    rng.shuffle(small_roles)
    rng.shuffle(tail_roles)
    rng.shuffle(n_roles)
    aligned = lambda value: value % dist.align == 0  # noqa: E731
    shapes, seen, redrawn = [], set(), {"caps": 0, "duplicates": 0}
    for small, tail, n_aligned in zip(small_roles, tail_roles, n_roles):
        n_rule = aligned if n_aligned else (lambda v: not aligned(v))
        for _ in range(MAX_TRIES):
            if small == "m":
                m = log_uniform(rng, dist.small_min, dist.small_max)
            else:
                m = log_uniform(rng, dist.bulk_min, dist.max_dim)
            if small == "n":
                n = log_uniform(rng, dist.small_min, dist.small_max, n_rule)
            else:
                n = log_uniform(rng, dist.bulk_min, dist.max_dim, n_rule)
            k = log_uniform(rng, dist.min_dim, dist.max_dim, (lambda v: not aligned(v)) if tail else aligned)
            shape = Shape(m, n, k)
            if not fits(shape, dist):
                redrawn["caps"] += 1
            elif shape.label in seen:
                redrawn["duplicates"] += 1
            else:
                break
        else:
            raise BadInput(
                f"the caps ({dist.max_gib:g} GiB per shape, {dist.max_operand_gib:g} GiB per operand) leave "
                f"no shape to draw after {MAX_TRIES} tries"
            )
        seen.add(shape.label)
        shapes.append(shape)
    return shapes, redrawn


def shapes_argument(shapes):
    """The drivers' --shapes argument, refused if Linux would not pass it."""
    text = ",".join(shape.label for shape in shapes)
    if len(text.encode()) >= MAX_ARGUMENT_BYTES:
        raise BadInput(f"--shapes would be {len(text)} bytes, more than one argument may hold ({MAX_ARGUMENT_BYTES})")
    return text


def timing_bytes(shape, lab, l2_bytes=L2_BYTES):
    """Device memory the driver keeps for timing one shape until it exits (TimingInputs): per timing set, one
    copy of A, B and C, copied until the copies fill twice the L2, at most 8."""
    a, b, c = shape.operand_elements()
    total = 0
    for element_bytes in lab.timing_sets:
        one_set = (a + b) * element_bytes + c * 4
        total += min(max(-(-2 * l2_bytes // one_set), 1), 8) * one_set
    return total


def room_bytes(shape):
    """What the driver requires free before it starts (require_room): four times A, B and C in FP32."""
    return 4 * shape.fp32_bytes()


def device_estimate(shapes, lab, l2_bytes=L2_BYTES):
    """The driver's device memory at its peak for the whole list (an estimate): every shape's timing copies,
    which it holds until it exits, plus the largest shape's checks."""
    return sum(timing_bytes(s, lab, l2_bytes) for s in shapes) + max(room_bytes(s) for s in shapes)


# ---- Summary ------------------------------------------------------------------------------------------


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def percentile(values, fraction):
    """Linear interpolation between the order statistics (numpy's default): fraction 0.1 is the 10th
    percentile."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


TIME_UNITS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def median_ms(entry):
    return entry["real_time"] * TIME_UNITS[entry.get("time_unit", "ms")]


def ratios_of(results, lab, labels):
    """{label: (best ms, reference ms)} for every drawn shape the record times both at (medians)."""
    times = {}
    for label in labels:
        best = next(
            (b for b in results.entries(label) if b["run_name"] == f"lab{lab.number}/best/{label}"),
            None,
        )
        reference = next((b for b in results.entries(label) if b["run_name"] == f"{lab.reference}/{label}"), None)
        if best is not None and reference is not None and median_ms(best) > 0 and median_ms(reference) > 0:
            times[label] = (median_ms(best), median_ms(reference))
    return times


def goal_check(value, goal):
    return {"goal": goal, "measured": value, "met": value >= goal}


def lab_summary(results, lab, shapes, dist):
    """One lab's part of the summary: ratios, geometric mean, 10th percentile, worst five, classes, goals."""
    labels = [s.label for s in shapes]
    times = ratios_of(results, lab, labels)
    ratios = {label: reference / best for label, (best, reference) in times.items()}
    missing = [label for label in labels if label not in ratios]
    context = results.context
    part = {
        "precision": lab.precision,
        "variant": "best",
        "reference": lab.reference,
        "reference_name": lab.reference_name,
        "record": results.path.name,
        "run": {key: context.get(key) for key in ("device", "date", "git_commit", "command", "seed")},
        "repetitions": next((b.get("repetitions") for b in results.medians), None),
        "measured": len(ratios),
        "missing": missing,
        "ratios": ratios,
        "times_ms": {label: {"best": best, lab.reference: ref} for label, (best, ref) in times.items()},
    }
    if not ratios:
        part.update(verdict="not met", reason="no shape was timed on both sides")
        return part
    values = list(ratios.values())
    part["geomean"] = geomean(values)
    part["p10"] = percentile(values, 0.10)
    part["worst"] = [{"shape": label, "ratio": ratios[label]} for label in sorted(ratios, key=ratios.get)[:5]]
    by_shape = {s.label: s for s in shapes}
    classes = {
        "small_mn": lambda s: s.small(dist),
        "k_tail": lambda s: s.k_tail(dist),
        "n_unaligned": lambda s: s.n_unaligned(dist),
        "other": lambda s: not s.small(dist) and not s.k_tail(dist),
    }
    part["classes"] = {}
    for name, member in classes.items():
        chosen = [ratios[label] for label in ratios if member(by_shape[label])]
        part["classes"][name] = {"count": len(chosen), "geomean": geomean(chosen) if chosen else None}
    part["goals"] = {
        "geomean": goal_check(part["geomean"], lab.geomean_goal),
        "p10": goal_check(part["p10"], lab.p10_goal),
    }
    if missing:
        part.update(
            verdict="not met",
            reason=f"{len(missing)} of {len(labels)} shapes have no timing of best and {lab.reference_name} "
            "(a variant that fails its check is not timed: see the driver's log)",
        )
    elif len(ratios) < MIN_SHAPES_FOR_GOALS:
        part.update(
            verdict="not judged", reason=f"{len(ratios)} shapes; the goals ask for at least {MIN_SHAPES_FOR_GOALS}"
        )
    else:
        met = all(check["met"] for check in part["goals"].values())
        part.update(verdict="met" if met else "not met", reason="")
    return part


def shares(shapes, dist):
    count = len(shapes)
    return {
        "small_m": sum(s.m <= dist.small_max for s in shapes) / count,
        "small_n": sum(s.n <= dist.small_max for s in shapes) / count,
        "small_mn": sum(s.small(dist) for s in shapes) / count,
        "k_tail": sum(s.k_tail(dist) for s in shapes) / count,
        "n_unaligned": sum(s.n_unaligned(dist) for s in shapes) / count,
    }


def git_commit(repo):
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short=7", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def matching_records(out_dir, lab, draw_record):
    """labdata.Results of the lab's driver records in out_dir that timed this draw (the same seed, and only
    drawn shapes), by device slug."""
    labels = set(draw_record["shapes"])
    found = {}
    for path in sorted(pathlib.Path(out_dir).glob(f"{lab.record_prefix}*.json")):
        try:
            results = labdata.Results(path)
        except (OSError, ValueError, KeyError):
            continue
        problems = set(results.problems())
        if str(results.context.get("seed")) == str(draw_record["seed"]) and problems and problems <= labels:
            found[device_slug(results.context.get("device", path.stem[len(lab.record_prefix) :]))] = results
    return found


def summarize(out_dir, command, repo):
    """Every summary the records in out_dir allow, one per device: {device slug: summary}."""
    draw_record = read_draw(out_dir)
    dist = Distribution.from_record(draw_record["distribution"])
    shapes = [Shape.parse(label) for label in draw_record["shapes"]]
    per_device = {}
    for number, lab in LABS.items():
        for slug, results in matching_records(out_dir, lab, draw_record).items():
            per_device.setdefault(slug, {})[number] = results
    summaries = {}
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    for slug, records in per_device.items():
        contexts = {number: results.context for number, results in records.items()}
        commits = {number: str(c.get("git_commit", "unknown")) for number, c in contexts.items()}
        summaries[slug] = {
            "context": {
                "device": next(iter(contexts.values())).get("device", slug),
                # The run's: the drivers' latest date, and their commit (each lab's where they differ).
                "date": max(str(c.get("date", "")) for c in contexts.values()) or now,
                "git_commit": next(iter(commits.values()))
                if len(set(commits.values())) == 1
                else ", ".join(f"lab {n}: {c}" for n, c in commits.items()),
                "summary_date": now,
                "summary_git_commit": git_commit(repo),
                "command": command,
                "seed": draw_record["seed"],
                "draw_command": draw_record.get("command"),
                "run_commands": draw_record.get("runs", {}),
            },
            "distribution": draw_record["distribution"],
            "shapes": draw_record["shapes"],
            "shares": shares(shapes, dist),
            "ratio": "cuBLAS time / best time, medians of the repetitions, one process per lab",
            "percentile": "linear interpolation between order statistics",
            "labs": {number: lab_summary(results, LABS[number], shapes, dist) for number, results in records.items()},
            "not_run": [number for number in LABS if number not in records],
        }
    return summaries


def figure(value, goal=None):
    """A ratio with three decimals; one below its goal that would round up to it is cut at four (0.9999, not
    1.000), so that no figure shown seems to meet a goal it missed."""
    text = f"{value:.3f}"
    if goal is not None and value < goal <= float(text):
        text = f"{math.floor(value * 1e4) / 1e4:.4f}"
    return text


def share_text(shares_record, dist):
    pct = {name: f"{100 * value:.1f} %" for name, value in shares_record.items()}
    return (
        f"M or N <= {dist.small_max}: {pct['small_mn']} (M {pct['small_m']}, N {pct['small_n']}); "
        f"K % {dist.align} != 0: {pct['k_tail']}; N % {dist.align} != 0: {pct['n_unaligned']}"
    )


def text_summary(summary):
    """The summary in a few lines of text (OUT_DIR/gemm_random_shapes_<device>.txt, and the terminal)."""
    context = summary["context"]
    dist = Distribution.from_record(summary["distribution"])
    lines = [
        f"{PROGRAM}: {len(summary['shapes'])} shapes, seed {context['seed']}, {context['device']}, "
        f"{context['date'][:10]}, commit {context['git_commit']}",
        f"command: {context['command']}",
        f"distribution: {summary['distribution']['description']}",
        f"shares: {share_text(summary['shares'], dist)}",
        f"ratio: {summary['ratio']}; 10th percentile by {summary['percentile']}",
    ]
    for number, part in summary["labs"].items():
        lab = LABS[number]
        lines.append(
            f"lab {number} ({part['precision']}: best against {part['reference_name']}, {part['record']}, "
            f"commit {part['run']['git_commit']}, medians of {part['repetitions']}):"
        )
        if "geomean" not in part:
            lines.append(f"  no ratio: {part['reason']}")
            continue
        goals = part["goals"]
        lines.append(
            f"  {part['measured']} of {len(summary['shapes'])} shapes; geometric mean "
            f"{figure(part['geomean'], lab.geomean_goal)} (goal >= {lab.geomean_goal:.2f}: "
            f"{'met' if goals['geomean']['met'] else 'not met'}); 10th percentile {figure(part['p10'], lab.p10_goal)} "
            f"(goal >= {lab.p10_goal:.2f}: {'met' if goals['p10']['met'] else 'not met'})"
        )
        lines.append("  five worst: " + ", ".join(f"{w['shape']} {figure(w['ratio'])}" for w in part["worst"]))
        classes = part["classes"]
        lines.append(
            "  geometric mean by class: "
            + "; ".join(
                f"{name} ({c['count']} shapes) {'-' if c['geomean'] is None else figure(c['geomean'])}"
                for name, c in (
                    (f"M or N <= {dist.small_max}", classes["small_mn"]),
                    (f"K % {dist.align} != 0", classes["k_tail"]),
                    (f"N % {dist.align} != 0", classes["n_unaligned"]),
                    ("the rest", classes["other"]),
                )
            )
        )
        if part["missing"]:
            lines.append("  no timing at: " + ", ".join(part["missing"]))
        lines.append(f"  goals: {part['verdict']}" + (f" ({part['reason']})" if part["reason"] else ""))
    for number in summary["not_run"]:
        lines.append(f"lab {number}: not run (no lab{number}_{RESULTS_TAG}_<device>.json of this seed in the folder)")
    return "\n".join(lines) + "\n"


def markdown(summary):
    """The summary as the results page shows it: one row per lab, and where the record comes from."""
    rows = []
    for number, part in summary["labs"].items():
        lab = LABS[number]
        if "geomean" not in part:
            rows.append((number, part["precision"], part["measured"], "-", "-", "-", "-", part["verdict"], "-"))
            continue
        rows.append(
            (
                number,
                f"{part['precision']} ({part['reference_name']})",
                f"{part['measured']} of {len(summary['shapes'])}",
                figure(part["geomean"], lab.geomean_goal),
                f"at least {lab.geomean_goal:.2f}",
                figure(part["p10"], lab.p10_goal),
                f"at least {lab.p10_goal:.2f}",
                part["verdict"],
                ", ".join(f"`{w['shape']}` {figure(w['ratio'])}" for w in part["worst"]),
            )
        )
    for number in summary["not_run"]:
        rows.append((number, LABS[number].precision, "not run", "-", "-", "-", "-", "-", "-"))
    context = summary["context"]
    # The commands that ran the drivers (one, or one per lab), else the one that wrote the summary.
    commands = list(dict.fromkeys(context.get("run_commands", {}).values())) or [context["command"]]
    dist = Distribution.from_record(summary["distribution"])
    header = ("lab", "precision (reference)", "shapes", "geometric mean", "goal", "10th percentile", "goal")
    return (
        labdata.markdown_table(header + ("goals", "five worst: cuBLAS time / best time"), rows)
        + f"\n\nShares drawn: {share_text(summary['shares'], dist)}. "
        + f"_{context['device']}, {context['date'][:10]}, seed {context['seed']}, commit {context['git_commit']}, "
        + ", ".join(f"`{c}`" for c in commands)
        + "; each lab's driver in one process, repetitions interleaved, ratios of medians._"
    )


def about(distribution=None):
    """What the benchmark draws and the goals it is held to, in words (for the results page)."""
    dist = Distribution.from_record(distribution) if distribution else Distribution()
    goals = "; ".join(
        f"lab {lab.number} ({lab.precision}): geometric mean at least {lab.geomean_goal:.2f}, 10th percentile "
        f"at least {lab.p10_goal:.2f}"
        for lab in LABS.values()
    )
    return f"The distribution: {dist.describe()}. The goals: {goals}."


def load_summary(path):
    return json.loads(pathlib.Path(path).read_text())


# ---- Draw file, dry run, runs ---------------------------------------------------------------------------


def read_draw(out_dir):
    path = pathlib.Path(out_dir) / DRAW_FILE
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        record = None
    if not isinstance(record, dict) or not all(key in record for key in ("seed", "shapes", "distribution")):
        raise BadInput(f"OUT_DIR: '{out_dir}' holds no readable {DRAW_FILE} (a run writes it)")
    return record


def write_draw(out_dir, dist, seed, shapes, command, ran_labs):
    """The draw file; a later run of the same draw (the other lab) keeps the commands of the earlier."""
    path = pathlib.Path(out_dir) / DRAW_FILE
    labels = [s.label for s in shapes]
    runs = {}
    if path.exists():
        try:
            old = json.loads(path.read_text())
            if old.get("seed") == seed and old.get("shapes") == labels:
                runs = old.get("runs", {})
        except ValueError:
            pass
    runs.update({number: command for number in ran_labs})
    record = {"seed": seed, "distribution": dist.as_record(), "shapes": labels, "command": command, "runs": runs}
    path.write_text(json.dumps(record, indent=2) + "\n")


def dry_run_text(dist, seed, shapes, redrawn):
    """The drawn shapes and what they add up to, without a GPU."""
    lines = [f"{PROGRAM}: {len(shapes)} shapes drawn with seed {seed} (dry run: nothing runs)"]
    lines.append(f"distribution: {dist.describe()}")
    lines.append(f"{'#':>4}  {'shape':<20} {'GiB (FP32 A+B+C)':>17}  class")
    for index, shape in enumerate(shapes, start=1):
        tags = []
        if shape.m <= dist.small_max:
            tags.append(f"M <= {dist.small_max}")
        if shape.n <= dist.small_max:
            tags.append(f"N <= {dist.small_max}")
        if shape.k_tail(dist):
            tags.append(f"K % {dist.align} = {shape.k % dist.align}")
        if shape.n_unaligned(dist):
            tags.append(f"N % {dist.align} = {shape.n % dist.align}")
        lines.append(f"{index:>4}  {shape.label:<20} {shape.fp32_bytes() / GIB:>17.3f}  {', '.join(tags)}")
    lines.append(f"shares: {share_text(shares(shapes, dist), dist)}")
    for name, values in (
        ("M", [s.m for s in shapes]),
        ("N", [s.n for s in shapes]),
        ("K", [s.k for s in shapes]),
    ):
        lines.append(f"{name}: from {min(values)} to {max(values)}, median {percentile(values, 0.5):g}")
    largest = max(shapes, key=Shape.fp32_bytes)
    lines.append(
        f"largest: {largest.label} ({largest.fp32_bytes() / GIB:.3f} GiB in FP32); redrawn for the caps "
        f"{redrawn['caps']} times, for duplicates {redrawn['duplicates']}"
    )
    lines.append(
        "device memory the drivers hold (an estimate: their timing copies for a 50 MiB L2, plus the largest "
        "shape's checks): "
        + ", ".join(f"lab {n} {device_estimate(shapes, lab) / GIB:.1f} GiB" for n, lab in LABS.items())
        + f"; each shape needs at most {room_bytes(largest) / GIB:.1f} GiB free to start"
    )
    lines.append(f"work: {sum(s.flops() for s in shapes) / 1e12:.2f} TFLOP per timed launch of every shape")
    lines.append(f"--shapes {shapes_argument(shapes)}")
    return "\n".join(lines) + "\n"


def driver_of(build, number):
    """The solution's driver where the build has one, the student's otherwise (as scripts/lab07-shapes)."""
    for name in (f"lab{number}_solution", f"lab{number}"):
        path = pathlib.Path(build) / "labs" / name
        if path.is_file() and os.access(path, os.X_OK):
            return path
    raise BadInput(
        f"BUILD_DIR: '{build}' has no labs/lab{number}_solution or labs/lab{number} "
        f"(cmake --build {build} --target lab{number}_solution)"
    )


def free_device_bytes():
    """The first GPU's free memory by nvidia-smi, or None where it cannot say."""
    try:
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=memory.free", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        return int(done.stdout.split()[0]) << 20 if done.returncode == 0 else None
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return None


def check_room(shapes, numbers, free):
    """Refuses, naming them, the shapes a driver would refuse for want of device memory, and a list whose
    timing copies would not fit together (the driver would fail partway)."""
    if free is None:
        print(f"{PROGRAM}: nvidia-smi gives no free memory: the drivers check it themselves")
        return
    refused = [s for s in shapes if room_bytes(s) > free]
    if refused:
        named = ", ".join(f"{s.label} ({room_bytes(s) >> 20} MiB)" for s in refused[:5])
        raise BadInput(
            f"{len(refused)} shapes need more device memory than the {free >> 20} MiB free, which the drivers "
            f"refuse: {named}{' ...' if len(refused) > 5 else ''} (lower --max-gib)"
        )
    for number in numbers:
        need = device_estimate(shapes, LABS[number])
        if need > free:
            raise BadInput(
                f"lab {number}'s driver would hold about {need >> 20} MiB for the whole list, more than the "
                f"{free >> 20} MiB free (lower --count or --max-gib)"
            )


def run_driver(driver, number, shapes, out_dir, seed, repetitions, min_time, extra):
    """One lab's driver on every shape in one process, its output to the terminal and OUT_DIR/labNN_random.log."""
    command = [
        str(driver),
        "--variant",
        "best",
        "--shapes",
        shapes_argument(shapes),
        "--results-dir",
        str(out_dir),
        "--results-tag",
        RESULTS_TAG,
        "--seed",
        str(seed),
        "--repetitions",
        str(repetitions),
        "--min-time",
        f"{min_time:g}",
        "--benchmark_enable_random_interleaving=true",
    ] + list(extra)
    log_path = pathlib.Path(out_dir) / f"lab{number}_{RESULTS_TAG}.log"
    print(f"{PROGRAM}: lab {number}: {shlex.join(command[:3])} --shapes <{len(shapes)} shapes> ...", flush=True)
    with log_path.open("w") as log:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in process.stdout:
            sys.stdout.write(line)
            log.write(line)
        return process.wait()


# ---- Command line ---------------------------------------------------------------------------------------

USAGE = f"""{PROGRAM} [DRAW OPTIONS] [--labs 07,11] [--repetitions R] [--min-time S]
           BUILD_DIR OUT_DIR [-- DRIVER_FLAGS...]
       {PROGRAM} --dry-run [DRAW OPTIONS]
       {PROGRAM} --summarize OUT_DIR"""

DESCRIPTION = """Draws GEMM shapes nobody picked and times lab 07's `best` against cuBLAS SGEMM and lab 11's `best`
against cuBLAS BF16 on them (GPU machine): each lab's driver once, in one process, repetitions interleaved.
Writes OUT_DIR/gemm_random_shapes_<device>.json and .txt (the summary: ratios cuBLAS time / best time,
geometric mean, 10th percentile, five worst shapes, against the goals), the drivers' records and logs, and
OUT_DIR/gemm_random_shapes_draw.json. A run of one lab (--labs 11 --seed S, the same draw options) into the
same OUT_DIR adds that lab to the summary; --summarize writes it again from the files."""


class OneLineParser(argparse.ArgumentParser):
    """argparse's errors as one line (BadInput), unknown flags named as the drivers name them."""

    def error(self, message):
        if message.startswith("unrecognized arguments: "):
            raise BadInput(f"unknown flag '{message.split(': ', 1)[1]}' (see --help)")
        raise BadInput(message)


def integer(flag, text, low, high):
    try:
        value = int(text, 10)
    except (TypeError, ValueError):
        value = None
    if value is None or not low <= value <= high:
        raise BadInput(f"{flag}: invalid value '{text}' (expected an integer from {low} to {high})")
    return value


def real_number(flag, text, low, high, low_open=False):
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not math.isfinite(value) or value > high or value < low or (low_open and value == low):
        expected = f"a number above {low:g}, at most {high:g}" if low_open else f"a number from {low:g} to {high:g}"
        raise BadInput(f"{flag}: invalid value '{text}' (expected {expected})")
    return value


def parse(argv):
    """(options, driver flags) from the command line; BadInput names the argument and its value."""
    args = list(argv)
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1 :]
        args = args[: args.index("--")]
    parser = OneLineParser(prog=PROGRAM, usage=USAGE, description=DESCRIPTION)
    draw_flags = {
        "--count": f"shapes to draw (default {Distribution.count}; the goals need at least {MIN_SHAPES_FOR_GOALS})",
        "--seed": "the seed of the draw and of the drivers' inputs (default: chosen at run time)",
        "--max-gib": f"cap on A + B + C in FP32 per shape, GiB (default {Distribution.max_gib:g})",
        "--max-operand-gib": f"cap on each of A, B, C in FP32, GiB (default {Distribution.max_operand_gib:g})",
        "--small-share": f"share of shapes with M or N <= 64 (default {Distribution.small_share:g})",
        "--k-tail-share": f"share of shapes with K %% 8 != 0 (default {Distribution.k_tail_share:g})",
        "--n-aligned-share": f"share of shapes with N a multiple of 8 (default {Distribution.n_aligned_share:g})",
    }
    for flag, text in draw_flags.items():
        parser.add_argument(flag, help=text)
    parser.add_argument("--labs", help="the labs to run, 07, 11 or 07,11 (default 07,11)")
    parser.add_argument("--repetitions", help=f"the drivers' repetitions, medians of them (default {REPETITIONS})")
    parser.add_argument("--min-time", help=f"the drivers' least timed seconds per repetition (default {MIN_TIME:g})")
    parser.add_argument("--dry-run", action="store_true", help="print the drawn shapes and their summary; no GPU")
    parser.add_argument("--summarize", action="store_true", help="write the summary of OUT_DIR's records again")
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    options = parser.parse_args(args)
    options.extra = extra
    run_flags = [
        flag
        for flag in list(draw_flags) + ["--labs", "--repetitions", "--min-time"]
        if getattr(options, flag[2:].replace("-", "_")) is not None
    ]
    if options.dry_run and options.summarize:
        raise BadInput("--dry-run and --summarize: choose one")
    if options.summarize:
        if run_flags or extra:
            named = " ".join(run_flags + (["--"] if extra else []))
            raise BadInput(f"--summarize reads the draw from OUT_DIR's files: {named} not taken")
        if len(options.paths) != 1:
            raise BadInput("--summarize: expected OUT_DIR")
        return options

    def given(flag, parse_value, default):
        text = getattr(options, flag[2:].replace("-", "_"))
        return default if text is None else parse_value(flag, text)

    defaults = Distribution()
    positive = lambda flag, text: real_number(flag, text, 0, 1024, low_open=True)  # noqa: E731
    share = lambda flag, text: real_number(flag, text, 0, 1)  # noqa: E731
    options.distribution = Distribution(
        count=given("--count", lambda flag, text: integer(flag, text, 1, MAX_COUNT), defaults.count),
        max_gib=given("--max-gib", positive, defaults.max_gib),
        max_operand_gib=given("--max-operand-gib", positive, defaults.max_operand_gib),
        small_share=given("--small-share", share, defaults.small_share),
        k_tail_share=given("--k-tail-share", share, defaults.k_tail_share),
        n_aligned_share=given("--n-aligned-share", share, defaults.n_aligned_share),
    )
    options.seed = given("--seed", lambda flag, text: integer(flag, text, 0, MAX_SEED), None)
    if options.seed is None:
        options.seed = fresh_seed()
    options.lab_numbers = (options.labs or "07,11").split(",")
    if any(n not in LABS for n in options.lab_numbers) or len(set(options.lab_numbers)) != len(options.lab_numbers):
        raise BadInput(f"--labs: invalid value '{options.labs}' (expected 07, 11 or 07,11)")
    options.repetitions = given("--repetitions", lambda flag, text: integer(flag, text, 2, 1000), REPETITIONS)
    options.min_time = given("--min-time", lambda flag, text: real_number(flag, text, 0, 60), MIN_TIME)
    if options.dry_run:
        if options.paths or extra:
            raise BadInput(f"--dry-run runs nothing: unexpected '{' '.join(options.paths + extra)}'")
    elif len(options.paths) != 2:
        raise BadInput("expected BUILD_DIR OUT_DIR (or --dry-run, or --summarize OUT_DIR)")
    return options


def write_summaries(out_dir, command, repo):
    summaries = summarize(out_dir, command, repo)
    if not summaries:
        print(f"{PROGRAM}: no driver record of this draw in {out_dir}: no summary written")
        return False
    for slug, summary in summaries.items():
        stem = pathlib.Path(out_dir) / f"{SUMMARY_STEM}_{slug}"
        stem.with_suffix(".json").write_text(json.dumps(summary, indent=2) + "\n")
        text = text_summary(summary)
        stem.with_suffix(".txt").write_text(text)
        print(text, end="")
        print(f"{PROGRAM}: wrote {stem}.json and .txt")
    return True


def main(argv):
    repo = pathlib.Path(__file__).resolve().parents[3]
    command = shlex.join(["scripts/gemm-random-shapes"] + list(argv[1:]))  # as run from the repository
    try:
        options = parse(argv[1:])
        if options.summarize:
            return 0 if write_summaries(options.paths[0], command, repo) else 1
        dist, seed = options.distribution, options.seed
        shapes, redrawn = draw(dist, seed)
        if options.dry_run:
            print(dry_run_text(dist, seed, shapes, redrawn), end="")
            return 0
        build, out_dir = (pathlib.Path(p) for p in options.paths)
        drivers = {number: driver_of(build, number) for number in options.lab_numbers}
        check_room(shapes, options.lab_numbers, free_device_bytes())
        out_dir.mkdir(parents=True, exist_ok=True)
        print(f"{PROGRAM}: {len(shapes)} shapes, seed {seed}; {dist.describe()}")
        failed = []
        write_draw(out_dir, dist, seed, shapes, command, [])
        for number, driver in drivers.items():
            code = run_driver(
                driver, number, shapes, out_dir, seed, options.repetitions, options.min_time, options.extra
            )
            write_draw(out_dir, dist, seed, shapes, command, [number])
            if code != 0:
                failed.append(
                    f"lab {number}'s driver exited with {code} (log: {out_dir}/lab{number}_{RESULTS_TAG}.log)"
                )
        written = write_summaries(out_dir, command, repo)
        for line in failed:
            print(f"{PROGRAM}: {line}", file=sys.stderr)
        return 1 if failed or not written else 0
    except BadInput as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return 2
