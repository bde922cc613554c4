"""The record format: Google Benchmark JSON as the lab drivers write it (--benchmark_format=json or
--results-dir), read here and nowhere else.

A record holds a `context` (device, driver, cuda_runtime, command, git_commit, date; a merged record
keeps each run's context under its name) and a list of `benchmarks`. Each benchmark has a `name`, a
`run_name` (`labNN/<variant>/<problem>`, `cublas/<problem>`, ...), a `run_type` (`iteration` or
`aggregate`), for an aggregate its `aggregate_name` (`mean`, `median`, `stddev`, ...), `real_time` in
`time_unit`, and the lab's counters (`gflops`, `pct_cublas`, `images_per_s`, `occupancy`, ...). Lab
09's merged records add `layers`: per-layer tables by `<variant>/b<batch>`.
"""
from __future__ import annotations

import json
import pathlib


def run_name(entry: dict) -> str:
    """What a benchmark measured, without its aggregate's suffix (older files name only `name`)."""
    return entry.get("run_name", entry["name"])


def device_slug(device: str) -> str:
    """A device's name as record files spell it: "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"."""
    slug = "".join(ch if ch.isalnum() else "-" for ch in device.lower())
    while "--" in slug:
        slug = slug.replace("--", "-")
    return slug.strip("-")


class Record:
    """One record file: its context, its benchmarks and, for lab 09's merged records, its layer tables."""

    def __init__(self, data: dict, path: pathlib.Path | str | None = None):
        self.path = pathlib.Path(path) if path is not None else None
        self.data = data
        self.context = data.get("context", {})
        self.benchmarks = data.get("benchmarks", [])
        self.layers = data.get("layers", {})

    @classmethod
    def load(cls, path: pathlib.Path | str) -> Record:
        return cls(json.loads(pathlib.Path(path).read_text()), path)

    def aggregates(self) -> list[dict]:
        """The statistics over repetitions (mean, median, stddev, ...), not the single runs."""
        return [b for b in self.benchmarks if b.get("run_type") == "aggregate"]

    def medians(self) -> list[dict]:
        """The median aggregate of every benchmark, in the file's order."""
        return [b for b in self.benchmarks if b.get("aggregate_name") == "median"]

    def medians_by_name(self) -> dict[str, dict]:
        """Run name -> its median aggregate."""
        return {run_name(b): b for b in self.medians()}


def record_files(paths) -> list[pathlib.Path]:
    """The lab records named: a file as it is, a folder's lab*_*.json files in name order."""
    files = []
    for arg in paths:
        path = pathlib.Path(arg)
        files.extend(sorted(path.glob("lab*_*.json")) if path.is_dir() else [path])
    return files
