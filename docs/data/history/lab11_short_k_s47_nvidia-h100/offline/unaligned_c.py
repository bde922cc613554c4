#!/usr/bin/env python3
"""What C's rows off 16 bytes cost lab 11's warp-specialized kernel (best_plan.h:
unaligned_c_store_share): at the random shapes that `best` ran on tiles with K whole and K at most
512 (session 44's base records and the four of call_1 here, H100; the median of each shape's GPU
times a launch), the time beyond what the model predicts for the plan (session 46's paths11, built
against the base, c4b0d43), a round of tiles, over one unit's store (unit_store_us, 30 GB/s an SM). By tile
width and the widest store C's rows allow (tight rows: N % 4, N % 2), over shapes of more than one
round, whose stores delay the next round.

    python3 unaligned_c.py PATHS11_BASE > unaligned_c.txt
"""
import collections
import json
import math
import pathlib
import re
import statistics
import subprocess
import sys

history = pathlib.Path(__file__).resolve().parents[2]
seeds = ["4998064687210808757", "8444672377437012093"]
files = [history / f"lab11_pairs_s44_nvidia-h100/call_1/rs_base_{s}_times.json" for s in seeds]
files += [history / f"lab11_short_k_s47_nvidia-h100/call_1/rs_base_{s}_{r}_times.json"
          for s in seeds for r in "12"]
times = collections.defaultdict(list)
for path in files:
    for s in json.loads(path.read_text())["shapes"]:
        if s.get("graph_us_per_launch") and s.get("passed", True):
            times[s["shape"]].append(s["graph_us_per_launch"]["best"])
shapes = list(times)
lines = subprocess.run([sys.argv[1]] + shapes, capture_output=True, text=True,
                       check=True).stdout.splitlines()
rows = []
for shape, line in zip(shapes, lines):
    fields = line.split()
    m, n, k = (int(x) for x in shape.split("x"))
    if not fields[1].startswith("tiles") or "slices" in line or k > 512:
        continue
    tile_rows, width = (int(x) for x in re.search(r"(\d+) x (\d+) tiles", line).groups())
    rounds = math.ceil(math.ceil(m / tile_rows) * math.ceil(n / width) / 132)
    c_floats = 4 if n % 4 == 0 else 2 if n % 2 == 0 else 1
    store_us = 4.0 * tile_rows * width / 30e3
    measured, predicted = statistics.median(times[shape]), float(fields[2])
    share = (measured - predicted) / rounds / store_us
    rows.append((width, c_floats, rounds, shape, fields[1], predicted, measured, share))
print("width c_floats rounds shape path predicted_us measured_us beyond_a_round_over_a_store")
for r in sorted(rows):
    print("%3d %d %3d %-18s %-13s %8.2f %8.2f %+6.2f" % r)
print("over shapes of more than one round: width, C's rows: shapes, median (least .. most)")
groups = collections.defaultdict(list)
for width, c_floats, rounds, *_, share in rows:
    if rounds > 1:
        groups[(width, "16-byte" if c_floats == 4 else "off 16 bytes")].append(share)
for (width, aligned), shares in sorted(groups.items()):
    print(f"  {width:3d} {aligned:12s} {len(shares):2d}  {statistics.median(shares):+.2f} "
          f"({min(shares):+.2f} .. {max(shares):+.2f})")
