#!/usr/bin/env python3
"""Pairs a new build's random-shapes times with the base's, shape by shape (same seed, same call):
compare_rs.py NEW_times.json BASE_times.json [--worst N]. Prints, for each side, the geometric mean,
10th percentile and least of cuBLAS time / best time, then the geometric mean of new / base GPU
time (graph replays, host excluded) and the shapes that moved most either way."""
import argparse, json, math


def load(path):
    return {s["shape"]: s for s in json.load(open(path))["shapes"] if s.get("passed")}


def pct10(values):
    v = sorted(values)
    pos = 0.1 * (len(v) - 1)
    lo = int(math.floor(pos))
    return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (pos - lo)


def summary(shapes):
    r = [s["reference_ms"] / s["best_ms"] for s in shapes.values()]
    gm = math.exp(sum(map(math.log, r)) / len(r))
    return f"geometric mean {gm:.3f}, 10th percentile {pct10(r):.3f}, least {min(r):.3f} ({len(r)} shapes)"


def graph(s, side):
    g = s.get("graph_us_per_launch") or {}
    return g.get(side)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("new")
    p.add_argument("base")
    p.add_argument("--worst", type=int, default=8)
    a = p.parse_args()
    new, base = load(a.new), load(a.base)
    print("new: ", summary(new))
    print("base:", summary(base))
    rows = []
    for shape in sorted(set(new) & set(base)):
        gn, gb = graph(new[shape], "best"), graph(base[shape], "best")
        if gn and gb:
            rows.append((gn / gb, shape, gb, gn, graph(new[shape], "reference")))
    gm = math.exp(sum(math.log(r[0]) for r in rows) / len(rows))
    print(f"new / base GPU time (graph): geometric mean {gm:.4f} over {len(rows)} shapes")
    rows.sort()
    for title, part in (("faster", rows[: a.worst]), ("slower", rows[::-1][: a.worst])):
        print(f"most {title}: shape base_us new_us cublas_us new/base")
        for r, shape, gb, gn, gc in part:
            print(f"  {shape:>18} {gb:9.2f} {gn:9.2f} {gc or float('nan'):9.2f} {r:7.3f}")


if __name__ == "__main__":
    main()
