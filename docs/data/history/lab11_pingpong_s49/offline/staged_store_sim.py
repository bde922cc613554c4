"""What the two host simulations of a warp's staged stores share (sim_sector_store.py,
sim_shifted_store.py): the staging rows (40 floats; a chunk of 32 columns after `carry` columns
carried from the chunk before), each chunk staged and its windows stored, the carry, the window
after the last chunk, the check that every column of the tile's rows inside C was written once with
its own value, and 3,000 random tiles (width 64, 128 or 256, N 1 to 1200, ldc N to N + 9, C's first
element 0 to 15 floats past a sector, 1 to 16 rows)."""
import random

STRIDE, COLS, ROWS = 40, 32, 16


def run(window, carry, k_n, col0, n, ldc, base_floats, rows):
    """One warp's tile: window(store, staging, chunk_col0, lo, hi, rows, ldc, base_floats) stores
    a chunk's windows, calling store(r, col, value) for each column it writes."""
    written = {}
    staging = [[None] * STRIDE for _ in range(ROWS)]

    def store(r, col, value):
        assert value == (r, col), (value, r, col)
        assert (r, col) not in written
        written[(r, col)] = value

    def carry_columns():
        for r in range(ROWS):
            for c in range(carry):
                staging[r][c] = staging[r][COLS + c]

    last = nxt = col0
    for k in range(k_n // COLS):
        chunk_col0 = col0 + COLS * k
        if chunk_col0 >= n:
            break
        if k > 0:
            carry_columns()
        for r in range(ROWS):
            for c in range(COLS):
                staging[r][carry + c] = (r, chunk_col0 + c)
        last, nxt = chunk_col0, min(chunk_col0 + COLS, n)
        window(store, staging, chunk_col0, col0, nxt, rows, ldc, base_floats)
    carry_columns()
    window(store, staging, last + COLS, col0, nxt, rows, ldc, base_floats)
    expect = {(r, c) for r in range(rows) for c in range(col0, min(col0 + k_n, n))}
    assert set(written) == expect, (k_n, col0, n, ldc, base_floats, len(expect - set(written)))


def check_random_tiles(window, carry):
    """run() at the 3,000 random tiles; prints "ok"."""
    random.seed(1)
    for _ in range(3000):
        k_n = random.choice([64, 128, 256])
        n = random.randint(1, 1200)
        col0 = random.randrange(0, n, k_n)
        run(window, carry, k_n, col0, n, n + random.randint(0, 9), random.randint(0, 15), random.randint(1, 16))
    print("ok")
