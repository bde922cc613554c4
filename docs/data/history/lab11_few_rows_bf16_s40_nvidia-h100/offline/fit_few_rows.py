#!/usr/bin/env python3
"""Fits the few-rows model's six constants (labs/11_tensor_cores/best_plan.h: kFewRowsStartUs,
kFewRowsRoundUs, kFewRowsGroupUs, kFewRowsGroupUsPerMb, kFewRowsFmaNs, kFewRowsDramShare) to
bench_few_rows11's GPU times a launch at every plan it timed: the constants that minimise the
squared log error (steps of one constant at a time while the error falls, from first guesses), the
model otherwise as best_plan.h has it. Prints the fit, its mean |log error|, how much slower than
the fastest plan timed the plan the model picks is (geometric mean, worst), every shape's pick
beside the path `best` takes without the kernel (measured and by its model) and cuBLAS, whether
`best` runs the kernel there (FEW_ROWS_MARGIN), and the plans the fit misses most.

The model of session 40 (each round's time the values of B its SM's blocks stream, charged at a
fixed rate per value) fitted the same plans with a mean |log error| of 0.139, its pick 1.078 of the
fastest timed (worst 1.82): it ran K whole over 121 blocks at 1 x 30001 x 777 (60 us, against 33
at 5 slices), where each of its 121 blocks streams B at about a fifth of the rate each of 5
blocks does at 1 x 1024 x 1024. Here a group's latency rises with the bytes all blocks have in flight.

  fit_few_rows.py BENCH_OUTPUT [SMS]      (SMS: 132, an H100's or an H200's)
"""
import math
import sys

DRAM_GBPS = 2.0 * 1024**3 / 0.7627e-3 / 1e9  # best_plan.h: kDramGBps
COLS = 248  # tiles.h: kFewRowsCols
GUESSES = [2.0, 1.0, 0.5, 1.0, 0.01, 0.8]  # start, round, group, group per MB, fma ns, DRAM share
NAMES = ["kFewRowsStartUs", "kFewRowsRoundUs", "kFewRowsGroupUs", "kFewRowsGroupUsPerMb",
         "kFewRowsFmaNs", "kFewRowsDramShare"]
BLOCK_BYTES_IN_FLIGHT = 256 * 4 * 16  # tiles.h: kFewRowsThreads lanes, kFewRowsAhead rows, 16 bytes
GROUP_ROWS = 8 * 4  # a block's rows of B a group: kFewRowsWarps x kFewRowsAhead
FEW_ROWS_MARGIN = 1.15  # best_plan.h: kFewRowsMargin


def kernel_rows(m):
    return 2 if m <= 2 else 4 if m <= 4 else 8


def blocks_per_sm(rows):  # tiles.h: few_rows_blocks_per_sm
    return 3 if rows <= 2 else 2


def sums_us(slices, m, n):  # common/slice_sums.h: in_place_sums_us, a block's columns a region
    traffic = (2.0 * slices + 2.0) * m * n * 4.0
    last = slices * m * min(COLS, n) * 4.0
    return traffic / (DRAM_GBPS * 1e3) + last / (100.0 * 1e3) + 2.0 + slices * 0.22


def model_us(m, n, k, slice_k, c, sms):  # best_plan.h: predicted_few_rows_us
    start, round_us, group_us, group_us_per_mb, fma_ns, share = c
    slices = -(-k // slice_k)
    rows = kernel_rows(m)
    at_once = blocks_per_sm(rows)
    blocks = -(-n // COLS) * slices
    rounds = math.ceil(blocks / (at_once * sms))
    in_flight_mb = min(blocks, at_once * sms) * BLOCK_BYTES_IN_FLIGHT / 1e6
    latency = math.ceil(slice_k / GROUP_ROWS) * (group_us + group_us_per_mb * in_flight_mb)
    fmas = min(at_once, math.ceil(blocks / sms)) * 256 * slice_k * rows * fma_ns * 1e-3
    compute = rounds * (round_us + max(latency, fmas))
    memory = (2.0 * (m * k + k * n) + 4.0 * m * n) / (share * DRAM_GBPS * 1e3)
    return start + max(compute, memory) + (sums_us(slices, m, n) if slices > 1 else 0.0)


def shape_of(label):
    m, n, rest = label.split("x", 2)
    return int(m), int(n), int(rest.split("+")[0])


def main():
    sms = int(sys.argv[2]) if len(sys.argv) > 2 else 132
    plans, other = {}, {}
    for line in open(sys.argv[1]):
        f = line.split()
        if f[:1] == ["plan"] and len(f) == 7:
            plans.setdefault(f[1], []).append((int(f[3]), float(f[4])))
        elif f[:1] == ["best"] and len(f) == 10:  # best, other, cuBLAS, ..., other's model
            other[f[1]] = (float(f[3]), float(f[4]), float(f[7]))
    points = [(*shape_of(label), slice_k, us) for label, ps in plans.items() for slice_k, us in ps]

    def mean_abs(c):
        return sum(abs(math.log(model_us(*p[:4], c, sms) / p[4])) for p in points) / len(points)

    def squared(c):
        return sum(math.log(model_us(*p[:4], c, sms) / p[4]) ** 2 for p in points)

    c = list(GUESSES)
    step = 0.5
    while step > 1e-4:
        improved = False
        for i in range(len(c)):
            for factor in (1 + step, 1 / (1 + step)):
                trial = list(c)
                trial[i] *= factor
                if i == 5:
                    trial[i] = min(trial[i], 1.0)
                if squared(trial) < squared(c):
                    c, improved = trial, True
        if not improved:
            step /= 2
    print(f"{len(points)} plans of {len(plans)} shapes; mean |log error| {mean_abs(c):.3f}")
    for name, value in zip(NAMES, c):
        print(f"  {name} = {value:.4g}")
    picks = []
    print("shape: pick's slices, its time, its model, fastest timed; the other path measured, its")
    print("model; cuBLAS (us); whether best runs the kernel (model sooner by FEW_ROWS_MARGIN)")
    for label, ps in plans.items():
        m, n, k = shape_of(label)
        pick = min(ps, key=lambda p: model_us(m, n, k, p[0], c, sms))
        fastest = min(us for _, us in ps)
        picks.append(pick[1] / fastest)
        other_us, cublas_us, other_model_us = other[label]
        pick_model_us = model_us(m, n, k, pick[0], c, sms)
        runs = pick_model_us * FEW_ROWS_MARGIN < other_model_us
        print(f"  {label:26s} {-(-k // pick[0]):4d} {pick[1]:8.2f} {pick_model_us:8.2f} "
              f"{fastest:8.2f} {other_us:8.2f} {other_model_us:8.2f} {cublas_us:8.2f} "
              f"{'few rows' if runs else 'other'}")
    geo = math.exp(sum(math.log(p) for p in picks) / len(picks))
    print(f"the pick over the fastest timed: geometric mean {geo:.4f}, worst {max(picks):.4f}")
    print("the plans the fit misses most (model / measured):")
    worst = sorted(points, key=lambda p: -abs(math.log(model_us(*p[:4], c, sms) / p[4])))[:12]
    for m, n, k, slice_k, us in worst:
        print(f"  {m}x{n}x{k} slice {slice_k}: {us:.2f} us, model {model_us(m, n, k, slice_k, c, sms):.2f}")


if __name__ == "__main__":
    main()
