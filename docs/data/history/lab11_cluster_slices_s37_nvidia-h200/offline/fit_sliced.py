#!/usr/bin/env python3
"""Fits the sliced short-K kernel's constants (best_plan.h: kSlicedStartUs, kSlicedChunkUs) to the
bench's "plan" lines of K in 2 or more slices with at most a block an SM (Nelder-Mead on the mean
|log(predicted / measured)|), by copies; then fits a model of rounds of two blocks an SM to every
plan, to show what more blocks than SMs do to it (by blocks an SM, and at two by count of slices:
clusters pack unevenly onto the GPU's clusters of SMs). The short-K kernel's own constants are
best_plan.h's.

    fit_sliced.py BENCH_OUTPUT... [--sms 132]
"""
import argparse
import collections
import math

import numpy as np
from scipy.optimize import minimize

ROWS, COLS, CHUNK, BLOCKS_PER_SM = 64, 128, 32, 2
SM_GFLOPS, WORD_NS, ELEMENT_NS, DRAM_SHARE = 1544.0, 0.032, 0.128, 0.825
DRAM_GBPS = 2.0 * 1024**3 / 0.7627e-3 / 1e9


def value_ns(bytes_):
    return 0.0 if bytes_ == 16 else WORD_NS if bytes_ == 4 else ELEMENT_NS


def chunk_us(a_bytes, b_bytes):
    copies_ns = ROWS * CHUNK * value_ns(a_bytes) + CHUNK * COLS * value_ns(b_bytes)
    return 2.0 * ROWS * COLS * CHUNK / (SM_GFLOPS * 1e3) + copies_ns * 1e-3


def read_plans(paths, sms):
    plans = []
    for path in paths:
        for line in open(path):
            f = line.split()
            if len(f) != 9 or f[0] != "plan" or int(f[4]) < 2:
                continue
            m, n, k = (int(x) for x in f[1].split("+")[0].split("x"))
            blocks = math.ceil(m / ROWS) * math.ceil(n / COLS) * int(f[4])
            plans.append(
                {
                    "label": f[1],
                    "slices": int(f[4]),
                    "chunks": math.ceil(int(f[5]) / CHUNK),
                    "per_sm": math.ceil(blocks / sms),
                    "chunk_us": chunk_us(int(f[2]), int(f[3])),
                    "memory_us": (4.0 * m * n + 2.0 * (m + n) * k) / (DRAM_SHARE * DRAM_GBPS * 1e3),
                    "us": float(f[6]),
                }
            )
    return plans


def predicted(p, start_us, lone_chunk_us):
    """best_plan.h's predicted_sliced_us: a block an SM at most."""
    return max(start_us + p["chunks"] * (lone_chunk_us + p["chunk_us"]), p["memory_us"])


def predicted_in_rounds(p, round_us, lone_chunk_us):
    """Rounds of BLOCKS_PER_SM blocks an SM, each round_us and its chunks, a chunk the SM's time
    on each block of the round or, a block alone, that and lone_chunk_us."""
    rounds = math.ceil(p["per_sm"] / BLOCKS_PER_SM)
    chunk = max(lone_chunk_us + p["chunk_us"], min(p["per_sm"], BLOCKS_PER_SM) * p["chunk_us"])
    return max(rounds * (round_us + p["chunks"] * chunk), p["memory_us"])


def fit(plans, model):
    def loss(x):
        if min(x) < 0:
            return 10.0
        return np.mean([abs(math.log(model(p, *x) / p["us"])) for p in plans])

    return minimize(loss, [3.0, 0.2], method="Nelder-Mead", options={"xatol": 1e-4, "fatol": 1e-7})


def report(label, errors):
    print(f"  {label}: {len(errors)} plans, mean log(predicted / measured) {np.mean(errors):+.3f}, "
          f"mean |log| {np.mean(np.abs(errors)):.3f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outputs", nargs="+")
    parser.add_argument("--sms", type=int, default=132)
    args = parser.parse_args()
    every = read_plans(args.outputs, args.sms)
    alone = [p for p in every if p["per_sm"] == 1]
    kept = fit(alone, predicted)
    start_us, lone_chunk_us = kept.x
    print(f"{len(alone)} sliced plans of a block an SM at most, {len({p['label'] for p in alone})} "
          f"shapes and layouts: kSlicedStartUs {start_us:.2f}, kSlicedChunkUs {lone_chunk_us:.3f}, "
          f"mean |log error| {kept.fun:.3f}; by the SM's time on a chunk (copies):")
    by_chunk = collections.defaultdict(list)
    for p in alone:
        by_chunk[round(p["chunk_us"], 3)].append(math.log(predicted(p, *kept.x) / p["us"]))
    for chunk_us_, errors in sorted(by_chunk.items()):
        report(f"{chunk_us_:.3f} us", errors)

    rounds = fit(every, predicted_in_rounds)
    print(f"every {len(every)} sliced plans, rounds of {BLOCKS_PER_SM} blocks an SM: round "
          f"{rounds.x[0]:.2f} us, a lone chunk {rounds.x[1]:.3f} us past the SM's, mean |log error| "
          f"{rounds.fun:.3f}; by blocks an SM (and at two, slices):")
    by_load = collections.defaultdict(list)
    for p in every:
        key = (min(p["per_sm"], 5), p["slices"] if p["per_sm"] == 2 else 0)
        by_load[key].append(math.log(predicted_in_rounds(p, *rounds.x) / p["us"]))
    for (per_sm, slices), errors in sorted(by_load.items()):
        label = f"{per_sm}{' or more' if per_sm == 5 else ''} blocks an SM"
        report(label + (f", {slices} slices" if slices else ""), errors)


if __name__ == "__main__":
    main()
