#!/usr/bin/env python3
"""Simulates the index arithmetic of the solution's store_shifted_chunks (staged_store.cuh, session
50) for one warp's rows on the host: each staged chunk, the carry of its last 4 columns, every
window (8 lanes a row, 4 columns a lane, shifted back by the row's delta to a 16-byte boundary), and
the window after the last chunk. Checks, at 3,000 random tiles (width 64, 128 or 256, N 1 to 1200,
ldc N to N + 9, C's first element 0 to 15 floats past a sector, 1 to 16 rows), that every column of
the tile's rows within C is written exactly once with its own value, nothing outside it, every
float4 store on a 16-byte boundary and every staged read inside the row's 40 floats. Prints "ok".

    python3 sim_shifted_store.py
"""
import random

STRIDE, CARRY, COLS, ROWS = 40, 4, 32, 16


def run(k_n, col0, n, ldc, base_floats, rows):
    written = {}
    staging = [[None] * STRIDE for _ in range(ROWS)]

    def window(chunk_col0, lo, hi):
        for lane in range(32):
            quad = lane % 8
            for step in range(ROWS // 4):
                r = 4 * step + lane // 8
                if r >= rows:
                    continue
                delta = (base_floats + r * ldc + chunk_col0) % 4
                col = chunk_col0 - delta + 4 * quad
                first = CARRY - delta + 4 * quad
                assert 0 <= first and first + 4 <= STRIDE
                whole = col >= lo and col + 4 <= hi
                if whole:
                    assert (base_floats + r * ldc + col) % 4 == 0
                for e in range(4):
                    if whole or lo <= col + e < hi:
                        v = staging[r][first + e]
                        assert v == (r, col + e), (v, r, col + e, chunk_col0, delta)
                        assert (r, col + e) not in written
                        written[(r, col + e)] = v

    def carry():
        for r in range(ROWS):
            for c in range(CARRY):
                staging[r][c] = staging[r][COLS + c]

    last = nxt = col0
    for k in range(k_n // COLS):
        chunk_col0 = col0 + COLS * k
        if chunk_col0 >= n:
            break
        if k > 0:
            carry()
        for r in range(ROWS):
            for c in range(COLS):
                staging[r][CARRY + c] = (r, chunk_col0 + c)
        last, nxt = chunk_col0, min(chunk_col0 + COLS, n)
        window(chunk_col0, col0, nxt)
    carry()
    window(last + COLS, col0, nxt)
    expect = {(r, c) for r in range(rows) for c in range(col0, min(col0 + k_n, n))}
    assert set(written) == expect, (k_n, col0, n, ldc, base_floats, len(expect - set(written)))


random.seed(1)
for _ in range(3000):
    k_n = random.choice([64, 128, 256])
    n = random.randint(1, 1200)
    col0 = random.randrange(0, n, k_n)
    run(k_n, col0, n, n + random.randint(0, 9), random.randint(0, 15), random.randint(1, 16))
print("ok")
