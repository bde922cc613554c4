#!/usr/bin/env python3
"""Lab 11's short-K model (best_plan.h: predicted_short_k_us) fitted to the kernel's GPU time a
launch in bench_short_k_layouts11 outputs (each shape's lesser time over the files given): the
constants as committed before the fit, then refitted (coordinate search on a log grid, mean
|log(model / measured)|), and the shapes the refitted model misses most.
Usage: fit_short_k.py BENCH.txt [BENCH.txt ...]"""
import math
import sys

ROWS, COLS, CHUNK, SMS = 64, 128, 32, 132
DRAM_GBPS = 2.0 * 1024**3 / 0.7627e-3 / 1e9  # best_plan.h: kDramGBps
BEFORE = {"start_us": 2.8, "sm_gflops": 1250.0, "word_ns": 0.12, "element_ns": 0.12,
          "dram_share": 0.8}


def ceil_div(a, b):
    return -(-a // b)


def copy_ns(p, bytes_):
    return {16: 0.0, 4: p["word_ns"], 2: p["element_ns"]}[bytes_]


def model(p, m, n, k, a_bytes, b_bytes):
    per_sm = ceil_div(ceil_div(m, ROWS) * ceil_div(n, COLS), SMS)
    chunks = ceil_div(k, CHUNK)
    copies_ns = ROWS * CHUNK * copy_ns(p, a_bytes) + CHUNK * COLS * copy_ns(p, b_bytes)
    chunk_us = 2.0 * ROWS * COLS * CHUNK / (p["sm_gflops"] * 1e3) + copies_ns * 1e-3
    memory_us = (4.0 * m * n + 2.0 * (m + n) * k) / (p["dram_share"] * DRAM_GBPS * 1e3)
    return p["start_us"] + max(per_sm * chunks * chunk_us, memory_us)


def error(p, rows):
    return sum(abs(math.log(model(p, *r[1:6]) / r[6])) for r in rows) / len(rows)


def fit(rows, start):
    p = dict(start)
    step = 0.5
    while step > 0.005:
        improved = False
        for key in p:
            for factor in (math.exp(step), math.exp(-step)):
                trial = dict(p, **{key: p[key] * factor})
                if error(trial, rows) < error(p, rows):
                    p, improved = trial, True
        if not improved:
            step /= 2
    return p


def copies(widest):
    return 16 if widest == 16 else 4 if widest >= 4 else 2


def read(paths):
    """(label, m, n, k, a_bytes, b_bytes, graph_us): each shape's lesser time over `paths`."""
    best = {}
    for path in paths:
        for line in open(path):
            parts = line.split()
            if len(parts) != 8 or parts[0] == "label":
                continue
            m, n, k = (int(x) for x in parts[0].split("+")[0].split("x"))
            row = (parts[0], m, n, k, copies(int(parts[1])), copies(int(parts[2])),
                   float(parts[3]))
            if parts[0] not in best or row[6] < best[parts[0]][6]:
                best[parts[0]] = row
    return list(best.values())


def main(argv):
    rows = read(argv[1:])
    fitted = fit(rows, BEFORE)
    print(f"{len(rows)} shapes, {SMS} SMs")
    for name, p in (("before", BEFORE), ("refitted", fitted)):
        print(f"{name}: " + ", ".join(f"{k} {v:.4g}" for k, v in p.items()) +
              f"; mean |log error| {error(p, rows):.3f}")
    print("the refitted model's largest misses: label a_bytes b_bytes graph_us model_us")
    for r in sorted(rows, key=lambda r: -abs(math.log(model(fitted, *r[1:6]) / r[6])))[:25]:
        print(f"{r[0]:24s} {r[4]:2d} {r[5]:2d} {r[6]:7.2f} {model(fitted, *r[1:6]):7.2f}")


if __name__ == "__main__":
    main(sys.argv)
