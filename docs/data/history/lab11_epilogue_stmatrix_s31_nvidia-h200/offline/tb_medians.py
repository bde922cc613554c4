#!/usr/bin/env python3
"""Medians over the rounds of scripts/tb.cu's runs, and each output's checksums (one per layer when
every build wrote the same bits).

Usage: tb_medians.py FILE_OR_FOLDER  (call 1's tb_rounds.txt, or call 2's runs/ with tb_<build>_<round>.txt)
"""
import collections
import pathlib
import re
import statistics
import sys


def runs(path):
    path = pathlib.Path(path)
    if path.is_dir():  # one file a run: tb_<build>_<round>.txt
        for f in sorted(path.glob("tb_*.txt")):
            yield f.name.split("_")[1], f.read_text()
        return
    build = None
    for line in path.read_text().splitlines():  # "== round R BUILD" then its output
        m = re.match(r"== round \d+ (\w+)", line)
        if m:
            build = m.group(1)
        elif build:
            yield build, line


def main(path):
    times = collections.defaultdict(lambda: collections.defaultdict(list))
    sums = collections.defaultdict(lambda: collections.defaultdict(set))
    for build, text in runs(path):
        for m in re.finditer(r"(\w+ \w+) ([\d.]+) ms checksum (\w+)", text):
            times[m.group(1)][build].append(float(m.group(2)))
            sums[m.group(1)][build].add(m.group(3))
    for layer, builds in times.items():
        base = statistics.median(builds["base"])
        print(f"{layer}, ms (median of {len(builds['base'])} rounds) and / base:")
        for build, t in builds.items():
            print(f"  {build:7s} {statistics.median(t):.4f}  {statistics.median(t) / base:.3f}  checksum "
                  f"{','.join(sorted(sums[layer][build]))}")


if __name__ == "__main__":
    main(sys.argv[1])
