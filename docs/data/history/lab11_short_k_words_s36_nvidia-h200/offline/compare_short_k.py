#!/usr/bin/env python3
"""The short-K kernel's GPU time a launch, one build against another (default new against base),
from a call's bench_short_k_layouts11 outputs (bench_{tight,layouts}_SIDE_ROUND.txt; each shape's
lesser time over the rounds), tight shapes and layouts together. By the copies the operands' rows
allow, then shape by shape.
Usage: compare_short_k.py CALL_DIR [NEW BASE]"""
import collections
import math
import pathlib
import sys


def read(path):
    rows = {}
    for line in open(path):
        p = line.split()
        if len(p) != 8 or p[0] == "label":
            continue
        rows[p[0]] = (int(p[1]), int(p[2]), float(p[3]), float(p[5]), float(p[6]), float(p[7]))
    return rows


def lesser(call, kind, side):
    runs = [read(f) for f in sorted(pathlib.Path(call).glob(f"bench_{kind}_{side}_*.txt"))]
    return {s: min((r[s] for r in runs), key=lambda v: v[2]) for s in runs[0]}


def copies(bytes_):
    return {16: "16", 8: "4", 4: "4"}.get(bytes_, "2")


def main(argv):
    call = argv[1]
    new_side, base_side = argv[2:4] if len(argv) > 3 else ("new", "base")
    kinds = ["tight", "layouts"]
    groups = collections.defaultdict(list)
    lines = []
    for kind in kinds:
        new, base = lesser(call, kind, new_side), lesser(call, kind, base_side)
        for s in new:
            ratio = new[s][2] / base[s][2]
            key = f"A {copies(new[s][0])}, B {copies(new[s][1])}"
            groups[key].append(ratio)
            groups["all"].append(ratio)
            lines.append((ratio, s, key, base[s][2], new[s][2], new[s][4], new[s][5]))
    print(f"{new_side} / {base_side}, GPU time a launch (geometric mean, least, most, shapes):")
    for key in sorted(groups):
        r = groups[key]
        gm = math.exp(sum(map(math.log, r)) / len(r))
        print(f"  {key:12s} {gm:.3f}  {min(r):.3f}  {max(r):.3f}  {len(r)}")
    print(f"shape copies {base_side}_us {new_side}_us ratio cublas_us(host) rel_l2({new_side})")
    for ratio, s, key, b, n, c, err in sorted(lines):
        print(f"{s:24s} {key:12s} {b:7.2f} {n:7.2f} {ratio:6.3f} {c:7.2f} {err:.1e}")


if __name__ == "__main__":
    main(sys.argv)
