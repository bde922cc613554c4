#!/usr/bin/env python3
"""Merges one lab09-bench session into docs-ready JSON: OUT/lab09_<device>.json.

Inputs (RUNS folder): the dcgan Google Benchmark files lab09_<tag>_<device>.json, their
lab09_<tag>_<device>_extra.json (end to end, per-layer medians), and pytorch.json from
tools/pytorch_dcgan.py bench, all from the same session on the same GPU. Output: one Google-Benchmark
shaped file: ours as lab09/<variant>/b<batch>_median (and _mean, ...), PyTorch's as
pytorch/b<batch>_median and pytorch/end_to_end/n<num>_median, ours end to end as
lab09/end_to_end/<variant>/n<num>_b<batch>_median, each with images_per_s; per-layer tables under
"layers"; both contexts; the ratio to PyTorch printed.
"""
import glob
import json
import os
import sys


def main():
    runs, out = sys.argv[1], sys.argv[2]
    benchmarks, layers, context = [], {}, {}
    for path in sorted(glob.glob(os.path.join(runs, "lab09_*.json"))):
        if path.endswith("_extra.json"):
            continue
        data = json.load(open(path))
        context = context or data["context"]
        benchmarks += [b for b in data["benchmarks"] if b.get("run_type") == "aggregate"]
        extra_path = path[:-len(".json")] + "_extra.json"
        if os.path.exists(extra_path):
            extra = json.load(open(extra_path))
            e2e = extra["end_to_end"]
            if e2e.get("repetitions", 0) > 0:
                name = f"{e2e['name']}_b{e2e['batch']}"
                benchmarks.append({"name": name + "_median", "run_name": name, "run_type": "aggregate",
                                   "aggregate_name": "median", "real_time": e2e["real_time"], "time_unit": "ms",
                                   "images_per_s": e2e["images_per_s"], "batch": e2e["batch"], "num": e2e["num"]})
            for variant, table in extra["layers"].items():
                layers[f"{variant}/b{table['batch']}"] = table
    pytorch = json.load(open(os.path.join(runs, "pytorch.json")))
    for b in pytorch["benchmarks"]:
        benchmarks.append(dict(b, name=b["name"] + "_median", run_name=b["name"], run_type="aggregate",
                               aggregate_name="median"))
    context["pytorch"] = pytorch["context"]
    slug = context.get("device", "unknown").lower()
    slug = "".join(ch if ch.isalnum() else "-" for ch in slug)
    while "--" in slug:
        slug = slug.replace("--", "-")
    slug = slug.strip("-")
    result = {"context": context, "benchmarks": benchmarks, "layers": layers}
    path = os.path.join(out, f"lab09_{slug}.json")
    json.dump(result, open(path, "w"), indent=1)
    medians = {b["run_name"] if "run_name" in b else b["name"]: b for b in benchmarks if b.get("aggregate_name") == "median"}
    for batch in (1024, 5248):
        theirs = medians.get(f"pytorch/b{batch}")
        for name, b in sorted(medians.items()):
            if name.startswith("lab09/") and name.endswith(f"/b{batch}") and theirs and "images_per_s" in b:
                print(f"{name}: {b['images_per_s']:,.0f} images/s = {b['images_per_s'] / theirs['images_per_s']:.2f}x "
                      f"pytorch/b{batch} ({theirs['images_per_s']:,.0f})")
    theirs = next((b for n, b in medians.items() if n.startswith("pytorch/end_to_end/")), None)
    for name, b in sorted(medians.items()):
        if name.startswith("lab09/end_to_end/") and theirs:
            print(f"{name}: {b['real_time']:.1f} ms = {theirs['real_time'] / b['real_time']:.2f}x faster than "
                  f"{theirs['run_name']} ({theirs['real_time']:.1f} ms)")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
