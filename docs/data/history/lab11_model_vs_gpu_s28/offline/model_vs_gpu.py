#!/usr/bin/env python3
"""Lab 11's model against `best`'s GPU time, at the 240 shapes of the two random-shapes records at c4d579c.

For each shape: the path `best` takes and the model's time of it (lab11_paths.cpp, built against best_plan.h), and
`best`'s GPU time a launch there (graph replays). Prints measured / predicted by path, by the model's time and the
largest. Then the experiment of a C store in the warp-specialized kernel's unit time: a copy of best_plan.h in
which each unit adds (or overlaps with its k-blocks) the store of its 128 x width FP32 tile at STORE_GBPS an SM,
with kUnitStartUs set to UNIT_START; the mean |log error| of the path each shape took, and the shapes whose path
that model would change, with the new model's time of both.

Usage (from the repository's root): model_vs_gpu.py CXX_INCLUDES... (e.g. -I/usr/local/cuda/include)
"""
import collections
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
RECORDS = [
    "docs/data/results/gemm_random_shapes_times_nvidia-h200.json",  # seed 4998064687210808757 at c4d579c
    "docs/data/history/gemm_short_k_s27_nvidia-h200/call_c2/seed2/gemm_random_shapes_times.json",  # the other seed
]
UNIT = "  const double unit_us = units.slice_blocks() * specialized_step_us(width) + kUnitStartUs;"
UNIT_WITH_STORE = """  const double store_gbps = std::atof(std::getenv("STORE_GBPS"));
  const double store_us = 4.0 * SpecializedTile<256>::BM * width / (store_gbps * 1e3);
  const double steps_us = units.slice_blocks() * specialized_step_us(width);
  const double unit_us = (std::getenv("STORE_ADD") ? steps_us + store_us : std::max(steps_us, store_us)) +
                         std::atof(std::getenv("UNIT_START"));"""


def build(includes, header_dir, out):
    subprocess.run(
        [
            "g++",
            "-std=c++20",
            *(["-I" + str(header_dir)] if header_dir else []),
            "-I.",
            *includes,
            str(HERE / "lab11_paths.cpp"),
            "-o",
            str(out),
        ],
        check=True,
    )


def run(exe, shapes, env=None):
    out = subprocess.run(
        [str(exe)],
        input="".join("%d %d %d\n" % s[1] for s in shapes),
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=True,
    ).stdout.split("\n")
    rows = []
    for line in out[: len(shapes)]:
        f = line.split()
        row = {"path": f[3], "us": float(f[4])}
        row.update({f[i]: float(f[i + 1]) for i in range(5, len(f), 2)})
        rows.append(row)
    return rows


def kind(path):
    return "tma" if path.startswith("tma") else path


def main(argv):
    includes = argv[1:]
    shapes = []
    for seed, path in enumerate(RECORDS, 1):
        for s in json.load(open(path))["shapes"]:
            graph = (s.get("graph_us_per_launch") or {}).get("best")
            if s["lab"] == "11" and graph:
                shapes.append((seed, tuple(map(int, s["shape"].split("x"))), graph))
    work = pathlib.Path(tempfile.mkdtemp())
    build(includes, None, work / "paths")
    base = run(work / "paths", shapes)

    ratios = [(g / b["us"], "x".join(map(str, sh)), b["path"], b["us"], g) for (_, sh, g), b in zip(shapes, base)]
    print(f"{len(ratios)} shapes; measured / predicted, geometric mean and range, by path:")
    by = collections.defaultdict(list)
    for r in ratios:
        k = kind(r[2])
        by[k if k != "tma" else ("tma split" if "_s" in r[2] else "tma whole")].append(r[0])
    for k, v in sorted(by.items()):
        print(
            f"  {k:12s} {len(v):3d} shapes: {math.exp(sum(map(math.log, v)) / len(v)):.2f} "
            f"({min(v):.2f} to {max(v):.2f})"
        )
    print("by the model's time:")
    for low, high in ((0, 10), (10, 30), (30, 100), (100, math.inf)):
        v = [r[0] for r in ratios if low <= r[3] < high]
        print(f"  [{low}, {high}) us, {len(v):3d} shapes: {math.exp(sum(map(math.log, v)) / len(v)):.2f}")
    print("the largest ratios (measured / predicted, shape, path, predicted us, measured us):")
    for r in sorted(ratios, reverse=True)[:15]:
        print("  %.2f %-18s %-22s %8.1f %8.1f" % r)

    # The same model with a C store in each unit's time.
    copy = work / "labs" / "11_tensor_cores"
    shutil.copytree("labs/11_tensor_cores", copy)
    header = (copy / "best_plan.h").read_text()
    assert header.count(UNIT) == 1
    (copy / "best_plan.h").write_text(
        header.replace(UNIT, UNIT_WITH_STORE).replace(
            "#include <algorithm>", "#include <algorithm>\n#include <cstdlib>"
        )
    )
    build(includes, work, work / "paths_store")

    def error(rows, seed=None):
        e = [math.log(g / r[kind(b["path"])]) for (s, _, g), b, r in zip(shapes, base, rows) if seed in (None, s)]
        return sum(map(abs, e)) / len(e), sum(e) / len(e)

    print(
        "mean |log error| of the path each shape took (and its mean log error), as committed: %.3f (%+.3f)"
        % error(base)
    )
    for add in (False, True):
        for gbps in (60, 40, 30, 26, 22, 18):
            for start in (1.0, 0.5, 0.0):
                env = {"STORE_GBPS": str(gbps), "UNIT_START": str(start), **({"STORE_ADD": "1"} if add else {})}
                rows = run(work / "paths_store", shapes, env)
                print(
                    "  store %s, %g GB/s an SM, unit start %.1f us: %.3f (%+.3f); seed 1 %.3f, seed 2 %.3f"
                    % (
                        "added" if add else "overlapped",
                        gbps,
                        start,
                        *error(rows),
                        error(rows, 1)[0],
                        error(rows, 2)[0],
                    )
                )
    rows = run(work / "paths_store", shapes, {"STORE_GBPS": "30", "UNIT_START": "1.0", "STORE_ADD": "1"})
    print(
        "the paths the store (added, 30 GB/s, unit start 1.0) would change: measured us of the path taken; the "
        "new model's time of it and of its pick"
    )
    for (seed, sh, g), b, r in zip(shapes, base, rows):
        if b["path"] != r["path"]:
            print(
                "  seed %d %-18s %-22s -> %-22s measured %5.1f; model %5.1f, its pick %5.1f"
                % (seed, "x".join(map(str, sh)), b["path"], r["path"], g, r[kind(b["path"])], r["us"])
            )
    shutil.rmtree(work)


if __name__ == "__main__":
    main(sys.argv)
