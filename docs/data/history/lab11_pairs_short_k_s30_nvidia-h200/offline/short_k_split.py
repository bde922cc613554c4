#!/usr/bin/env python3
"""The short-K kernel with its element copies split around the multiply (new) against HEAD's (base), from call 2's
bench_short_k11 runs (two rounds a build, interleaved): per shape the GPU time a launch (graph replays, the lesser
of the two rounds), new / base; then the geometric means over all shapes, those with either operand's rows off 16
bytes, and those with both.

Usage: short_k_split.py CALL_2_DIR
"""
import math
import pathlib
import sys

FIELDS = "m n k vector_a vector_b model_us graph_us short_us best_us cublas_us rel_l2".split()


def load(path):
    rows = {}
    for line in pathlib.Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) == len(FIELDS) and parts[0].isdigit():
            rows["x".join(parts[:3])] = dict(zip(FIELDS, parts))
    return rows


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main(argv):
    d = pathlib.Path(argv[1])
    runs = {v: [load(d / f"short_k11_{v}_{r}.txt") for r in (1, 2)] for v in ("new", "base")}
    print("shape              A16 B16  base_us  new_us  new/base  rel_l2(new)")
    ratios = {"all": [], "either off 16 bytes": [], "both off 16 bytes": []}
    for shape, row in runs["new"][0].items():
        base = min(float(r[shape]["graph_us"]) for r in runs["base"])
        new = min(float(r[shape]["graph_us"]) for r in runs["new"])
        aligned = (row["vector_a"] == "1", row["vector_b"] == "1")
        ratios["all"].append(new / base)
        if not all(aligned):
            ratios["either off 16 bytes"].append(new / base)
        if not any(aligned):
            ratios["both off 16 bytes"].append(new / base)
        print("%-18s %3s %3s %8.1f %7.1f %9.3f  %s" % (shape, row["vector_a"], row["vector_b"], base, new, new / base,
                                                       row["rel_l2"]))
    for name, values in ratios.items():
        print("%s: %d shapes, new / base %.3f (least %.3f, most %.3f)" % (name, len(values), geomean(values),
                                                                          min(values), max(values)))


if __name__ == "__main__":
    main(sys.argv)
