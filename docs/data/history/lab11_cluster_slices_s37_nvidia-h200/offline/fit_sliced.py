#!/usr/bin/env python3
"""Fits the sliced short-K kernel's constants (best_plan.h: kSlicedStartUs + kSlicedSumUs, which the
model only sees together, and kSlicedChunkUs) to the bench's "plan" lines of K in 2 or more slices:
the pair with the least mean |log(predicted / measured)|, on a grid. The other constants are the
short-K kernel's, as best_plan.h states them.

    fit_sliced.py BENCH_OUTPUT... [--sms 132] [--start 2.76]
"""
import argparse
import math

ROWS, COLS, CHUNK, BLOCKS_PER_SM = 64, 128, 32, 2
SM_GFLOPS, WORD_NS, ELEMENT_NS, DRAM_SHARE = 1544.0, 0.032, 0.128, 0.825
DRAM_GBPS = 2.0 * 1024**3 / 0.7627e-3 / 1e9


def value_ns(bytes_):
    return 0.0 if bytes_ == 16 else WORD_NS if bytes_ == 4 else ELEMENT_NS


def chunk_us(a_bytes, b_bytes):
    copies_ns = ROWS * CHUNK * value_ns(a_bytes) + CHUNK * COLS * value_ns(b_bytes)
    return 2.0 * ROWS * COLS * CHUNK / (SM_GFLOPS * 1e3) + copies_ns * 1e-3


def terms(m, n, k, a_bytes, b_bytes, slices, slice_k, sms):
    """(chunks, per_sm, the SM-rate time a chunk, the memory time) of one plan."""
    blocks = math.ceil(m / ROWS) * math.ceil(n / COLS) * slices
    per_sm = math.ceil(blocks / sms)
    memory = (4.0 * m * n + 2.0 * (m + n) * k) / (DRAM_SHARE * DRAM_GBPS * 1e3)
    return math.ceil(slice_k / CHUNK), per_sm, per_sm * chunk_us(a_bytes, b_bytes), memory


def predicted(t, fixed_us, lone_chunk_us):
    chunks, per_sm, rate_us, memory = t
    lone = math.ceil(per_sm / BLOCKS_PER_SM) * lone_chunk_us
    return fixed_us + max(chunks * max(rate_us, lone), memory)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outputs", nargs="+")
    parser.add_argument("--sms", type=int, default=132)
    parser.add_argument("--start", type=float, default=2.76)
    args = parser.parse_args()
    rows = []
    for path in args.outputs:
        for line in open(path):
            f = line.split()
            if len(f) != 9 or f[0] != "plan" or int(f[4]) < 2:
                continue
            m, n, k = (int(x) for x in f[1].split("+")[0].split("x"))
            t = terms(m, n, k, int(f[2]), int(f[3]), int(f[4]), int(f[5]), args.sms)
            rows.append((f[1], int(f[4]), float(f[6]), t))
    best = None
    for i in range(200, 801):
        fixed = i / 100
        for j in range(5, 81):
            lone = j / 200
            err = sum(abs(math.log(predicted(t, fixed, lone) / us)) for _, _, us, t in rows) / len(rows)
            if best is None or err < best[0]:
                best = (err, fixed, lone)
    err, fixed, lone = best
    print(f"{len(rows)} sliced plans; fitted start + sum {fixed:.2f} us (sum {fixed - args.start:.2f} "
          f"past a start of {args.start}), a lone chunk {lone:.3f} us; mean |log error| {err:.3f}")
    worst = sorted(rows, key=lambda r: -abs(math.log(predicted(r[3], fixed, lone) / r[2])))[:8]
    for label, slices, us, t in worst:
        print(f"  {label} slices {slices}: measured {us:.2f} us, predicted {predicted(t, fixed, lone):.2f}")


if __name__ == "__main__":
    main()
