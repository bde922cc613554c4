"""lab 07's ratio to cuBLAS (cuBLAS time / best time) in session 51's H100 run of main, by which rows
are off 16 bytes: geometric mean and least per class and seed
(history/lab07_deep_staging_s51/call_1/rs_base_SEED_times.json). Run: python3 alignment_classes.py"""
import json
import math
from pathlib import Path

runs = Path(__file__).parent.parent.parent / "lab07_deep_staging_s51" / "call_1"
classes = ("all rows aligned (N % 4 == 0, K % 4 == 0)", "N % 4 != 0 (B and C off)",
           "K % 4 != 0 only (A off)")
for seed in ("4998064687210808757", "8444672377437012093"):
    ratios = {c: [] for c in classes}
    for s in json.loads((runs / f"rs_base_{seed}_times.json").read_text())["shapes"]:
        if s["lab"] != "07":
            continue
        _, n, k = map(int, s["shape"].split("x"))
        c = classes[0] if n % 4 == 0 and k % 4 == 0 else classes[1] if n % 4 else classes[2]
        ratios[c].append(s["reference_ms"] / s["best_ms"])
    for c, r in ratios.items():
        mean = math.exp(sum(map(math.log, r)) / len(r))
        print(f"seed {seed}, {c}: {len(r)} shapes, geometric mean {mean:.3f}, least {min(r):.3f}")
