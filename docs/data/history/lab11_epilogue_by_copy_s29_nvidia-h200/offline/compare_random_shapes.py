#!/usr/bin/env python3
"""Two gemm-random-shapes timing records of the same shapes side by side (a new build and a base build).

For each: the geometric mean, 10th percentile and least of cuBLAS time / best time (medians of interleaved rounds);
then over the shapes both timed, the geometric mean of new / base GPU time a launch (graph replays) for best and for
cuBLAS, and the shapes whose best GPU time moved most.

Usage: compare_random_shapes.py NEW_TIMES.json BASE_TIMES.json [LAB]      (LAB: 07 or 11, default 11)
"""
import json
import math
import sys


def shapes(path, lab):
    return {s["shape"]: s for s in json.load(open(path))["shapes"] if s["lab"] == lab and s.get("passed")}


def percentile(values, p):
    v = sorted(values)
    x = p * (len(v) - 1)
    lo = int(x)
    return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (x - lo)


def summary(name, runs):
    ratios = [s["reference_ms"] / s["best_ms"] for s in runs.values()]
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(
        "%s: %d shapes, ratio geometric mean %.3f, 10th percentile %.3f, least %.3f"
        % (name, len(ratios), geo, percentile(ratios, 0.1), min(ratios))
    )


def graph(s, side):
    return (s.get("graph_us_per_launch") or {}).get(side)


def main(argv):
    lab = argv[3] if len(argv) > 3 else "11"
    new, base = shapes(argv[1], lab), shapes(argv[2], lab)
    summary("new ", new)
    summary("base", base)
    both = [k for k in new if k in base and graph(new[k], "best") and graph(base[k], "best")]
    for side in ("best", "reference"):
        logs = [math.log(graph(new[k], side) / graph(base[k], side)) for k in both if graph(base[k], side)]
        print("GPU time a launch, new / base, %s: %.4f over %d shapes" % (side, math.exp(sum(logs) / len(logs)), len(logs)))
    moved = sorted(both, key=lambda k: graph(new[k], "best") / graph(base[k], "best"))
    print("moved most (best's GPU time a launch, us: new, base):")
    for k in moved[:6] + moved[-6:]:
        print("  %-20s %8.1f %8.1f  %.3f" % (k, graph(new[k], "best"), graph(base[k], "best"), graph(new[k], "best") / graph(base[k], "best")))


if __name__ == "__main__":
    main(sys.argv)
