"""exp (operand_loads.patch) against base over both random-shapes seeds of lab 07
(call_1/rs_SIDE_SEED_times.json): each run's summary line; exp's GPU time a launch over base's,
geometric mean, over all shapes and by which rows are off 16 bytes; each side's ratio to cuBLAS
(cuBLAS time / best time) by class: geometric mean, 10th percentile, least.
Run from the repository root: PYTHONPATH=python python3 docs/data/history/lab07_operand_loads_s52/offline/sides.py"""
import json
import math
from pathlib import Path

from cudalabs.records.random_shapes import percentile

call = Path(__file__).parent.parent / "call_1"
classes = ("all rows aligned", "B and C off only (N % 4 != 0, K % 4 == 0)",
           "A, B and C off (N % 4 != 0, K % 4 != 0)", "A off only (K % 4 != 0, N % 4 == 0)")


def class_of(shape):
    _, n, k = map(int, shape.split("x"))
    if n % 4:
        return classes[2 if k % 4 else 1]
    return classes[3 if k % 4 else 0]


def gm(values):
    return math.exp(sum(map(math.log, values)) / len(values))


for seed in ("4998064687210808757", "8444672377437012093"):
    shapes = {}
    for side in ("base", "exp"):
        path = call / f"rs_{side}_{seed}_times.json"
        shapes[side] = {s["shape"]: s for s in json.loads(path.read_text())["shapes"] if s["lab"] == "07"}
        summary = (call / f"rs_{side}_{seed}_summary.txt").read_text().splitlines()
        print(seed, side, next(line.strip() for line in summary if "geometric mean" in line))
    for c in ("all",) + classes:
        names = [s for s in shapes["base"] if c == "all" or class_of(s) == c]
        if not names:
            continue
        gpu = [shapes["exp"][s]["graph_us_per_launch"]["best"] / shapes["base"][s]["graph_us_per_launch"]["best"]
               for s in names]
        line = f"  {c}: {len(names)} shapes, exp GPU time / base {gm(gpu):.4f}"
        for side in ("base", "exp"):
            r = [shapes[side][s]["reference_ms"] / shapes[side][s]["best_ms"] for s in names]
            line += f"; {side} vs cuBLAS GM {gm(r):.3f} p10 {percentile(r, 0.10):.3f} least {min(r):.3f}"
        print(line)
