#!/usr/bin/env python3
"""Call 5's random shapes (or another call's: its folder's name as the argument), side by side: for
each seed, new / base GPU time a launch (16 launches in a CUDA graph; geometric mean) over all
shapes, over those whose C's rows are off 16 bytes (N % 4 != 0) and the rest, and the shapes that
moved most.

    PYTHONPATH=../../lab11_short_k_s47_nvidia-h100/offline python3 call5_sides.py > call5_sides.txt
    PYTHONPATH=../../lab11_short_k_s47_nvidia-h100/offline python3 call5_sides.py call_6 > call6_sides.txt

(run from this folder: mean() is session 48's, in that folder's moved_paths.py)
"""
import json
import math
import pathlib
import sys

from moved_paths import mean

call = pathlib.Path(__file__).resolve().parents[1] / (sys.argv[1] if len(sys.argv) > 1 else "call_5")

for seed in ["4998064687210808757", "8444672377437012093"]:
    sides = {
        side: {
            s["shape"]: s
            for s in json.loads((call / f"rs_{side}_{seed}_times.json").read_text())["shapes"]
            if s.get("passed")
        }
        for side in ("base", "new")
    }
    shapes = [s for s in sides["base"] if s in sides["new"]]
    gpu = lambda side, s: sides[side][s]["graph_us_per_launch"]["best"]
    logs = {s: math.log(gpu("new", s) / gpu("base", s)) for s in shapes}
    off = [logs[s] for s in shapes if int(s.split("x")[1]) % 4]
    on = [logs[s] for s in shapes if not int(s.split("x")[1]) % 4]
    print(f"seed {seed}: {len(shapes)} shapes")
    print(
        f"  new / base: {mean(list(logs.values())):.4f} over all, {mean(off):.4f} over the "
        f"{len(off)} with C off 16 bytes, {mean(on):.4f} over the {len(on)} aligned"
    )
    ranked = sorted(shapes, key=lambda s: logs[s])
    for s in ranked[:6] + ranked[-6:]:
        print(f"    {s:18s} base {gpu('base', s):8.2f} new {gpu('new', s):8.2f} {math.exp(logs[s]):.3f}")
