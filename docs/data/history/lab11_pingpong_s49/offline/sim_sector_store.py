#!/usr/bin/env python3
"""Simulates the index arithmetic of scripts/sector_store.patch's store_sector_chunks (and
scripts/sector_store11.cuh's) for one warp's rows on the host: each staged chunk, the carry of its
last 8 columns, every window a row's delta places, and the last window. Checks, at 3,000 random
tiles (width 64, 128 or 256, N 1 to 1200, ldc N to N + 9, C's first element 0 to 15 floats past
a sector, 1 to 16 rows), that every column of the tile's rows within C is written exactly once
with its own value and nothing outside it. Prints "ok".

    python3 sim_sector_store.py
"""
import random

S, CARRY, COLS = 40, 8, 32


def run(kN, col0, n, ldc, base_floats, rows=16):
    written = {}
    staging = [[None] * S for _ in range(16)]
    last = nxt = col0

    def window(chunk_col0, lo, hi):
        for r in range(rows):
            addr = base_floats + r * ldc + chunk_col0  # float index of C[r][chunk_col0]
            delta = addr % 8
            for lane in range(32):
                col = chunk_col0 - delta + lane
                if lo <= col < hi:
                    v = staging[r][CARRY - delta + lane]
                    assert v == (r, col), (v, r, col, chunk_col0, delta)
                    assert (r, col) not in written
                    written[(r, col)] = v

    def carry():
        for r in range(16):
            for c in range(CARRY):
                staging[r][c] = staging[r][COLS + c]

    for k in range(kN // COLS):
        chunk_col0 = col0 + COLS * k
        if chunk_col0 >= n:
            break
        if k > 0:
            carry()
        for r in range(16):
            for c in range(COLS):
                staging[r][CARRY + c] = (r, chunk_col0 + c)
        last = chunk_col0
        nxt = min(chunk_col0 + COLS, n)
        window(chunk_col0, col0, nxt)
    carry()
    window(last + COLS, col0, nxt)
    expect = {(r, c) for r in range(rows) for c in range(col0, min(col0 + kN, n))}
    assert set(written) == expect, (kN, col0, n, ldc, base_floats, len(expect - set(written)))


random.seed(1)
for _ in range(3000):
    kN = random.choice([64, 128, 256])
    n = random.randint(1, 1200)
    col0 = random.randrange(0, n, kN) if n > 0 else 0
    col0 -= col0 % kN
    ldc = n + random.randint(0, 9)
    base = random.randint(0, 15)
    run(kN, col0, n, ldc, base, rows=random.randint(1, 16))
print("ok")
