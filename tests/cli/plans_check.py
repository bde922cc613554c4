#!/usr/bin/env python3
"""lab07_plans on small shapes (GPU machine; ctest cli.lab07_plans_every_plan_right).

Runs the tool with --output into a temporary file and checks the record: every problem asked for is
there; every plan timed, splits and the narrow kernel included, matches cuBLAS; the plan best picks is
among them and is the narrow kernel for N = 3; each plan has a prediction and a positive time; each
plan was checked again after timing, in the operands it was timed in, and passed.

  plans_check.py PROGRAM      (the script adds --shapes, --repetitions, --within and --output)
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from timeline_check import gpus_present

SHAPES = ["200x3x500", "130x66x2000_ld+2_off+2", "64x64x5000"]


def problems_in(record: dict) -> list[str]:
    problems = []
    seen = [p["problem"] for p in record.get("problems", [])]
    if seen != SHAPES:
        problems.append(f"problems {seen}, expected {SHAPES}")
    for problem in record.get("problems", []):
        plans = problem["plans"]
        names = [p["plan"] for p in plans]
        if problem["chosen"] not in names:
            problems.append(f"{problem['problem']}: best's plan {problem['chosen']} was not timed")
        if not any("/split" in name for name in names) and problem["problem"] != "200x3x500":
            problems.append(f"{problem['problem']}: no split plan timed ({names})")
        for plan in plans:
            if not plan["correct"]:
                problems.append(f"{problem['problem']} {plan['plan']}: rel. L2 {plan['rel_l2']} against cuBLAS")
            if not plan["measured_us"] > 0 or not plan["predicted_us"] > 0:
                problems.append(f"{problem['problem']} {plan['plan']}: no time or no prediction")
    rechecks = record.get("rechecks", {})
    timed = {f"{p['problem']}/{plan['plan']}" for p in record.get("problems", []) for plan in p["plans"]}
    if set(rechecks) != timed:
        problems.append(f"rechecks for {sorted(rechecks)}, expected one per plan: {sorted(timed)}")
    problems += [f"{name} after timing: {r['message']}" for name, r in rechecks.items() if not r["passed"]]
    narrow = [p for p in record.get("problems", []) if p["problem"] == "200x3x500"]
    if narrow and narrow[0]["chosen"] != "narrow_columns":
        problems.append(f"200x3x500: best picks {narrow[0]['chosen']}, expected narrow_columns")
    return problems


def main() -> int:
    if gpus_present() == 0:
        print("SKIPPED: no GPU (nvidia-smi lists none)")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "plans.json"
        command = [
            sys.argv[1],
            "--shapes",
            ",".join(SHAPES),
            "--repetitions",
            "1",
            "--within",
            "1000",
            "--output",
            str(output),
        ]
        result = subprocess.run(command, capture_output=True, text=True)
        print(result.stdout[-3000:], result.stderr[-2000:])
        if result.returncode != 0:
            print(f"FAIL: exit {result.returncode}")
            return 1
        problems = problems_in(json.loads(output.read_text()))
    for problem in problems:
        print(f"FAIL: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
