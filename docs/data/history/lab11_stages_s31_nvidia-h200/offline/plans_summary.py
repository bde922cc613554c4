#!/usr/bin/env python3
"""Per shape of bench_plans11's output: best (its plan), cuBLAS, the fastest plan measured and the
plan the model would pick, GPU time a launch; and any plan whose check failed.
Usage: summary.py plans.txt"""
import collections
import sys

rows, best = collections.defaultdict(list), {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 3 and f[3] == "best_is":
        best[tuple(map(int, f[:3]))] = " ".join(f[4:])
    elif len(f) == 7 and f[0].isdigit():
        rows[tuple(map(int, f[:3]))].append((f[3], float(f[4]), float(f[5]), float(f[6])))
for shape, plans in rows.items():
    d = {p[0]: p for p in plans}
    cands = [p for p in plans if p[0] not in ("best", "cublas")]
    fastest = min(cands, key=lambda p: p[2])
    pick = min(cands, key=lambda p: p[1])
    aligned = f"B {'on' if shape[1] % 8 == 0 else 'off'} 16 B, A {'on' if shape[2] % 8 == 0 else 'off'}"
    print(f"{'x'.join(map(str, shape))} ({aligned}): best {d['best'][2]:.2f} us [{best[shape]}], cuBLAS "
          f"{d['cublas'][2]:.2f}, fastest {fastest[0]} {fastest[2]:.2f} (model {fastest[1]:.1f}), model's pick "
          f"{pick[0]} {pick[2]:.2f}; cuBLAS / best {d['cublas'][2] / d['best'][2]:.3f}, / fastest "
          f"{d['cublas'][2] / fastest[2]:.3f}")
    for p in plans:
        if p[0] != "cublas" and not p[3] < 1e-4:
            print(f"  check: {p[0]} rel L2 {p[3]:.2e}")
