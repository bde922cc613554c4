#!/usr/bin/env python3
"""Lab 11's short-K model (best_plan.h: predicted_short_k_us, K whole) refitted with its two terms,
the SM's chunks and the traffic at a share of DRAM's rate, joined by a p-norm instead of their
maximum: the H100 times of call_1 (session 48; bench_short_k11, K whole) and session 36's H200
times of the same kernel (bench_short_k_layouts11, call 7, `kept`), fitted together (coordinate
search on a log grid, mean |log(model / measured)|), each GPU's error shown before and after.
Usage: fit_short_k_norm.py H100_BENCH.txt -- H200_BENCH.txt [H200_BENCH.txt ...]"""
import math
import sys

ROWS, COLS, CHUNK, SMS = 64, 128, 32, 132
DRAM_GBPS = 2.0 * 1024**3 / 0.7627e-3 / 1e9  # best_plan.h: kDramGBps
BEFORE = {"start_us": 2.76, "sm_gflops": 1544.0, "word_ns": 0.032, "element_ns": 0.128,
          "dram_share": 0.825, "p": 64.0}  # p 64: the maximum, as committed


def ceil_div(a, b):
    return -(-a // b)


def copies(widest):
    return 16 if widest == 16 else 4 if widest >= 4 else 2


def model(q, m, n, k, a_bytes, b_bytes):
    per_sm = ceil_div(ceil_div(m, ROWS) * ceil_div(n, COLS), SMS)
    ns = {16: 0.0, 4: q["word_ns"], 2: q["element_ns"]}
    copies_ns = ROWS * CHUNK * ns[a_bytes] + CHUNK * COLS * ns[b_bytes]
    chunk_us = 2.0 * ROWS * COLS * CHUNK / (q["sm_gflops"] * 1e3) + copies_ns * 1e-3
    sm_us = per_sm * ceil_div(k, CHUNK) * chunk_us
    memory_us = (4.0 * m * n + 2.0 * (m + n) * k) / (q["dram_share"] * DRAM_GBPS * 1e3)
    p = q["p"]
    return q["start_us"] + (sm_us**p + memory_us**p) ** (1.0 / p)


def error(q, rows):
    return sum(abs(math.log(model(q, *r[1:6]) / r[6])) for r in rows) / len(rows)


def fit(rows, start):
    q = dict(start, p=2.0)
    step = 0.5
    while step > 0.005:
        improved = False
        for key in q:
            for factor in (math.exp(step), math.exp(-step)):
                trial = dict(q, **{key: q[key] * factor})
                if trial["p"] >= 1.0 and error(trial, rows) < error(q, rows):
                    q, improved = trial, True
        if not improved:
            step /= 2
    return q


def read_h100(path):
    rows = []
    for line in open(path):
        f = line.split()
        if len(f) >= 8 and f[0] != "label" and f[3] == "1":  # K whole
            m, n, k = (int(x) for x in f[0].split("+")[0].split("x"))
            rows.append((f[0], m, n, k, copies(int(f[1])), copies(int(f[2])), float(f[4])))
    return rows


def read_h200(paths):
    best = {}
    for path in paths:
        for line in open(path):
            f = line.split()
            if len(f) != 8 or f[0] == "label":
                continue
            m, n, k = (int(x) for x in f[0].split("+")[0].split("x"))
            row = (f[0], m, n, k, copies(int(f[1])), copies(int(f[2])), float(f[3]))
            if f[0] not in best or row[6] < best[f[0]][6]:
                best[f[0]] = row
    return list(best.values())


def main(argv):
    cut = argv.index("--")
    h100, h200 = read_h100(argv[1]), read_h200(argv[cut + 1:])
    fitted = fit(h100 + h200, BEFORE)
    print(f"{len(h100)} H100 shapes, {len(h200)} H200 shapes and layouts, {SMS} SMs")
    for name, q in (("before (maximum)", BEFORE), ("refitted (p-norm)", fitted)):
        print(f"{name}: " + ", ".join(f"{k} {v:.4g}" for k, v in q.items()))
        print(f"  mean |log error|: H100 {error(q, h100):.3f}, H200 {error(q, h200):.3f}, "
              f"both {error(q, h100 + h200):.3f}")
    print("H100: label measured_us before_us refitted_us")
    for r in h100:
        print(f"  {r[0]:18s} {r[6]:7.2f} {model(BEFORE, *r[1:6]):7.2f} {model(fitted, *r[1:6]):7.2f}")


if __name__ == "__main__":
    main(sys.argv)
