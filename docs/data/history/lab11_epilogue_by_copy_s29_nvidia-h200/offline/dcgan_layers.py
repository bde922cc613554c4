#!/usr/bin/env python3
"""Per-layer times of interleaved `dcgan` runs side by side: the median over rounds of each layer's time (the
program's per-layer table: CUDA events around each layer, median of 5 runs) and of the whole generator, for each
build and precision, and each build's ratio to the first.

Usage: dcgan_layers.py RUNS_DIR      (files BUILD_PRECISION_ROUND.txt, each one `dcgan` run's output)
"""
import collections
import pathlib
import re
import statistics
import sys

LAYER = re.compile(r"^(linear\+bn\+relu|tconv\d)\S*(?:\s+\S+)*?\s+([\d.]+)\s+\d+\s+[\d.]+\s+\d+\s*$")
GENERATOR = re.compile(r"^(dcgan_bf16|dcgan_tf32)\s+\S+\s+([\d.]+)\s")


def main(argv):
    times = collections.defaultdict(list)
    builds = []
    for path in sorted(pathlib.Path(argv[1]).glob("*_*_*.txt")):
        build, precision, _ = path.stem.rsplit("_", 2)
        if build not in builds:
            builds.append(build)
        for line in path.read_text().splitlines():
            m = LAYER.match(line) or GENERATOR.match(line)
            if m:
                name = "generator" if m.group(1).startswith("dcgan") else m.group(1)
                times[(precision, build, name)].append(float(m.group(2)))
    builds.sort(key=lambda b: (b != "base", b))
    for precision in ("bf16", "tf32"):
        if not any(key[0] == precision for key in times):
            continue
        print("%s, ms (median of the rounds)" % precision.upper())
        print("%-16s" % "layer" + "".join("%10s" % b for b in builds) + "".join("%12s" % (b + "/" + builds[0]) for b in builds[1:]))
        for name in ("linear+bn+relu", "tconv1", "tconv2", "tconv3", "tconv4", "generator"):
            med = [statistics.median(times[(precision, b, name)]) for b in builds]
            print("%-16s" % name + "".join("%10.3f" % t for t in med) + "".join("%12.3f" % (t / med[0]) for t in med[1:]))
        print()


if __name__ == "__main__":
    main(sys.argv)
