#!/usr/bin/env python3
"""Joins bench_short_k11's outputs of the three builds, shape by shape: join_variants.py
bench_chunk32.txt bench_chunk64.txt bench_stages4.txt. Prints each build's short-K time (and K
whole, where the plan slices) over cuBLAS's time measured beside it, and `best` over cuBLAS for
today's build, then the geometric mean of each column."""
import math, sys


def rows(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 8 and f[0] != "label":
            out[f[0]] = f
    return out


def main():
    names = ["chunk32", "chunk64", "stages4"]
    runs = [rows(p) for p in sys.argv[1:4]]
    print(f"{'shape':>18} sl " + " ".join(f"{n + '/cu':>10} {'whole/cu':>8}" for n in names)
          + f" {'best/cu':>8} {'cuBLAS us':>9}")
    logs = {}
    for shape, f in runs[0].items():
        cells = []
        for name, run in zip(names, runs):
            g = run.get(shape)
            if not g:
                cells.append(f"{'-':>10} {'-':>8}")
                continue
            cu = float(g[6])
            short = float(g[4]) / cu
            whole = float(g[8]) / cu if len(g) > 8 and g[8] != "-" else None
            logs.setdefault(name, []).append(math.log(short))
            whole_cell = "-" if whole is None else f"{whole:.3f}"
            cells.append(f"{short:10.3f} {whole_cell:>8}")
        best = float(f[5]) / float(f[6])
        logs.setdefault("best", []).append(math.log(best))
        print(f"{shape:>18} {f[3]:>2} " + " ".join(cells) + f" {best:8.3f} {float(f[6]):9.2f}")
    for name, v in logs.items():
        print(f"geometric mean {name}: {math.exp(sum(v) / len(v)):.3f} over {len(v)} shapes")


if __name__ == "__main__":
    main()
