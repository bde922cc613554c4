"""best's GPU time a launch (16 launches in a CUDA graph) with finish_loads.patch (`new`) over main's
(`base`) at each shape of call_1 (shapes_SIDE_ROUND.json, base and new twice in turn), per lab: the
two rounds' ratios, and the geometric mean over the split shapes (all but 2048^3, which is not split).
Run: python3 compare.py"""
import json
import math
from pathlib import Path

call = Path(__file__).parent.parent / "call_1"


def times(side, round_):
    shapes = json.loads((call / f"shapes_{side}_{round_}.json").read_text())["shapes"]
    return {(s["lab"], s["shape"]): s["graph_us_per_launch"]["best"] for s in shapes}


ratios = {}
for round_ in (1, 2):
    base, new = times("base", round_), times("new", round_)
    for key in base:
        ratios.setdefault(key, []).append(new[key] / base[key])
for lab in ("07", "11"):
    print(f"lab {lab}: shape, new / base (rounds 1, 2), base's us in round 1")
    base1 = times("base", 1)
    split = []
    for (l, shape), r in ratios.items():
        if l != lab:
            continue
        print(f"  {shape:16} {r[0]:.3f} {r[1]:.3f}   {base1[(l, shape)]:8.1f}")
        if shape != "2048x2048x2048":
            split += r
    print(f"  split shapes: geometric mean {math.exp(sum(map(math.log, split)) / len(split)):.4f}"
          f" over {len(split)} ratios")
