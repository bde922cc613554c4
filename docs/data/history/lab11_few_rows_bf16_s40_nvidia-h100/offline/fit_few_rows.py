#!/usr/bin/env python3
"""Fits the few-rows model's five constants (labs/11_tensor_cores/best_plan.h: kFewRowsStartUs,
kFewRowsRoundUs, kFewRowsValueNs, kFewRowsFmaNs, kFewRowsDramShare) to bench_few_rows11's GPU times
a launch at every plan it timed: the constants that minimise the squared log error (steps of one
constant at a time while the error falls, from best_plan.h's estimates), the model otherwise as
best_plan.h has it. Prints the fit, the mean |log error| before and after, how much slower than the
fastest plan timed the plan the model picks is (geometric mean, worst), every shape's pick beside
the path `best` took before and cuBLAS, and the plans the fit misses most.

  fit_few_rows.py BENCH_OUTPUT [SMS]      (SMS: 132, an H100's or an H200's)
"""
import math
import sys

DRAM_GBPS = 2.0 * 1024**3 / 0.7627e-3 / 1e9  # best_plan.h: kDramGBps
COLS = 248  # tiles.h: kFewRowsCols
ESTIMATES = [2.0, 2.0, 0.05, 0.006, 0.85]  # start, round, value ns, fma ns, DRAM share
NAMES = ["kFewRowsStartUs", "kFewRowsRoundUs", "kFewRowsValueNs", "kFewRowsFmaNs", "kFewRowsDramShare"]


def kernel_rows(m):
    return 2 if m <= 2 else 4 if m <= 4 else 8


def blocks_per_sm(rows):  # tiles.h: few_rows_blocks_per_sm
    return 3 if rows <= 2 else 2


def sums_us(slices, m, n):  # common/slice_sums.h: in_place_sums_us, a block's columns a region
    traffic = (2.0 * slices + 2.0) * m * n * 4.0
    last = slices * m * min(COLS, n) * 4.0
    return traffic / (DRAM_GBPS * 1e3) + last / (100.0 * 1e3) + 2.0 + slices * 0.22


def model_us(m, n, k, slice_k, c, sms):
    start, round_us, value_ns, fma_ns, share = c
    slices = -(-k // slice_k)
    rows = kernel_rows(m)
    at_once = blocks_per_sm(rows)
    rounds = math.ceil(-(-n // COLS) * slices / (at_once * sms))
    round_values = at_once * 256 * slice_k
    compute = rounds * (round_us + round_values * (value_ns + rows * fma_ns) * 1e-3)
    memory = (2.0 * (m * k + k * n) + 4.0 * m * n) / (share * DRAM_GBPS * 1e3)
    return start + max(compute, memory) + (sums_us(slices, m, n) if slices > 1 else 0.0)


def shape_of(label):
    m, n, rest = label.split("x", 2)
    return int(m), int(n), int(rest.split("+")[0])


def main():
    sms = int(sys.argv[2]) if len(sys.argv) > 2 else 132
    plans, best = {}, {}
    for line in open(sys.argv[1]):
        f = line.split()
        if f[:1] == ["plan"] and len(f) == 7:
            plans.setdefault(f[1], []).append((int(f[3]), float(f[4])))
        elif f[:1] == ["best"] and len(f) == 10:
            best[f[1]] = f[2:]
    points = [(*shape_of(label), slice_k, us) for label, ps in plans.items() for slice_k, us in ps]

    def mean_abs(c):
        return sum(abs(math.log(model_us(*p[:4], c, sms) / p[4])) for p in points) / len(points)

    def squared(c):
        return sum(math.log(model_us(*p[:4], c, sms) / p[4]) ** 2 for p in points)

    c = list(ESTIMATES)
    step = 0.5
    while step > 1e-4:
        improved = False
        for i in range(len(c)):
            for factor in (1 + step, 1 / (1 + step)):
                trial = list(c)
                trial[i] *= factor
                if i == 4:
                    trial[i] = min(trial[i], 1.0)
                if squared(trial) < squared(c):
                    c, improved = trial, True
        if not improved:
            step /= 2
    print(f"{len(points)} plans of {len(plans)} shapes; mean |log error| "
          f"{mean_abs(ESTIMATES):.3f} (estimates) -> {mean_abs(c):.3f} (fit)")
    for name, value in zip(NAMES, c):
        print(f"  {name} = {value:.4g}")
    picks = []
    print("shape: pick's slices, its time, fastest timed, other path, cuBLAS (us)")
    for label, ps in plans.items():
        m, n, k = shape_of(label)
        pick = min(ps, key=lambda p: model_us(m, n, k, p[0], c, sms))
        fastest = min(us for _, us in ps)
        picks.append(pick[1] / fastest)
        b = best.get(label, ["nan"] * 8)
        print(f"  {label:28s} {-(-k // pick[0]):4d} {pick[1]:9.2f} {fastest:9.2f} "
              f"{float(b[1]):9.2f} {float(b[2]):9.2f}")
    geo = math.exp(sum(math.log(p) for p in picks) / len(picks))
    print(f"the pick over the fastest timed: geometric mean {geo:.4f}, worst {max(picks):.4f}")
    print("the plans the fit misses most (model / measured):")
    worst = sorted(points, key=lambda p: -abs(math.log(model_us(*p[:4], c, sms) / p[4])))[:12]
    for m, n, k, slice_k, us in worst:
        print(f"  {m}x{n}x{k} slice {slice_k}: {us:.2f} us, model {model_us(m, n, k, slice_k, c, sms):.2f}")


if __name__ == "__main__":
    main()
