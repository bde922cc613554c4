#!/usr/bin/env python3
"""Fits the few-columns model's five constants (labs/11_tensor_cores/best_plan.h: kFewColumnsStartUs,
kFewColumnsRoundUs, kFewColumnsNarrowBRoundUs, kFewColumnsSmValuesPerUs,
kFewColumnsNarrowSmValuesPerUs) to bench_few_columns11's GPU times a launch at every slice it timed
of every shape: the constants that minimise the squared log error (a coarse grid, then steps of one
constant at a time while the error falls), the model otherwise as best_plan.h has it. The bench's
operands are tightly packed, so A's rows allow 16-byte loads where 2 K is a multiple of 16, and B's
are 8 columns in 16-byte rows where N is 8. Prints the fit, its rms log error, how much slower than
the fastest slice timed the slice the model picks is (geometric mean, worst), and every plan.

  fit_few_columns.py BENCH_OUTPUT [BENCH_OUTPUT ...]      (an H200: 132 SMs, 2 blocks an SM)

A shape timed in a later output replaces its plans from the earlier ones (the kernel changed between).
"""
import math
import sys

DRAM_GBPS = 2.0 * 1024**3 / 0.7627e-3 / 1e9  # best_plan.h: kDramGBps
BLOCK_ROWS, BLOCKS_PER_SM, SMS = 32, 2, 132


def sums_us(slices, m, n):  # common/slice_sums.h: in_place_sums_us
    traffic = (2.0 * slices + 2.0) * m * n * 4.0
    last = slices * min(BLOCK_ROWS, m) * n * 4.0
    return traffic / (DRAM_GBPS * 1e3) + last / (100.0 * 1e3) + 2.0 + slices * 0.22


def model_us(m, n, k, slice_k, c):
    start, rate, narrow_rate, round_us, narrow_b_round_us = c
    rate = rate if (2 * k) % 16 == 0 else narrow_rate
    round_us = round_us if n == 8 else narrow_b_round_us
    slices = -(-k // slice_k)
    rounds = math.ceil(-(-m // BLOCK_ROWS) * slices / (BLOCKS_PER_SM * SMS))
    compute = rounds * (round_us + BLOCKS_PER_SM * BLOCK_ROWS * slice_k / rate)
    memory = (2.0 * (m * k + k * n) + 4.0 * m * n) / (DRAM_GBPS * 1e3)
    return start + max(compute, memory) + (sums_us(slices, m, n) if slices > 1 else 0.0)


def main():
    timed = {}  # (m, n, k) -> [(m, n, k, slice_k, measured us)]: a later file's shape replaces
    for path in sys.argv[1:]:
        this_file = {}
        for line in open(path):
            f = line.split()
            if len(f) == 7 and f[3].startswith("s") and f[3][1:].isdigit():
                shape = (int(f[0]), int(f[1]), int(f[2]))
                this_file.setdefault(shape, []).append((*shape, int(f[3][1:]), float(f[5])))
        timed.update(this_file)
    points = [p for plans in timed.values() for p in plans]
    error = lambda c: sum(math.log(model_us(*p[:4], c) / p[4]) ** 2 for p in points)
    grid = [(s, r, nr, ru, nru) for s in (0.5, 1.0, 1.5, 2.0, 2.5) for r in range(10000, 40001, 3000)
            for nr in range(6000, 25001, 2000) if nr <= r for ru in (0, 0.5, 1, 1.5, 2)
            for nru in (0, 0.5, 1, 1.5, 2, 2.5, 3, 4)]
    best = min(grid, key=error)
    best, err = list(best), error(best)
    steps = (0.1, 500, 500, 0.1, 0.1)
    moved = True
    while moved:
        moved = False
        for i, step in enumerate(steps):
            for sign in (-1, 1):
                trial = list(best)
                trial[i] += sign * step
                if trial[i] >= 0 and error(trial) < err:
                    best, err, moved = trial, error(trial), True
    shapes = {}
    for p in points:
        shapes.setdefault(p[:3], []).append(p)
    regrets = [min(ps, key=lambda p: model_us(*p[:4], best))[4] / min(p[4] for p in ps)
               for ps in shapes.values()]
    print(f"{len(points)} plans of {len(shapes)} shapes: start {best[0]:.1f} us, "
          f"{best[1]:.0f} values/SM/us (16-byte A), {best[2]:.0f} (narrower), a round "
          f"{best[3]:.1f} us (B's rows whole), {best[4]:.1f} (a value a load); rms log error "
          f"{math.sqrt(err / len(points)):.3f}; the model's pick of the slices timed "
          f"{math.exp(sum(map(math.log, regrets)) / len(regrets)):.3f} of the fastest's time "
          f"(geometric mean), {max(regrets):.3f} at worst")
    for m, n, k, s, us in points:
        print(f"{m}x{n}x{k} s{s}: {us:.2f} us, model {model_us(m, n, k, s, best):.2f}")


if __name__ == "__main__":
    main()
