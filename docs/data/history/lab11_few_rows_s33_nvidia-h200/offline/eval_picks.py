"""The plan best_plan.h's model picks among the plans bench_plans11 timed at each shape, over the fastest
timed plan (geometric mean over the shapes), for a rate of the 64-row tiles (kOneConsumerTileRate) and
the shapes at which the planner weighs them (RULE: "rows:R", C of at most R rows; "columns", C of more
than 8 columns, the few-columns kernel's class left out); the 128-row plans keep the model's times of
the output, the 64-row plans' are computed again here with best_plan.h's formula and the rate given.

    python3 eval_picks.py PLANS.txt [PLANS.txt ...] [--each RATE RULE]
"""
import math
import sys

SMS = 132
SM_GFLOPS = 664479.0 / 132.0
WIDTH_RATE = {64: 0.7, 128: 0.94, 256: 1.0}
DRAM_GBPS = 2.0 * 1024**3 / 0.7627e-3 / 1e9
UNIT_STORE_GBPS, UNIT_START_US = 30.0, 1.0
SUMS_LATENCY_US, SUMS_SM_GBPS, SLICE_US = 2.0, 100.0, 0.22


def cdiv(a, b):
    return -(-a // b)


def sums_us(s, m, n, rows, cols):
    traffic = (2.0 * s + 2.0) * m * n * 4.0
    return traffic / (DRAM_GBPS * 1e3) + s * rows * cols * 4.0 / (SUMS_SM_GBPS * 1e3) + SUMS_LATENCY_US + s * SLICE_US


def model_64(m, n, k, w, s, rate):
    units = cdiv(m, 64) * cdiv(n, w) * s
    step = 2.0 * 64 * w * 64 / (SM_GFLOPS * WIDTH_RATE[w] * rate * 1e3)
    unit = cdiv(cdiv(k, 64), s) * step + 4.0 * 64 * w / (UNIT_STORE_GBPS * 1e3) + UNIT_START_US
    memory = (2.0 * (m * k + k * n) + (0.0 if s > 1 else 4.0 * m * n)) / (DRAM_GBPS * 1e3)
    us = max(cdiv(units, SMS) * unit, memory)
    return us + (sums_us(s, m, n, min(64, m), min(w, n)) if s > 1 else 0.0)


args = [a for a in sys.argv[1:]]
each = None
if "--each" in args:
    i = args.index("--each")
    each = (float(args[i + 1]), args[i + 2])
    args = args[:i]
shapes = {}
for path in args:
    for line in open(path):
        p = line.split()
        if len(p) == 7 and p[0].isdigit() and (p[3].startswith("w") or p[3].startswith("r64")):
            shapes.setdefault((int(p[0]), int(p[1]), int(p[2])), []).append((p[3], float(p[4]), float(p[5])))


def weighed(rule, m, n):
    """Whether the planner weighs 64-row tiles for a C of m x n under RULE."""
    return n > 8 if rule == "columns" else m <= int(rule.split(":")[1])


def evaluate(rate, rule, show=False):
    logs = []
    for (m, n, k), plans in shapes.items():
        fastest = min(t for _, _, t in plans)
        best = None
        for name, model, t in plans:
            if name.startswith("r64"):
                if not weighed(rule, m, n):
                    continue
                w, s = (int(x) for x in name[4:].split("_s"))
                model = model_64(m, n, k, w, s, rate)
            if best is None or model < best[1]:
                best = (name, model, t)
        logs.append(math.log(best[2] / fastest))
        if show:
            print(f"{m}x{n}x{k:<8} {best[0]:>12} {best[2]:8.2f} fastest {fastest:8.2f} {best[2] / fastest:.3f}")
    return math.exp(sum(logs) / len(logs))


# Check the formula against the output's own model times at the build's rate (0.7).
worst = max(abs(model_64(m, n, k, *(int(x) for x in name[4:].split("_s")), 0.7) - model)
            for (m, n, k), plans in shapes.items() for name, model, _ in plans if name.startswith("r64"))
print(f"formula against the output's model at 0.7: largest difference {worst:.3f} us")
if each:
    print(f"rate {each[0]}, 64-row tiles weighed by {each[1]}: {evaluate(*each, show=True):.4f}")
else:
    print("picked over fastest, geometric mean over", len(shapes), "shapes")
    rates = (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    print(f"{'rule':>12} " + " ".join(f"{r:>7}" for r in rates))
    for rule in ("rows:0", "rows:64", "rows:128", "rows:256", "rows:512", "rows:100000", "columns"):
        print(f"{rule:>12} " + " ".join(f"{evaluate(r, rule):7.4f}" for r in rates))
