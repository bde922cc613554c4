"""Host model of store_lane_patch_staged's index arithmetic (solutions/07_wide_loads/best_kernels.cuh
as patched by scripts/staged_store.patch): for every tile shape of lab 07's `best` and random edge
blocks of random C layouts (ldc any, C 0-3 floats past 16 bytes), each warp stages one row of its
pieces a batch and stores the windows. Checks that every element of the block's part of C is stored
once with its own value, nothing outside C is written, every 128-bit store is 16-byte aligned and
every read stays inside the warp's staging rows. Run: python3 sim_staged_store.py"""
import random

TILES = {  # name: BM, BN, BK, WARPS_M, WARPS_N, TM, TN
    "256x128": (256, 128, 8, 4, 2, 16, 8), "128x256": (128, 256, 8, 2, 4, 8, 16),
    "128x128": (128, 128, 8, 2, 4, 8, 8), "128x64": (128, 64, 8, 2, 2, 8, 8),
    "128x64x16": (128, 64, 16, 2, 2, 8, 8), "64x64": (64, 64, 16, 2, 2, 4, 8),
    "32x32": (32, 32, 16, 1, 2, 4, 4),
}
PAD_A = 4


def check_block(tile, m, n, ldc, offset, row0, col0):
    bm, bn, bk, wm_, wn_, tm, tn = tile
    wm, wn = bm // wm_, bn // wn_
    lanes_n = wn // tn
    lanes_m = 32 // lanes_n
    piece_rows, piece_cols = lanes_m * 4, lanes_n * 4
    row_floats = wn + 8
    windows = wn // 4 + 1
    shared_floats = 2 * bk * (bm + PAD_A) + 2 * bk * bn
    warps = wm_ * wn_
    assert warps * lanes_m * row_floats <= shared_floats, "staging does not fit"
    stored = {}
    for warp in range(warps):
        base = warp * lanes_m * row_floats
        warp_row = row0 + (warp // wn_) * wm
        warp_col = col0 + (warp % wn_) * wn
        for g in range(tm // 4):
            for r in range(4):
                staged = {}
                for lane in range(32):
                    li, ln = lane // lanes_n, lane % lanes_n
                    my_row = base + li * row_floats + 4 + ln * 4
                    assert my_row % 4 == 0
                    for h in range(tn // 4):
                        for q in range(4):
                            # acc[4g + r][4h + q] is C(row, col):
                            row = warp_row + li * 4 + g * piece_rows + r
                            col = warp_col + ln * 4 + h * piece_cols + q
                            staged[my_row + h * piece_cols + q] = (row, col)
                for item in range(lanes_m * windows):
                    i, j = divmod(item, windows)
                    row = warp_row + i * 4 + g * piece_rows + r
                    if row >= m:
                        continue
                    c_row = offset + row * ldc + warp_col  # in floats from a 16-byte boundary
                    p = c_row % 4
                    x0 = 4 * j - p
                    src = base + i * row_floats + 4 + x0
                    assert base <= src and src + 3 < base + lanes_m * row_floats, "read outside rows"
                    vals = [staged.get(src + q) for q in range(4)]
                    if x0 >= 0 and x0 + 3 < wn and warp_col + x0 + 3 < n:
                        assert (c_row + x0) % 4 == 0, "unaligned 128-bit store"
                        lanes = range(4)
                    else:
                        lanes = [q for q in range(4) if 0 <= x0 + q < wn and warp_col + x0 + q < n]
                    for q in lanes:
                        col = warp_col + x0 + q
                        assert 0 <= col < n and row < m, "outside C"
                        assert vals[q] == (row, col), f"wrong value at {(row, col)}: {vals[q]}"
                        assert (row, col) not in stored, f"stored twice {(row, col)}"
                        stored[(row, col)] = 1
    want = {(r, c) for r in range(row0, min(row0 + bm, m)) for c in range(col0, min(col0 + bn, n))}
    assert set(stored) == want, f"missing {len(want - set(stored))}"
    return len(stored)


rng = random.Random(52)
count = 0
for name, tile in TILES.items():
    bm, bn = tile[0], tile[1]
    for _ in range(60):
        m, n = rng.randint(1, 3 * bm), rng.randint(1, 3 * bn)
        ldc = n + rng.randint(0, 5)
        offset = rng.randint(0, 3)
        row0 = rng.randrange(0, m, 1) // bm * bm
        col0 = rng.randrange(0, n, 1) // bn * bn
        check_block(tile, m, n, ldc, offset, row0, col0)
        count += 1
print(f"{count} blocks of {len(TILES)} tile shapes: every element once with its own value, "
      "nothing outside C, every 128-bit store aligned, every read inside the warp's rows")
