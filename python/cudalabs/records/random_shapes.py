"""GEMM shapes nobody picked: lab 07's `best` against cuBLAS SGEMM and lab 11's `best` against cuBLAS BF16
on shapes drawn at random from a stated distribution (scripts/gemm-random-shapes).

A sweep of named shapes invites tuning to the names; a draw with a seed chosen at run time does not. This
module draws the shapes, runs the timing program once (build/labs/gemm_random_shapes,
programs/gemm_random_shapes.cpp: both labs in one process, `best` and cuBLAS in interleaved rounds, each
result checked against cuBLAS on the GPU first), reads its record and writes the summary: per shape the ratio
cuBLAS time / `best` time (medians), its geometric mean, its 10th percentile, the five worst shapes, and the
same per class of shape (alignment of N and K, small M or N), against the goals in LABS.

The distribution (Distribution.describe says it in words, and every record carries it):
- M, N and K: log-uniform integers (P(x) proportional to ln((x + 1) / x)) in [16, 16384], any integer
  except where a share below says otherwise.
- The small share (25 %): M (half of them) or N (the other half) a log-uniform integer in [1, 64]; the other
  one, and M and N elsewhere, in [65, 16384], so that the share of "M or N at most 64" is exact.
- K: a multiple of 8, except in the K-tail share (30 %), where K % 8 != 0.
- N (which sets the leading dimension of B and C: the operands are row-major and tight, lda = K,
  ldb = ldc = N): a multiple of 8 in the N-aligned share (25 %), any integer elsewhere, so that most rows of
  B and C start off 16-byte alignment, as most shapes users have do (a vocabulary of 50,257 words).
- A shape is drawn again while A, B and C in FP32 exceed the memory cap together (4 GiB) or any one of them
  its own cap (4 GiB), or the shape was drawn before.
Which shapes are small, which have a K tail and which an aligned N is a shuffle of fixed counts, so the
classes overlap as chance has it.

Files under OUT_DIR:
- gemm_random_shapes_draw.json: the seed, the distribution and the shapes (what --summarize reads)
- gemm_random_shapes_times.json and gemm_random_shapes.log: the timing program's record and output
- gemm_random_shapes_<device>.json and .txt: the summary, with device, date, size, git commit, command and
  seed
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
TIMES_FILE = "gemm_random_shapes_times.json"  # the timing program's record
LOG_FILE = "gemm_random_shapes.log"
PROGRAM_BINARY = "gemm_random_shapes"  # under BUILD_DIR/labs
GIB = 1 << 30
MAX_COUNT = 2000
MIN_SHAPES_FOR_GOALS = 100  # fewer measured shapes are not judged against the goals
# What the drivers accept (common/gemm_types.cpp): sizes up to 2^20, each matrix indexable in 32 bits.
DRIVER_MAX_DIM = 1 << 20
INDEX_LIMIT = (1 << 31) - 1
# Linux refuses one command-line argument longer than this (MAX_ARG_STRLEN): --shapes must be shorter.
MAX_ARGUMENT_BYTES = 131072
# 2 ** 63 - 1: what the drivers' --seed takes (the same seed draws the shapes and seeds their inputs).
MAX_SEED = (1 << 63) - 1
# The timing program's rounds (programs/gemm_random_shapes.cpp): 7 interleaved rounds of at least 5 ms a
# side, cut to 3 for a shape whose rounds would take more than 400 ms: 120 shapes of both labs within about
# half a minute of a GPU (the record says how long), well under the 90 s a run may take.
ROUNDS = 7
MIN_ROUNDS = 3
ROUND_MS = 5.0
SHAPE_MS = 400.0


@dataclasses.dataclass(frozen=True)
class Lab:
    """One lab's side of the benchmark: its driver, its reference and its goals."""

    number: str
    precision: str
    reference: str  # the reference's benchmark name prefix in the driver's record
    reference_name: str
    geomean_goal: float
    p10_goal: float


# No shape's ratio may be under this (issue 53's goals), in either lab.
FLOOR_GOAL = 0.60

