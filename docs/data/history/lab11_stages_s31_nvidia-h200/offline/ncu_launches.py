#!/usr/bin/env python3
"""Call 6's Nsight Compute CSVs, one line a distinct kernel and grid: its launch facts and time (ns,
at Nsight Compute's clocks). Usage: ncu_launches.py call_6/ncu_<shape>.csv ..."""
import csv
import sys

for path in sys.argv[1:]:
    rows = list(csv.reader(line for line in open(path) if line.startswith('"')))
    header, seen = rows[0], set()
    print(f"== {path}: {len(rows) - 2} kernels")
    for row in rows[2:]:
        d = dict(zip(header, row))
        name = d["Kernel Name"][:72]
        if "fill_uniform" in name or "absolute_kernel" in name or "gather_kernel" in name:
            continue  # the driver's inputs and checks
        if (name, d["launch__grid_size"]) in seen:
            continue
        seen.add((name, d["launch__grid_size"]))
        print(f"  {name:72s} grid {d['launch__grid_size']:>5} block {d['launch__block_size']:>4} cluster "
              f"{d['launch__cluster_dim_x']}x{d['launch__cluster_dim_y']} regs {d['launch__registers_per_thread']} "
              f"shared {d['launch__shared_mem_per_block_dynamic']} ns {d['gpu__time_duration.sum']} DRAM % "
              f"{d['dram__throughput.avg.pct_of_peak_sustained_elapsed']}")
