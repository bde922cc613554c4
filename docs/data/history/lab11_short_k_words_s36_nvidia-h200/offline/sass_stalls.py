#!/usr/bin/env python3
"""Where the short-K kernel's warps wait: from Nsight Compute's SASS page (call_2/ncu_sass_*.txt,
`ncu --page source --csv --print-source sass`), the stall samples summed by reason, and the SASS
lines that hold the most samples with their main reasons.
Usage: sass_stalls.py ncu_sass_SHAPE.txt [LINES]"""
import collections
import csv
import sys


def main(argv):
    lines = int(argv[2]) if len(argv) > 2 else 25
    rows = list(csv.reader(open(argv[1])))
    header = rows[1]
    body = [r for r in rows[2:] if len(r) == len(header)]
    at = {name: i for i, name in enumerate(header)}
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    total = collections.Counter()
    for r in body:
        for name in reasons:
            total[name] += int(r[at[name]] or 0)
    samples = sum(total.values())
    print(f"{argv[1]}: {samples} stall samples")
    for name, count in total.most_common(8):
        print(f"  {name:24s} {count:7d}  {count / samples:6.1%}")
    print("busiest SASS lines (samples, reasons):")
    ranked = sorted(body, key=lambda r: -int(r[at["Warp Stall Sampling (All Samples)"]] or 0))
    for r in ranked[:lines]:
        top = sorted(((int(r[at[n]] or 0), n[6:]) for n in reasons), reverse=True)[:2]
        why = ", ".join(f"{n} {c}" for c, n in top if c)
        print(f"  {r[at['Address']][-5:]} {int(r[at['Warp Stall Sampling (All Samples)']]):6d}  "
              f"{r[at['Source']].strip()[:60]:60s} {why}")


if __name__ == "__main__":
    main(sys.argv)
