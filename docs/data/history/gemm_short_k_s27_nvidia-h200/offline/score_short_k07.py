#!/usr/bin/env python3
"""Lab 07's choices at short K from lab07_plans' record (every plan timed, --within 1000): per
shape, the plan `best` picked and, with the short-K kernel left out, the plan its model would pick
(K whole unless a split or stream-K plan is predicted under 0.9 of it, best_plan.cpp), each
measured time over the fastest plan's; geometric means. With --narrow-sums R, both choices are
made again with the narrow kernel's lane sums added to its predictions (R us a round of blocks,
best_plan.cpp: kNarrowSumUs; the record was taken before they were in the model).
Usage: score_short_k07.py [--narrow-sums R] plans07.json"""
import json
import math
import sys


def ceil_div(a, b):
    return -(-a // b)


def predicted(p, shape, narrow_sums_us):
    m, n, k = shape
    if not narrow_sums_us or not p["plan"].startswith("narrow"):
        return p["predicted_us"]
    chunk = 4 if n <= 4 else 8 if n <= 8 else 16
    blocks = ceil_div(m, 32) * ceil_div(n, chunk) * ceil_div(k, p["slice_k"])
    return p["predicted_us"] + ceil_div(blocks, 132) * narrow_sums_us * chunk / 16


def pick(plans, shape, narrow_sums_us):
    k = shape[2]
    key = lambda p: predicted(p, shape, narrow_sums_us)  # noqa: E731
    whole = [p for p in plans if p["slice_k"] >= k and not p["stream_blocks"]]
    best = min(whole, key=key)
    cut = [p for p in plans if p not in whole and key(p) < 0.9 * key(best)]
    return min(cut + [best], key=key)


def main(argv):
    narrow_sums_us = float(argv[2]) if argv[1] == "--narrow-sums" else 0.0
    problems = json.load(open(argv[-1]))
    problems = problems["problems"] if isinstance(problems, dict) else problems
    logs_with, logs_without = [], []
    print("shape picked picked_us without_short_k without_us fastest fastest_us picked/fastest "
          "without/fastest")
    for problem in problems:
        shape = tuple(int(x) for x in problem["problem"].split("_")[0].split("x"))
        plans = [p for p in problem["plans"] if p["correct"]]
        fastest = min(plans, key=lambda p: p["measured_us"])
        picked = pick(plans, shape, narrow_sums_us)
        assert narrow_sums_us or picked["chosen"], "the record's choice is the model's"
        without = pick([p for p in plans if not p["plan"].startswith("short_k")], shape, narrow_sums_us)
        a = picked["measured_us"] / fastest["measured_us"]
        b = without["measured_us"] / fastest["measured_us"]
        logs_with.append(math.log(a))
        logs_without.append(math.log(b))
        print(f'{problem["problem"]} {picked["plan"]} {picked["measured_us"]:.2f} {without["plan"]} '
              f'{without["measured_us"]:.2f} {fastest["plan"]} {fastest["measured_us"]:.2f} '
              f'{a:.3f} {b:.3f}')
    n = len(logs_with)
    print(f"{n} shapes: picked over fastest, geometric mean {math.exp(sum(logs_with) / n):.3f}; "
          f"without the short-K kernel {math.exp(sum(logs_without) / n):.3f}")


if __name__ == "__main__":
    main(sys.argv)
