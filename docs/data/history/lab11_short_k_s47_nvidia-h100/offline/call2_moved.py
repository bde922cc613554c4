#!/usr/bin/env python3
"""Call 2's random shapes (unaligned_c.patch against main, one round a seed), shape by shape: the
path `best` takes in each build (session 46's paths11.cpp built against main, and against the
patched tree with -DPATHS11_C_BYTES), new / base GPU time (geometric mean) over all shapes and over
those whose path did not move, and the moved shapes' times.

    python3 call2_moved.py PATHS11_BASE PATHS11_PATCHED > call2_moved.txt
"""
import json
import math
import pathlib
import sys

from moved_paths import mean, paths

call = pathlib.Path(__file__).resolve().parents[1] / "call_2"

for seed in ["4998064687210808757", "8444672377437012093"]:
    load = lambda side: {s["shape"]: s["graph_us_per_launch"]["best"] for s in json.loads(
        (call / f"rs_{side}_{seed}_times.json").read_text())["shapes"] if s.get("passed")}
    new, base = load("new"), load("base")
    shapes = [s for s in new if s in base]
    all_logs, same_logs = [], []
    print(f"seed {seed}: shape [base path] -> [patched path]: base_us new_us")
    for s, b, n in zip(shapes, paths(sys.argv[1], shapes), paths(sys.argv[2], shapes)):
        log = math.log(new[s] / base[s])
        all_logs.append(log)
        if b == n:
            same_logs.append(log)
        else:
            print(f"  {s:18s} [{b}] -> [{n}]: {base[s]:.2f} {new[s]:.2f}")
    print(f"  new / base: {mean(all_logs):.4f} over {len(all_logs)} shapes; "
          f"{mean(same_logs):.4f} over the {len(same_logs)} whose path did not move")
