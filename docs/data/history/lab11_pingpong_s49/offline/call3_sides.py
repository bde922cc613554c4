#!/usr/bin/env python3
"""Call 3's random shapes, side by side: for each seed, sk / base and s0 / base GPU time a launch
(geometric mean) over all shapes, over those whose C's rows are off 16 bytes (N % 4 != 0) and the
rest, and the shapes that moved most; with paths11 binaries for the base's and s0's models (session
46's paths11.cpp, built with -DPATHS11_C_BYTES against main and against main with the charge at 0),
each shape's path in either.

    PYTHONPATH=../../lab11_short_k_s47_nvidia-h100/offline \
        python3 call3_sides.py PATHS11_BASE PATHS11_S0 > call3_sides.txt

(run from this folder: paths() and mean() are session 48's, in that folder's moved_paths.py)
"""
import json
import math
import pathlib
import sys

from moved_paths import mean, paths

call = pathlib.Path(__file__).resolve().parents[1] / "call_3"

for seed in ["4998064687210808757", "8444672377437012093"]:
    load = lambda side: {
        s["shape"]: s
        for s in json.loads((call / f"rs_{side}_{seed}_times.json").read_text())["shapes"]
        if s.get("passed")
    }
    sides = {side: load(side) for side in ("base", "sk", "s0")}
    shapes = [s for s in sides["base"] if all(s in sides[x] for x in sides)]
    base_paths, s0_paths = (dict(zip(shapes, paths(b, shapes))) for b in sys.argv[1:3])
    gpu = lambda side, s: sides[side][s]["graph_us_per_launch"]["best"]
    print(f"seed {seed}: {len(shapes)} shapes")
    for side in ("sk", "s0"):
        logs = {s: math.log(gpu(side, s) / gpu("base", s)) for s in shapes}
        off = [logs[s] for s in shapes if int(s.split("x")[1]) % 4]
        on = [logs[s] for s in shapes if not int(s.split("x")[1]) % 4]
        print(
            f"  {side} / base: {mean(list(logs.values())):.4f} over all, {mean(off):.4f} over "
            f"the {len(off)} with C off 16 bytes, {mean(on):.4f} over the {len(on)} aligned"
        )
        ranked = sorted(shapes, key=lambda s: logs[s])
        for s in ranked[:8] + ranked[-4:]:
            moved = "" if base_paths[s] == s0_paths[s] or side == "sk" else f" [{base_paths[s]}] -> [{s0_paths[s]}]"
            print(
                f"    {s:18s} base {gpu('base', s):8.2f} {side} {gpu(side, s):8.2f} " f"{math.exp(logs[s]):.3f}{moved}"
            )
    for s in shapes:
        if base_paths[s] != s0_paths[s]:
            print(
                f"  s0 moves {s}: [{base_paths[s]}] -> [{s0_paths[s]}]: base {gpu('base', s):.2f} "
                f"sk {gpu('sk', s):.2f} s0 {gpu('s0', s):.2f}"
            )
