#!/usr/bin/env python3
"""Each kernel Nsight Compute profiled in call 5 (`ncu --section SpeedOfLight --section LaunchStats ...` over
gemm_random_shapes at one shape): its name, grid, duration (ncu's clocks), DRAM throughput and achieved occupancy,
the median over its launches.

Usage: ncu_kernels.py CALL_5_DIR
"""
import collections
import pathlib
import re
import statistics
import sys

SHAPES = ("2885x8x4457", "5043x8x2296", "10249x272x10072")
KERNEL = re.compile(r"^  (\S.*?)\s+\((\d+), (\d+), (\d+)\)x\((\d+), 1, 1\)")


def number(line):
    return float(line.split()[-1].replace(",", ""))


def main(argv):
    for shape in SHAPES:
        print("=== %s" % shape)
        launches = collections.defaultdict(list)
        name = None
        for line in (pathlib.Path(argv[1]) / f"ncu_{shape}.txt").read_text().splitlines():
            m = KERNEL.match(line)
            if m:
                grid = int(m.group(2)) * int(m.group(3)) * int(m.group(4))
                name = "%s grid %d x %s threads" % (m.group(1)[:70], grid, m.group(5))
                launches[name].append({})
            elif name and line.strip().startswith(("Duration", "DRAM Throughput", "Achieved Occupancy")):
                key = line.split()[0] + (" " + line.split()[1] if line.split()[1].isalpha() else "")
                launches[name][-1][key] = number(line)
        for name, runs in launches.items():
            med = {k: statistics.median(r[k] for r in runs if k in r) for k in runs[0]}
            print("  %s: %d launches, %s" % (name, len(runs), ", ".join("%s %.2f" % kv for kv in sorted(med.items()))))


if __name__ == "__main__":
    main(sys.argv)