LABS = {
    "07": Lab("07", "FP32", "cublas", "cuBLAS SGEMM", 1.00, 0.90),
    "11": Lab("11", "BF16", "cublas_bf16", "cuBLAS BF16 (FP32 sums and C)", 1.00, 0.85),
}


class BadInput(ValueError):
    """A bad argument or file: the command line prints its one line and exits 2."""


@dataclasses.dataclass(frozen=True)
class Distribution:
    """The stated distribution the shapes are drawn from (see the module's docstring)."""

    count: int = 120
    min_dim: int = 16
    max_dim: int = 16384
    small_share: float = 0.25
    small_min: int = 1
    small_max: int = 64
    k_tail_share: float = 0.30
    n_aligned_share: float = 0.25
    align: int = 8
    max_gib: float = 4.0
    max_operand_gib: float = 4.0

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
            f"[{self.small_min}, {self.small_max}]); M any integer; N a multiple of {self.align} in the N-aligned "
            f"share ({share(self.n_aligned_share)}), any integer elsewhere; drawn again while A, B and C "
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
        n_rule = aligned if n_aligned else (lambda v: True)
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


def times_of(record, lab, labels):
    """{label: (best ms, reference ms)} for every drawn shape the timing program timed on both sides (medians,
    after a passed check), and {label: verdict} for those it did not time."""
    times, untimed = {}, {}
    for entry in record.get("shapes", []):
        label = entry.get("shape")
        if entry.get("lab") != lab.number or label not in labels:
            continue
        best, reference = entry.get("best_ms"), entry.get("reference_ms")
        if entry.get("passed") and isinstance(best, (int, float)) and isinstance(reference, (int, float)):
            if best > 0 and reference > 0:
                times[label] = (float(best), float(reference))
                continue
        untimed[label] = str(entry.get("check", "not timed"))
    return times, untimed


def goal_check(value, goal):
    return {"goal": goal, "measured": value, "met": value >= goal}


def ratio_statistics(ratios):
    """Geometric mean, 10th percentile, least ratio and the five worst shapes of {label: ratio}."""
    if not ratios:
        return {"count": 0, "geomean": None, "p10": None, "least": None, "worst": []}
    values = list(ratios.values())
    return {
        "count": len(values),
        "geomean": geomean(values),
        "p10": percentile(values, 0.10),
        "least": min(values),
        "worst": [{"shape": label, "ratio": ratios[label]} for label in sorted(ratios, key=ratios.get)[:5]],
    }


def shape_classes(dist):
    """The classes the summary breaks the ratios down by: the alignment of N (the rows of B and C) and of K
    (the rows of A), and the small share. A shape may be in several."""
    align = dist.align
    return {
        "n_aligned": (f"N % {align} == 0", lambda s: s.n % align == 0),
        "n_unaligned": (f"N % {align} != 0", lambda s: s.n_unaligned(dist)),
        "k_tail": (f"K % {align} != 0", lambda s: s.k_tail(dist)),
        "small_mn": (f"M or N <= {dist.small_max}", lambda s: s.small(dist)),
        "other": (f"M, N > {dist.small_max} and K % {align} == 0", lambda s: not s.small(dist) and not s.k_tail(dist)),
    }


