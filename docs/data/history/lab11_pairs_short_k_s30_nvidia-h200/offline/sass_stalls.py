#!/usr/bin/env python3
"""Warp-stall samples of one kernel from Nsight Compute's source page (`ncu -i REP --page source --csv
--print-source sass`): the samples of each stall reason over all instructions, then the 25 instructions with the
most samples and each one's two largest reasons.

Usage: sass_stalls.py SASS.csv
"""
import collections
import csv
import sys


def main(argv):
    rows = list(csv.reader(open(argv[1])))
    header, data = rows[1], [r for r in rows[2:] if len(r) >= len(rows[1])]
    samples = header.index("Warp Stall Sampling (All Samples)")
    reasons = [i for i, h in enumerate(header) if h.startswith("stall_") and "(Not Issued)" not in h]
    per_reason, total = collections.Counter(), 0
    for r in data:
        total += int(r[samples] or 0)
        for i in reasons:
            per_reason[header[i]] += int(r[i] or 0)
    print("total samples", total)
    for name, count in per_reason.most_common(10):
        print("%-24s %6d %5.1f%%" % (name, count, 100 * count / total))
    print("top instructions:")
    for r in sorted(data, key=lambda r: -int(r[samples] or 0))[:25]:
        top = sorted(((int(r[i] or 0), header[i]) for i in reasons), reverse=True)[:2]
        print("%6s %5.1f%% %-60s %s" % (r[samples], 100 * int(r[samples]) / total, r[1].strip()[:60], top))


if __name__ == "__main__":
    main(sys.argv)
