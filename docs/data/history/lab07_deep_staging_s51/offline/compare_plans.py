"""Compares the plan times of call.sh's three builds (base, a, b): for each tile, the geometric mean
of a's and b's measured time over base's, plan by plan, at the 30 shapes (plans07_SIDE_PART.json
in the folder given, default ../call_1); then each shape's fastest plan of each build over cuBLAS.
Run: python3 compare_plans.py [FOLDER]"""
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

folder = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent.parent / "call_1")
sides = ("base", "a", "b")
times = {s: {} for s in sides}  # side -> (shape, plan) -> us
cublas = {s: {} for s in sides}
for side in sides:
    for f in sorted(folder.glob(f"plans07_{side}_*.json")):
        for p in json.loads(f.read_text())["problems"]:
            cublas[side][p["problem"]] = p["cublas_us"]
            for plan in p["plans"]:
                if plan["correct"]:
                    times[side][(p["problem"], plan["plan"])] = plan["measured_us"]


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


by_tile = defaultdict(lambda: {"a": [], "b": []})
for key, base_us in times["base"].items():
    tile = key[1].split("/")[0]
    for side in ("a", "b"):
        if key in times[side]:
            by_tile[tile][side].append(times[side][key] / base_us)
print("tile               plans   a/base   b/base   (geometric means of a plan's time over base's)")
for tile, r in sorted(by_tile.items()):
    print(f"{tile:18} {len(r['a']):5}   {gmean(r['a']):.3f}    {gmean(r['b']):.3f}")
print("\nshape            cuBLAS / fastest plan (each build beside its own cuBLAS): base, a, b")
for shape in cublas["base"]:
    row = []
    for side in sides:
        mine = [us for (s, _), us in times[side].items() if s == shape]
        row.append(cublas[side].get(shape, float("nan")) / min(mine) if mine else float("nan"))
    print(f"{shape:16} " + "  ".join(f"{x:.3f}" for x in row))