def lab_summary(record, lab, shapes, dist):
    """One lab's part of the summary: ratios, geometric mean, 10th percentile, worst five, the same per class,
    and the goals."""
    labels = [s.label for s in shapes]
    times, untimed = times_of(record, lab, set(labels))
    ratios = {label: reference / best for label, (best, reference) in times.items()}
    missing = [label for label in labels if label not in ratios]
    context = record.get("context", {})
    protocol = record.get("protocol", {})
    part = {
        "precision": lab.precision,
        "variant": "best",
        "reference": lab.reference,
        "reference_name": lab.reference_name,
        "record": TIMES_FILE,
        "run": {key: context.get(key) for key in ("device", "date", "git_commit", "command", "seed")},
        "repetitions": protocol.get("rounds"),
        "measured": len(ratios),
        "missing": missing,
        "untimed": untimed,
        "ratios": ratios,
        "times_ms": {label: {"best": best, lab.reference: ref} for label, (best, ref) in times.items()},
    }
    if not ratios:
        part.update(verdict="not met", reason="no shape was timed on both sides")
        return part
    overall = ratio_statistics(ratios)
    part.update(geomean=overall["geomean"], p10=overall["p10"], least=overall["least"], worst=overall["worst"])
    by_shape = {s.label: s for s in shapes}
    part["classes"] = {}
    for name, (title, member) in shape_classes(dist).items():
        chosen = {label: ratio for label, ratio in ratios.items() if member(by_shape[label])}
        part["classes"][name] = dict(ratio_statistics(chosen), title=title)
    part["goals"] = {
        "geomean": goal_check(part["geomean"], lab.geomean_goal),
        "p10": goal_check(part["p10"], lab.p10_goal),
        "least": goal_check(part["least"], FLOOR_GOAL),
    }
    if missing:
        part.update(
            verdict="not met",
            reason=f"{len(missing)} of {len(labels)} shapes have no timing of best and {lab.reference_name} "
            "(a shape whose check fails is not timed: see the program's log)",
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


def read_times(out_dir, draw_record):
    """The timing program's record in out_dir when it timed this draw (the same seed, only drawn shapes),
    else None."""
    path = pathlib.Path(out_dir) / TIMES_FILE
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("shapes"), list):
        return None
    labels = set(draw_record["shapes"])
    timed = {entry.get("shape") for entry in record["shapes"] if isinstance(entry, dict)}
    if str(record.get("context", {}).get("seed")) != str(draw_record["seed"]) or not timed or not timed <= labels:
        return None
    return record


def summarize(out_dir, command, repo):
    """The summary the timing record in out_dir allows: {device slug: summary}, empty without one."""
    draw_record = read_draw(out_dir)
    dist = Distribution.from_record(draw_record["distribution"])
    shapes = [Shape.parse(label) for label in draw_record["shapes"]]
    record = read_times(out_dir, draw_record)
    if record is None:
        return {}
    context = record.get("context", {})
    numbers = [n for n in LABS if any(e.get("lab") == n for e in record["shapes"] if isinstance(e, dict))]
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    device = context.get("device", "unknown device")
    flops = sum(s.flops() for s in shapes)
    summary = {
        "context": {
            "device": device,
            "date": context.get("date") or now,
            "git_commit": str(context.get("git_commit", "unknown")),
            "size": f"{len(shapes)} shapes of the distribution below, {flops / 1e12:.2f} TFLOP per launch of every "
            f"shape; largest {max(shapes, key=Shape.flops).label}",
            "summary_date": now,
            "summary_git_commit": git_commit(repo),
            "command": command,
            "seed": draw_record["seed"],
            "draw_command": draw_record.get("command"),
            "run_commands": draw_record.get("runs", {}),
            "program_command": context.get("command"),
            "gpu_seconds": record.get("elapsed_s"),
        },
        "distribution": draw_record["distribution"],
        "protocol": record.get("protocol", {}),
        "shapes": draw_record["shapes"],
        "shares": shares(shapes, dist),
        "ratio": "cuBLAS time / best time, medians of interleaved rounds, both labs in one process",
        "percentile": "linear interpolation between order statistics",
        "labs": {number: lab_summary(record, LABS[number], shapes, dist) for number in numbers},
        "not_run": [number for number in LABS if number not in numbers],
    }
    return {device_slug(device): summary}


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


def statistics_text(stats, lab=None):
    """geometric mean, 10th percentile and least ratio of ratio_statistics, against lab's goals when given."""
    if not stats["count"]:
        return "-"

    def judged(value, goal):
        return f"{figure(value, goal)} (goal >= {goal:.2f}: {'met' if value >= goal else 'not met'})"

    if lab is None:
        return (
            f"geometric mean {figure(stats['geomean'])}, 10th percentile {figure(stats['p10'])}, "
            f"least {figure(stats['least'])}"
        )
    return (
        f"geometric mean {judged(stats['geomean'], lab.geomean_goal)}; 10th percentile "
        f"{judged(stats['p10'], lab.p10_goal)}; least {judged(stats['least'], FLOOR_GOAL)}"
    )


MISSING_SHOWN = 10  # untimed shapes the text names, with their check's verdict


