#!/usr/bin/env python3
"""Call 1's Nsight Compute figures of the three wide layers (BF16, batch 5248), base (one block an SM on its own)
and pairs (clusters of two sharing B's copies): time, tensor pipe active, L2 bytes and throughput, DRAM bytes,
grid and cluster size.

Usage: ncu_pairs.py CALL_1_DIR
"""
import csv
import pathlib
import sys

METRICS = [
    ("gpu__time_duration.sum", "time ns"),
    ("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "tensor %"),
    ("lts__t_bytes.sum", "L2 bytes"),
    ("lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 %"),
    ("dram__bytes.sum", "DRAM bytes"),
    ("launch__grid_size", "grid"),
    ("launch__cluster_dim_x", "cluster"),
]
LAYERS = ("tconv1 <256,1>", "tconv2 <128,2>", "tconv3 <64,2>")


def main(argv):
    d = pathlib.Path(argv[1])
    print("%-8s %-15s" % ("build", "layer") + "".join("%16s" % label for _, label in METRICS))
    for build, name in (("base", "ncu_base.txt"), ("pairs", "ncu_new.txt")):
        lines = [line for line in (d / name).read_text().splitlines() if line.startswith('"')]
        rows = list(csv.reader(lines))
        header = rows[0]
        for layer, row in zip(LAYERS, rows[2:]):
            print("%-8s %-15s" % (build, layer) + "".join("%16s" % row[header.index(m)] for m, _ in METRICS))


if __name__ == "__main__":
    main(sys.argv)
