#!/usr/bin/env python3
"""Simulates the index arithmetic of session 50's store_shifted_chunks (scripts/shifted_store.patch
and shifted_store_call5.patch, kept at f723183) for one warp's rows on the host: each staged chunk,
the carry of its last 4 columns, every window (8 lanes a row, 4 columns a lane, shifted back by the
row's delta to a 16-byte boundary), and the window after the last chunk. Checks at 3,000 random
tiles (staged_store_sim.py) that every column of the tile's rows within C is written exactly once
with its own value, nothing outside it, every float4 store on a 16-byte boundary and every staged
read inside the row's 40 floats. Prints "ok".

    python3 sim_shifted_store.py
"""
from staged_store_sim import ROWS, STRIDE, check_random_tiles

CARRY = 4


def shifted_window(store, staging, chunk_col0, lo, hi, rows, ldc, base_floats):
    for lane in range(32):
        quad = lane % 8
        for step in range(ROWS // 4):
            r = 4 * step + lane // 8
            if r >= rows:
                continue
            delta = (base_floats + r * ldc + chunk_col0) % 4  # floats past 16 bytes
            col = chunk_col0 - delta + 4 * quad
            first = CARRY - delta + 4 * quad
            assert 0 <= first and first + 4 <= STRIDE
            whole = col >= lo and col + 4 <= hi
            if whole:
                assert (base_floats + r * ldc + col) % 4 == 0
            for e in range(4):
                if whole or lo <= col + e < hi:
                    store(r, col + e, staging[r][first + e])


if __name__ == "__main__":
    check_random_tiles(shifted_window, CARRY)