def worst_text(worst):
    return ", ".join(f"{w['shape']} {figure(w['ratio'])}" for w in worst)


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
    if context.get("gpu_seconds") is not None:
        lines.append(f"the timing program ran {context['gpu_seconds']:.1f} s")
    for number, part in summary["labs"].items():
        lab = LABS[number]
        lines.append(
            f"lab {number} ({part['precision']}: best against {part['reference_name']}, commit "
            f"{part['run']['git_commit']}, medians of up to {part['repetitions']} rounds):"
        )
        missing = [f"{label} ({part['untimed'].get(label, 'not in the record')})" for label in part["missing"]]
        if missing:
            shown = missing[:MISSING_SHOWN] + (
                [f"and {len(missing) - MISSING_SHOWN} more"] if len(missing) > MISSING_SHOWN else []
            )
            missing_line = "  no timing at: " + ", ".join(shown)
        if "geomean" not in part:
            lines.append(f"  no ratio: {part['reason']}")
            if missing:
                lines.append(missing_line)
            continue
        stats = {"count": part["measured"], "geomean": part["geomean"], "p10": part["p10"], "least": part["least"]}
        lines.append(f"  {part['measured']} of {len(summary['shapes'])} shapes; {statistics_text(stats, lab)}")
        lines.append("  five worst: " + worst_text(part["worst"]))
        for name, stats in part["classes"].items():
            if stats["count"]:
                lines.append(
                    f"  {stats['title']} ({stats['count']} shapes): {statistics_text(stats)}; worst "
                    + worst_text(stats["worst"])
                )
        if missing:
            lines.append(missing_line)
        lines.append(f"  goals: {part['verdict']}" + (f" ({part['reason']})" if part["reason"] else ""))
    for number in summary["not_run"]:
        lines.append(f"lab {number}: not run (the timing record of this seed holds no shape of it)")
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
        + "; both labs in one process, best and cuBLAS in interleaved rounds, ratios of medians._"
    )


def about(distribution=None):
    """What the benchmark draws and the goals it is held to, in words (for the results page)."""
    dist = Distribution.from_record(distribution) if distribution else Distribution()
    goals = "; ".join(
        f"lab {lab.number} ({lab.precision}): geometric mean at least {lab.geomean_goal:.2f}, 10th percentile "
        f"at least {lab.p10_goal:.2f}, no shape under {FLOOR_GOAL:.2f}"
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
        f"device memory at the largest shape: about {peak_bytes(largest) / GIB:.1f} GiB (its operands in FP32, "
        "the check's references and copies)"
    )
    lines.append(f"work: {sum(s.flops() for s in shapes) / 1e12:.2f} TFLOP per timed launch of every shape")
    lines.append(f"--shapes {shapes_argument(shapes)}")
    return "\n".join(lines) + "\n"


def peak_bytes(shape):
    """Device memory the timing program holds for one shape of lab 07, the larger: A, B and C, the check's two
    references (C's size) and its copies of |A| and |B|. Lab 11's operands are half as large."""
    a, b, c = shape.operand_elements()
    return 4 * (2 * (a + b) + 3 * c)


def program_of(build):
    """BUILD_DIR/labs/gemm_random_shapes, or BadInput saying how to build it."""
    path = pathlib.Path(build) / "labs" / PROGRAM_BINARY
    if path.is_file() and os.access(path, os.X_OK):
        return path
    raise BadInput(
        f"BUILD_DIR: '{build}' has no labs/{PROGRAM_BINARY} (cmake --build {build} --target {PROGRAM_BINARY})"
    )


def run_program(program, numbers, shapes, out_dir, seed, timing, extra):
    """The timing program on every shape of both labs in one process, its output to the terminal and
    OUT_DIR/gemm_random_shapes.log. Returns its exit code."""
    command = [
        str(program),
        "--labs",
        ",".join(numbers),
        "--shapes",
        shapes_argument(shapes),
        "--seed",
        str(seed),
        "--output",
        str(pathlib.Path(out_dir) / TIMES_FILE),
        "--rounds",
        str(timing["rounds"]),
        "--min-rounds",
        str(timing["min_rounds"]),
        "--round-ms",
        f"{timing['round_ms']:g}",
        "--shape-ms",
        f"{timing['shape_ms']:g}",
    ] + list(extra)
    print(f"{PROGRAM}: {shlex.join(command[:3])} --shapes <{len(shapes)} shapes> ...", flush=True)
    with (pathlib.Path(out_dir) / LOG_FILE).open("w") as log:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in process.stdout:
            sys.stdout.write(line)
            log.write(line)
        return process.wait()


