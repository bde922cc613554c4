#!/usr/bin/env python3
"""Lab 11's short-K model against the program: at every shape of both seeds' new-build records (call_2/rs_new_*)
that the new build ran on the short-K kernel, its GPU time a launch (graph replays) over the model's time
(predicted_short_k_us), sorted by K; then the geometric means for K <= 64 and K > 64.

Usage (from the repository's root): short_k_in_the_program.py LAB11_PATHS
  LAB11_PATHS: ../lab11_model_vs_gpu_s28/offline/lab11_paths.cpp built against this commit's best_plan.h, e.g.
  g++ -std=c++20 -I. -I/usr/local/cuda/include docs/data/history/lab11_model_vs_gpu_s28/offline/lab11_paths.cpp
"""
import json
import math
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent.parent
SEEDS = ["4998064687210808757", "8444672377437012093"]


def main(argv):
    rows = []
    for seed in SEEDS:
        for s in json.load(open(HERE / "call_2" / f"rs_new_{seed}_times.json"))["shapes"]:
            if s["lab"] == "11":
                m, n, k = map(int, s["shape"].split("x"))
                rows.append((m, n, k, s["graph_us_per_launch"]["best"]))
    out = subprocess.run(
        [argv[1]], input="".join("%d %d %d\n" % r[:3] for r in rows), capture_output=True, text=True, check=True
    ).stdout.split("\n")
    on_short_k = [(r, float(line.split()[4])) for r, line in zip(rows, out) if line.split()[3] == "short_k"]
    print("shape                  K  measured     model   ratio")
    for (m, n, k, measured), model in sorted(on_short_k, key=lambda t: t[0][2]):
        print("%-18s %5d %9.1f %9.1f %7.2f" % ("%dx%dx%d" % (m, n, k), k, measured, model, measured / model))
    for name, keep in (("K <= 64", lambda k: k <= 64), ("K > 64", lambda k: k > 64)):
        logs = [math.log(r[3] / model) for r, model in on_short_k if keep(r[2])]
        print("%s: %d shapes, geometric mean %.2f" % (name, len(logs), math.exp(sum(logs) / len(logs))))


if __name__ == "__main__":
    main(sys.argv)
