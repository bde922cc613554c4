"""One line a shape of bench_plans11's output (session 33's, with 64-row plans "r64w..."): the fastest
plan on 128-row tiles and on 64-row tiles (GPU time a launch, us), best's time and plan, cuBLAS's,
and cuBLAS over the fastest 64-row and 128-row plans.

    python3 plans_summary.py PLANS.txt [PLANS.txt ...]
"""
import sys

rows = {}
order = []
for path in sys.argv[1:]:
    for line in open(path):
        parts = line.split()
        if len(parts) < 5 or not parts[0].isdigit():
            continue
        shape = "x".join(parts[:3])
        if shape not in rows:
            rows[shape] = {"plans": {}, "best_is": ""}
            order.append(shape)
        if parts[3] == "best_is":
            rows[shape]["best_is"] = " ".join(parts[4:]).split(" (sets")[0]
            continue
        rows[shape]["plans"][parts[3]] = (float(parts[4]), float(parts[5]))

print(f"{'shape':>16} {'fastest 128-row':>22} {'fastest 64-row':>22} {'best':>8} {'cublas':>8} "
      f"{'cuB/128':>7} {'cuB/64':>7}  best's plan")
for shape in order:
    plans = rows[shape]["plans"]
    tall = {p: t for p, t in plans.items() if p.startswith("w")}
    short = {p: t for p, t in plans.items() if p.startswith("r64")}
    f128 = min(tall, key=lambda p: tall[p][1])
    f64 = min(short, key=lambda p: short[p][1]) if short else None
    cub = plans["cublas"][1]
    t64 = short[f64][1] if f64 else float("nan")
    print(f"{shape:>16} {f128:>13} {tall[f128][1]:8.2f} {str(f64):>13} {t64:8.2f} {plans['best'][1]:8.2f} "
          f"{cub:8.2f} {cub / tall[f128][1]:7.3f} {cub / t64:7.3f}  {rows[shape]['best_is']}")
