"""best's GPU time a launch (16 launches in a CUDA graph) in builds a and b over base's, geometric
mean over each seed's 120 shapes of lab 07 (call_1/rs_SIDE_SEED_times.json), and each run's
summary line. Run: python3 random_shapes_sides.py"""
import json
import math
from pathlib import Path

call = Path(__file__).parent.parent / "call_1"
for seed in ("4998064687210808757", "8444672377437012093"):
    times = {}
    for side in ("base", "a", "b"):
        shapes = json.loads((call / f"rs_{side}_{seed}_times.json").read_text())["shapes"]
        times[side] = {s["shape"]: s["graph_us_per_launch"]["best"] for s in shapes if s["lab"] == "07"}
        summary = (call / f"rs_{side}_{seed}_summary.txt").read_text().splitlines()
        print(seed, side, next(line.strip() for line in summary if "geometric mean" in line))
    for side in ("a", "b"):
        ratios = [times[side][s] / us for s, us in times["base"].items()]
        mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"{seed} {side}: GPU time over base's, geometric mean {mean:.4f} ({len(ratios)} shapes)")