# ---- Command line ---------------------------------------------------------------------------------------

USAGE = f"""{PROGRAM} [DRAW OPTIONS] [--labs 07,11] [TIMING OPTIONS]
           BUILD_DIR OUT_DIR [-- PROGRAM_FLAGS...]
       {PROGRAM} --dry-run [DRAW OPTIONS]
       {PROGRAM} --summarize OUT_DIR"""

DESCRIPTION = """Draws GEMM shapes nobody picked and times lab 07's `best` against cuBLAS SGEMM and lab 11's `best`
against cuBLAS BF16 on them (GPU machine): BUILD_DIR/labs/gemm_random_shapes, both labs in one process, each
shape checked against cuBLAS on the GPU, then `best` and cuBLAS in interleaved rounds. Writes
OUT_DIR/gemm_random_shapes_<device>.json and .txt (the summary: ratios cuBLAS time / best time, geometric mean,
10th percentile, five worst shapes, per lab and per class of shape, against the goals), the program's record
and log, and OUT_DIR/gemm_random_shapes_draw.json; --summarize writes the summary again from the files."""


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
    timing_flags = {
        "--rounds": f"interleaved rounds per shape, medians of them (default {ROUNDS})",
        "--min-rounds": f"the fewest rounds of a shape whose rounds take long (default {MIN_ROUNDS})",
        "--round-ms": f"least milliseconds of launches per side and round (default {ROUND_MS:g})",
        "--shape-ms": f"milliseconds a shape's rounds may take before they are cut (default {SHAPE_MS:g})",
    }
    for flag, text in timing_flags.items():
        parser.add_argument(flag, help=text)
    parser.add_argument("--dry-run", action="store_true", help="print the drawn shapes and their summary; no GPU")
    parser.add_argument("--summarize", action="store_true", help="write the summary of OUT_DIR's records again")
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    options = parser.parse_args(args)
    options.extra = extra
    run_flags = [
        flag
        for flag in list(draw_flags) + ["--labs"] + list(timing_flags)
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
    options.timing = {
        "rounds": given("--rounds", lambda flag, text: integer(flag, text, 2, 100), ROUNDS),
        "min_rounds": given("--min-rounds", lambda flag, text: integer(flag, text, 1, 100), MIN_ROUNDS),
        "round_ms": given("--round-ms", lambda flag, text: real_number(flag, text, 0.01, 1000), ROUND_MS),
        "shape_ms": given("--shape-ms", lambda flag, text: real_number(flag, text, 1, 1e6), SHAPE_MS),
    }
    if options.timing["min_rounds"] > options.timing["rounds"]:
        raise BadInput(
            f"--min-rounds: invalid value '{options.timing['min_rounds']}' (more than --rounds "
            f"{options.timing['rounds']})"
        )
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
        program = program_of(build)
        out_dir.mkdir(parents=True, exist_ok=True)
        print(f"{PROGRAM}: {len(shapes)} shapes, seed {seed}; {dist.describe()}")
        write_draw(out_dir, dist, seed, shapes, command, [])
        (out_dir / TIMES_FILE).unlink(missing_ok=True)  # never a summary of an older run's times
        code = run_program(program, options.lab_numbers, shapes, out_dir, seed, options.timing, options.extra)
        write_draw(out_dir, dist, seed, shapes, command, options.lab_numbers)
        written = write_summaries(out_dir, command, repo)
        if code != 0:
            print(f"{PROGRAM}: the timing program exited with {code} (log: {out_dir}/{LOG_FILE})", file=sys.stderr)
        return 1 if code != 0 or not written else 0
    except BadInput as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return 2
