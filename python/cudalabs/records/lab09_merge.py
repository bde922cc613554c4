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

from cudalabs.records.benchmark import Record, device_slug


def pytorch_stem(precision):
    """Where a session's PyTorch results at `precision` are named, in the context and the benchmarks:
    `pytorch` for FP32 ("" or "fp32", as lab 09's records have always had it), else pytorch_<precision>."""
    return "pytorch" if precision in ("", "fp32") else f"pytorch_{precision}"


def main(argv):
    runs, out = argv[1], argv[2]
    stem = argv[3] if len(argv) > 3 else "lab09"  # lab11_dcgan: the tensor-core session
    benchmarks, layers, context = [], {}, {}
    for path in sorted(glob.glob(os.path.join(runs, "lab09_*.json"))):
        if path.endswith("_extra.json"):
            continue
        record = Record.load(path)
        context = context or record.context
        benchmarks += record.aggregates()
        extra_path = path[: -len(".json")] + "_extra.json"
        if os.path.exists(extra_path):
            extra = json.load(open(extra_path))
            e2e = extra["end_to_end"]
            if e2e.get("repetitions", 0) > 0:
                name = f"{e2e['name']}_b{e2e['batch']}"
                benchmarks.append(
                    {
                        "name": name + "_median",
                        "run_name": name,
                        "run_type": "aggregate",
                        "aggregate_name": "median",
                        "real_time": e2e["real_time"],
                        "time_unit": "ms",
                        "images_per_s": e2e["images_per_s"],
                        "batch": e2e["batch"],
                        "num": e2e["num"],
                    }
                )
            for variant, table in extra["layers"].items():
                layers[f"{variant}/b{table['batch']}"] = table
    for path in sorted(glob.glob(os.path.join(runs, "pytorch*.json"))):
        pytorch = Record.load(path)
        for b in pytorch.benchmarks:
            benchmarks.append(
                dict(b, name=b["name"] + "_median", run_name=b["name"], run_type="aggregate", aggregate_name="median")
            )
        precision = pytorch.context.get("precision", "fp32")
        context[pytorch_stem(precision)] = pytorch.context
    slug = device_slug(context.get("device", "unknown"))
    result = {"context": context, "benchmarks": benchmarks, "layers": layers}
    path = os.path.join(out, f"{stem}_{slug}.json")
    json.dump(result, open(path, "w"), indent=1)
    medians = Record(result).medians_by_name()
    for batch in (1024, 5248):
        for name, b in sorted(medians.items()):
            if not name.endswith(f"/b{batch}") or "images_per_s" not in b:
                continue
            # lab11/dcgan_<precision>/b<batch> against pytorch_<precision>, lab 09's against pytorch
            precision = name.split("/")[1][len("dcgan_") :] if name.startswith("lab11/dcgan_") else ""
            theirs = medians.get(f"{pytorch_stem(precision)}/b{batch}")
            if (name.startswith("lab09/") or precision) and theirs:
                print(
                    f"{name}: {b['images_per_s']:,.0f} images/s = {b['images_per_s'] / theirs['images_per_s']:.2f}x "
                    f"{theirs['run_name']} ({theirs['images_per_s']:,.0f})"
                )
    for name, b in sorted(medians.items()):
        if "/end_to_end/" not in name or name.startswith("pytorch"):
            continue
        precision = name.split("/")[2][len("dcgan_") :] if name.startswith("lab11/end_to_end/dcgan_") else ""
        prefix = f"{pytorch_stem(precision)}/end_to_end/"
        theirs = next((t for n, t in medians.items() if n.startswith(prefix)), None)
        if theirs:
            print(
                f"{name}: {b['real_time']:.1f} ms = {theirs['real_time'] / b['real_time']:.2f}x faster than "
                f"{theirs['run_name']} ({theirs['real_time']:.1f} ms)"
            )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
