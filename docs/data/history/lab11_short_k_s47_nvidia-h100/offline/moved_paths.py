#!/usr/bin/env python3
"""Call 1's random shapes, shape by shape: the path `best` took in the base build and in call 1's
(paths11 built against each tree) and, given a third tree's paths11, the path it takes. For each
seed and round: new / base GPU time (geometric mean) over all shapes and over the shapes whose path
did not move (the two builds' noise), and the third tree's new / base as the measured times give it
where its path is one of the two that ran.

    python3 moved_paths.py PATHS11_BASE PATHS11_CALL1 PATHS11_THIRD > moved_paths.txt

call2_moved.py and session 49's call3_sides.py take paths() and mean() from here.
"""
import json
import math
import pathlib
import subprocess
import sys

call = pathlib.Path(__file__).resolve().parents[1] / "call_1"


def paths(binary, shapes):
    lines = subprocess.run([binary] + shapes, capture_output=True, text=True,
                           check=True).stdout.splitlines()
    return [l.split("|")[0].split()[1] + ", " + l.split("|")[1].split(", predicted")[0].strip()
            for l in lines]


def mean(logs):
    return math.exp(sum(logs) / len(logs))


def main():
    for seed in ["4998064687210808757", "8444672377437012093"]:
        for r in "12":
            load = lambda side: {s["shape"]: s["graph_us_per_launch"]["best"] for s in json.loads(
                (call / f"rs_{side}_{seed}_{r}_times.json").read_text())["shapes"] if s.get("passed")}
            new, base = load("new"), load("base")
            shapes = [s for s in new if s in base]
            by_base, by_new, by_third = (paths(b, shapes) for b in sys.argv[1:4])
            all_logs, same_logs, third_logs = [], [], []
            print(f"seed {seed}, round {r}: shape, base path, call 1's, the third's: base_us new_us")
            for s, b, n, t in zip(shapes, by_base, by_new, by_third):
                log = math.log(new[s] / base[s])
                all_logs.append(log)
                if b == n:
                    same_logs.append(log)
                third_logs.append(log if t == n else 0.0 if t == b else float("nan"))
                if b != n or t != n:
                    print(f"  {s:18s} [{b}] [{n}] [{t}]: {base[s]:.2f} {new[s]:.2f}"
                          + ("" if t in (b, n) else " (the third's path did not run)"))
            known = [x for x in third_logs if x == x]
            print(f"  new / base: {mean(all_logs):.4f} over {len(all_logs)} shapes; "
                  f"{mean(same_logs):.4f} over the {len(same_logs)} whose path did not move; "
                  f"the third / base: {mean(known):.4f} over the {len(known)} whose path ran")


if __name__ == "__main__":
    main()
