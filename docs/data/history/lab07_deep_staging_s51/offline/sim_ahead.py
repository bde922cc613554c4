"""Walks the order of multiply_tiles_ahead (deep_staging.patch, warp_tile.cuh) on the host: at 2 to 5
sets of registers and 1 to 39 tiles, each tile is loaded once and in order into a set that holds
nothing, stored from that set into the buffer it is then computed from, and computed in order.
Prints ok, or stops at the first step that breaks one of these. Run: python3 sim_ahead.py"""
def run(S, T):
    P = S if S % 2 == 0 else 2 * S
    sets = [None] * S; buf = [None, None]; nxt = 0; log = []
    def load(s):
        nonlocal nxt
        assert sets[s] is None, ('set busy', s, sets[s]); sets[s] = nxt; nxt += 1
    def store(b, s):
        assert sets[s] is not None; buf[b] = sets[s]; sets[s] = None
    load(0); store(0, 0)
    for s in range(1, S):
        if s < T: load(s)
    for t0 in range(0, T, P):
        for j in range(P):
            t = t0 + j
            if t >= T: break
            b, ls, ss = j % 2, j % S, (j + 1) % S
            if t + S < T: load(ls)
            assert buf[b] == t, (S, T, t, buf)
            log.append(t)
            if t + 1 < T:
                store(b ^ 1, ss)
    assert log == list(range(T)) and nxt == T and all(x is None for x in sets), (S, T, log, nxt, sets)
for S in range(2, 6):
    for T in range(1, 40): run(S, T)
print('ok')
