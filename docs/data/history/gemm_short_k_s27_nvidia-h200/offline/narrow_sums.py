#!/usr/bin/env python3
"""Lab 07's narrow kernel: its model with and without the term for its blocks' lane sums
(best_plan.cpp: kNarrowSumUs), against what lab07_plans measured.

  narrow_sums.py --fit R FILE...       records whose predictions lack the term (before 3191ec8)
  narrow_sums.py --held-out R FILE...  records whose predictions hold it (3191ec8 on)

Per narrow plan: the prediction without and with the term against its measured time (mean |log
error|); per shape with a narrow plan: the plan each model picks (K whole unless a split or
stream-K plan is predicted under 0.9 of it, as plan_best does), its measured time over the fastest
plan's; geometric means."""
import json
import math
import sys

SMS = 132


def ceil_div(a, b):
    return -(-a // b)


def sums_us(r_us, m, n, k, slice_k):
    chunk = 4 if n <= 4 else 8 if n <= 8 else 16
    blocks = ceil_div(m, 32) * ceil_div(n, chunk) * ceil_div(k, slice_k)
    return ceil_div(blocks, SMS) * r_us * chunk / 16


def pick(plans, k, key):
    whole = [p for p in plans if p["slice_k"] >= k and not p["stream_blocks"]]
    if not whole:
        return min(plans, key=key)
    best = min(whole, key=key)
    cut = [p for p in plans if p not in whole and key(p) < 0.9 * key(best)]
    return min(cut + [best], key=key)


def main(argv):
    mode, r_us, files = argv[1], float(argv[2]), argv[3:]
    errors = [0.0, 0.0]
    choices = [0.0, 0.0]
    plans_seen = shapes_seen = 0
    for path in files:
        problems = json.load(open(path))
        problems = problems["problems"] if isinstance(problems, dict) else problems
        for problem in problems:
            m, n, k = (int(x) for x in problem["problem"].split("_")[0].split("x"))
            plans = [p for p in problem["plans"] if p["correct"]]
            if not any(p["plan"].startswith("narrow") for p in plans):
                continue

            def term(p):
                if not p["plan"].startswith("narrow"):
                    return 0.0
                return sums_us(r_us, m, n, k, p["slice_k"])

            if mode == "--fit":
                models = (lambda p: p["predicted_us"], lambda p: p["predicted_us"] + term(p))
            else:
                models = (lambda p: p["predicted_us"] - term(p), lambda p: p["predicted_us"])
            for p in plans:
                if p["plan"].startswith("narrow"):
                    plans_seen += 1
                    for i, model in enumerate(models):
                        errors[i] += abs(math.log(model(p) / p["measured_us"]))
            fastest = min(plans, key=lambda p: p["measured_us"])
            picked = [pick(plans, k, model) for model in models]
            ratios = [p["measured_us"] / fastest["measured_us"] for p in picked]
            shapes_seen += 1
            for i in range(2):
                choices[i] += math.log(ratios[i])
            print(f'{problem["problem"]:>16} without {picked[0]["plan"]:24} {ratios[0]:.3f}  '
                  f'with {picked[1]["plan"]:24} {ratios[1]:.3f}  ({path.split("/")[-1]})')
    print(f"{plans_seen} narrow plans: mean |log error| without the sums {errors[0] / plans_seen:.3f}, "
          f"with them ({r_us} us a round) {errors[1] / plans_seen:.3f}")
    print(f"{shapes_seen} shapes: plan picked over the fastest, geometric mean, without "
          f"{math.exp(choices[0] / shapes_seen):.3f}, with {math.exp(choices[1] / shapes_seen):.3f}")


if __name__ == "__main__":
    main(sys.argv)
