"""Merges one lab10-bench session into OUT/lab10_<device>.json.

Inputs (RUNS folder): lab10_threads_<device>.json (lab10_solution), lab10_mpi_<device>.json
(dcgan_mpi) and, when it was run, lab10_mpi-collective_<device>.json (dcgan_mpi --gather collective),
Google-Benchmark shaped with benchmarks lab10/<flavour>/n<num>x<gpus>g and the counter images_per_s.
Output: their benchmarks in one list, their contexts under context.<flavour> (device, date and commit
on top), and the scaling printed.
"""
import glob
import json
import os
import sys

from cudalabs.records.benchmark import Record


def main(argv):
    runs, out = argv[1], argv[2]
    merged = {"context": {}, "benchmarks": []}
    device = None
    for flavour, required in (("threads", True), ("mpi", True), ("mpi-collective", False)):
        paths = sorted(glob.glob(os.path.join(runs, f"lab10_{flavour}_*.json")))
        if not paths:
            if not required:
                continue
            print(f"lab10_merge: no {flavour} record in {runs}", file=sys.stderr)
            return 1
        record = Record.load(paths[0])
        merged["context"][flavour] = record.context
        for key in ("device", "date", "git_commit", "driver", "cuda_runtime", "devices"):
            merged["context"].setdefault(key, record.context.get(key, ""))
        merged["benchmarks"] += record.benchmarks
        device = device or os.path.basename(paths[0])[len(f"lab10_{flavour}_") : -len(".json")]
    path = os.path.join(out, f"lab10_{device}.json")
    json.dump(merged, open(path, "w"), indent=1)
    rates = {b["run_name"]: b["images_per_s"] for b in merged["benchmarks"]}
    for name, rate in sorted(rates.items()):
        flavour, cell = name.split("/")[1], name.split("/")[2]
        num, gpus = cell[1:].split("x")
        one = rates.get(f"lab10/{flavour}/n{num}x1g")
        speedup = f" = {rate / one:.2f}x one GPU" if one else ""
        print(f"{name}: {rate:,.0f} images/s{speedup}")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
