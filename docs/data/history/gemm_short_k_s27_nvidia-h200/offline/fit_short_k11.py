#!/usr/bin/env python3
"""Lab 11's short-K model (best_plan.h: predicted_short_k_us) against the short-K kernel's graph
times in bench11.txt: the model's constants as committed, then refitted (coordinate search on a
log grid, mean |log(model / measured)|), and each shape's error under both.
Usage: fit_short_k11.py bench11.txt [SMS]"""
import math
import sys

ROWS, COLS, CHUNK = 64, 128, 32
DRAM_GBPS = 2.0 * 1024**3 / 0.7627e-3 / 1e9  # best_plan.h: kDramGBps
COMMITTED = {"start_us": 2.8, "sm_gflops": 1250.0, "element_ns": 0.12, "dram_share": 0.8}


def ceil_div(a, b):
    return -(-a // b)


def model(p, m, n, k, va, vb, sms):
    per_sm = ceil_div(ceil_div(m, ROWS) * ceil_div(n, COLS), sms)
    chunks = ceil_div(k, CHUNK)
    single = (0 if va else ROWS * CHUNK) + (0 if vb else CHUNK * COLS)
    chunk_us = 2.0 * ROWS * COLS * CHUNK / (p["sm_gflops"] * 1e3) + single * p["element_ns"] * 1e-3
    memory_us = (4.0 * m * n + 2.0 * (m + n) * k) / (p["dram_share"] * DRAM_GBPS * 1e3)
    return p["start_us"] + max(per_sm * chunks * chunk_us, memory_us)


def error(p, rows, sms):
    return sum(abs(math.log(model(p, *r[:5], sms) / r[5])) for r in rows) / len(rows)


def fit(rows, sms):
    p = dict(COMMITTED)
    step = 0.5
    while step > 0.005:
        improved = False
        for key in p:
            for factor in (math.exp(step), math.exp(-step)):
                trial = dict(p, **{key: p[key] * factor})
                if error(trial, rows, sms) < error(p, rows, sms):
                    p, improved = trial, True
        if not improved:
            step /= 2
    return p


def main(argv):
    sms = int(argv[2]) if len(argv) > 2 else 132
    rows = []
    for line in open(argv[1]):
        parts = line.split()
        if len(parts) != 11 or not parts[0].isdigit():
            continue
        m, n, k, va, vb = (int(x) for x in parts[:5])
        rows.append((m, n, k, bool(va), bool(vb), float(parts[6]), float(parts[5])))
    fitted = fit(rows, sms)
    print(f"{len(rows)} shapes, {sms} SMs")
    for name, p in (("committed", COMMITTED), ("refitted", fitted)):
        print(f"{name}: " + ", ".join(f"{k} {v:.4g}" for k, v in p.items()) +
              f"; mean |log error| {error(p, rows, sms):.3f}")
    print("m n k vector_a vector_b graph_us committed_us refitted_us")
    for r in rows:
        print(f"{r[0]} {r[1]} {r[2]} {int(r[3])} {int(r[4])} {r[5]:.2f} "
              f"{model(COMMITTED, *r[:5], sms):.2f} {model(fitted, *r[:5], sms):.2f}")


if __name__ == "__main__":
    main(sys.argv)
