"""The plan `best` picks at each shape (PICKS: lines "shape plan repacked", from pick.cpp) over the
fastest plan lab07_plans timed there, and their geometric mean.

  python3 eval_picks.py PICKS.txt PLANS.json ... [--each]
"""
import json
import math
import re
import sys

each = "--each" in sys.argv
args = [a for a in sys.argv[1:] if a != "--each"]
picks = {line.split()[0]: (line.split()[1], int(line.split()[2])) for line in open(args[0])}
logs = []
for f in args[1:]:
    for p in json.load(open(f))["problems"]:
        shape = re.match(r"\d+x\d+x\d+", p["problem"]).group(0)
        measured = {r["plan"]: r["measured_us"] for r in p["plans"] if r.get("correct")}
        fastest = min(measured.values())
        plan, repacked = picks[shape]
        if plan not in measured:
            print("not timed:", shape, plan)
            continue
        us = measured[plan]
        logs.append(math.log(us / fastest))
        if each:
            print(f"{shape:>15} {plan:>22}{'(r)' if repacked else '   '} {us:6.1f} fastest {fastest:6.1f} {us / fastest:.3f}")
print(args[0], "picked over fastest, geometric mean %.4f" % math.exp(sum(logs) / len(logs)), "at", len(logs), "shapes")
