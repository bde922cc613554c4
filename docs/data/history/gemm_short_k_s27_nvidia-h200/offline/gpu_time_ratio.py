#!/usr/bin/env python3
"""Two random-shapes runs of the same draw side by side: per lab, the geometric mean over its shapes
of the first run's graph-replayed GPU time a launch over the second's, ours and cuBLAS's.
Usage: gpu_time_ratio.py BEFORE_times.json AFTER_times.json"""
import json
import math
import sys


def by_lab(path):
    shapes = json.load(open(path))["shapes"]
    labs = {}
    for shape in shapes:
        labs.setdefault(shape["lab"], {})[shape["shape"]] = shape["graph_us_per_launch"]
    return labs


def main(argv):
    before, after = by_lab(argv[1]), by_lab(argv[2])
    for lab in sorted(before):
        shapes = sorted(set(before[lab]) & set(after[lab]))
        for side in ("best", "reference"):
            logs = [math.log(before[lab][s][side] / after[lab][s][side]) for s in shapes]
            print(f"lab {lab}, {side}: GPU time before / after, geometric mean over {len(shapes)} "
                  f"shapes, {math.exp(sum(logs) / len(logs)):.3f}")


if __name__ == "__main__":
    main(sys.argv)
