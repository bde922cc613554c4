"""What each misaligned operand costs lab 07's `best` (call_1, H100): at each shape, best's time and
cuBLAS's at each layout (medians of 5 repetitions, the mean of the two runs), best's time with B's
rows padded, with C's, with both and with all three over its time tight, and its ratio to cuBLAS
(cuBLAS time / best time) at each layout; then geometric means over the shapes.
Run: python3 parts.py"""
import json
import math
import re
from collections import defaultdict
from pathlib import Path

call = Path(__file__).parent.parent / "call_1"
times = defaultdict(list)  # (who, layout) -> medians of the runs
for run in sorted(call.glob("lab07_parts_run*_nvidia-*.json")):
    for b in json.loads(run.read_text())["benchmarks"]:
        if b.get("aggregate_name") == "median":
            name = b["run_name"].split("/")  # cublas/LAYOUT or lab07/best/LAYOUT
            who, layout = ("cublas" if name[0] == "cublas" else "best"), name[-1]
            times[(who, layout)].append(b["real_time"])


def mean(values):
    return sum(values) / len(values)


def gm(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def kind(layout):
    pads = set(re.findall(r"_(ld[abc])\+\d+", layout))
    return {frozenset(): "tight", frozenset({"ldb"}): "B", frozenset({"ldc"}): "C",
            frozenset({"ldb", "ldc"}): "B+C", frozenset({"lda", "ldb", "ldc"}): "A+B+C",
            frozenset({"lda"}): "A"}[frozenset(pads)]


shapes = defaultdict(dict)
for (who, layout), ms in times.items():
    shapes[layout.split("_")[0]].setdefault(kind(layout), {})[who] = mean(ms)
kinds = ("tight", "A", "B", "C", "B+C", "A+B+C")
print("best's time padded over tight (A, B, C, B+C, A+B+C); ratio to cuBLAS at each layout")
print(f"{'shape':>16} {'tight us':>9} " + " ".join(f"{k:>6}" for k in kinds[1:]) + " | " +
      " ".join(f"{k:>6}" for k in kinds))
over = defaultdict(list)
ratio = defaultdict(list)
for shape, by in sorted(shapes.items(), key=lambda s: s[1]["tight"]["cublas"] / s[1]["tight"]["best"]):
    tight = by["tight"]["best"]
    cells = []
    for k in kinds[1:]:
        if k in by:
            over[k].append(by[k]["best"] / tight)
            cells.append(f"{by[k]['best'] / tight:6.3f}")
        else:
            cells.append(f"{'':>6}")
    rs = []
    for k in kinds:
        if k in by:
            ratio[k].append(by[k]["cublas"] / by[k]["best"])
            rs.append(f"{by[k]['cublas'] / by[k]['best']:6.3f}")
        else:
            rs.append(f"{'':>6}")
    print(f"{shape:>16} {tight * 1000:9.1f} " + " ".join(cells) + " | " + " ".join(rs))
print("geometric means:")
for k in kinds[1:]:
    print(f"  best's time with {k} padded over tight: {gm(over[k]):.3f} ({len(over[k])} shapes)")
for k in kinds:
    print(f"  ratio to cuBLAS, {k}: {gm(ratio[k]):.3f} ({len(ratio[k])} shapes)")
