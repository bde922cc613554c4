#!/usr/bin/env python3
"""Short-K shapes for the short-K records: M and N log-uniform in [16, 16384] with M * N at most
2^26 (C under 256 MiB), K log-uniform in [16, KMAX]; half of them with N a multiple of 8 and half
with K one (so that every pairing of A's and B's row alignment is drawn), then the anchors given.
Usage: draw_short_k_shapes.py SEED COUNT KMAX [ANCHOR ...]  (prints MxNxK, comma-separated)"""
import math
import random
import sys


def log_uniform(rng, low, high):
    return int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))


def main(argv):
    seed, count, kmax = int(argv[1]), int(argv[2]), int(argv[3])
    rng = random.Random(seed)
    shapes = []
    while len(shapes) < count:
        m, n, k = (log_uniform(rng, 16, 16384), log_uniform(rng, 16, 16384),
                   log_uniform(rng, 16, kmax))
        if m * n > 1 << 26:
            continue
        i = len(shapes)
        n = n // 8 * 8 or 8 if i % 2 == 0 else n | 1 if n % 8 == 0 else n
        k = max(16, k // 8 * 8) if i % 4 < 2 else k | 1 if k % 8 == 0 else k
        if (m, n, k) not in shapes:
            shapes.append((m, n, k))
    print(",".join([f"{m}x{n}x{k}" for m, n, k in shapes] + argv[4:]))


if __name__ == "__main__":
    main(sys.argv)
