"""The model's misses at session 44's base random shapes (lab 11 at c4b0d43, H100): each shape's
GPU time a launch of `best` (graph replays) over what the model predicts for the path `best`
takes (paths11, built against c4b0d43), by path, and the shapes under the 10th percentile.

    python3 model_misses.py PATHS11 > ../offline/model_misses_s44_base.txt
"""
import collections
import json
import math
import pathlib
import subprocess
import sys

record = pathlib.Path(__file__).resolve().parents[2] / "lab11_pairs_s44_nvidia-h100" / "call_1"
rows = []
for seed in ["4998064687210808757", "8444672377437012093"]:
    times = json.loads((record / f"rs_base_{seed}_times.json").read_text())
    for s in times["shapes"]:
        graph = s["graph_us_per_launch"]
        if graph:
            ratio = s["reference_ms"] / s["best_ms"]
            rows.append((s["shape"], graph["best"], graph["reference"], ratio))
lines = subprocess.run(
    [sys.argv[1]] + [r[0] for r in rows], capture_output=True, text=True, check=True
).stdout.splitlines()
by_path = collections.defaultdict(list)
table = []
for (shape, best_us, cublas_us, ratio), line in zip(rows, lines):
    fields = line.split()
    path, predicted = fields[1], float(fields[2])
    by_path[path].append(best_us / predicted)
    table.append((ratio, shape, path, predicted, best_us, cublas_us))
print("path: shapes, measured / predicted (geometric mean, least, most)")
for path, errors in sorted(by_path.items()):
    mean = math.exp(sum(map(math.log, errors)) / len(errors))
    print(f"  {path:15s} {len(errors):3d}  {mean:.2f}  {min(errors):.2f}  {max(errors):.2f}")
print("the 24 lowest ratios: ratio shape path predicted_us best_us cublas_us (graph, a launch)")
for row in sorted(table)[:24]:
    print("  %.3f %-18s %-14s %8.2f %8.2f %8.2f" % row)
