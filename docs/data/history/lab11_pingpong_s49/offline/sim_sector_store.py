#!/usr/bin/env python3
"""Simulates the index arithmetic of scripts/sector_store.patch's store_sector_chunks (and
scripts/sector_store11.cuh's) for one warp's rows on the host: each staged chunk, the carry of its
last 8 columns, every window a row's delta places (a float a lane from the sector before the
chunk's first column), and the last window. Checks at 3,000 random tiles (staged_store_sim.py)
that every column of the tile's rows within C is written exactly once with its own value and
nothing outside it. Prints "ok".

    python3 sim_sector_store.py
"""
from staged_store_sim import check_random_tiles

CARRY = 8


def sector_window(store, staging, chunk_col0, lo, hi, rows, ldc, base_floats):
    for r in range(rows):
        delta = (base_floats + r * ldc + chunk_col0) % 8  # floats past a sector
        for lane in range(32):
            col = chunk_col0 - delta + lane
            if lo <= col < hi:
                store(r, col, staging[r][CARRY - delta + lane])


if __name__ == "__main__":
    check_random_tiles(sector_window, CARRY)
