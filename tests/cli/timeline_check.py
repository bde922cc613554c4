#!/usr/bin/env python3
"""A run's --timeline trace has every batch of every worker (GPU machine; ctest cli.*_timeline_batches).

Runs the program with --timeline into a temporary file, then checks the Chrome trace: one process per
worker (WORKERS of them), and in each, for every batch of its share (gpu_share: the first num % workers
workers get one image more; ceil(share / batch) batches), the staging, the upload, the five layers,
the download and the host copy, each once; every span with a start and a positive duration.

  timeline_check.py WORKERS NUM BATCH PROGRAM [FLAGS...]     (the script adds --num, --batch, --timeline)
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

STEPS = ("stage latents", "upload", "linear", "tconv1", "tconv2", "tconv3", "tconv4", "download", "copy images")


def gpus_present() -> int:
    try:
        listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return sum(line.startswith("GPU ") for line in listing.stdout.splitlines())


def expected_batches(num: int, workers: int, batch: int) -> list[int]:
    """Batches of each worker's share."""
    shares = [num // workers + (1 if w < num % workers else 0) for w in range(workers)]
    return [(share + batch - 1) // batch for share in shares]


def problems_in(trace: dict, workers: int, batches: list[int]) -> list[str]:
    events = trace.get("traceEvents", [])
    processes = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    spans = [e for e in events if e.get("ph") == "X"]
    problems = []
    if len(processes) != workers:
        problems.append(
            f"{len(processes)} worker processes in the trace ({sorted(processes.values())}), expected {workers}"
        )
    for worker, pid in enumerate(sorted(processes)):
        names = [e["name"] for e in spans if e["pid"] == pid]
        for b in range(batches[worker] if worker < len(batches) else 0):
            for step in STEPS:
                count = names.count(f"{step} b{b}")
                if count != 1:
                    problems.append(f"{processes[pid]}: '{step} b{b}' appears {count} times, expected once")
        extra = [n for n in names if int(n.rsplit(" b", 1)[1]) >= batches[worker]] if worker < len(batches) else names
        if extra:
            problems.append(f"{processes[pid]}: spans of batches it does not have: {extra[:4]}")
    for e in spans:
        if not (isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur"), (int, float)) and e["dur"] > 0):
            problems.append(f"span '{e.get('name')}' has no start or a duration that is not positive: {e}")
            break
    return problems


def main() -> int:
    if len(sys.argv) < 5:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    workers, num, batch = (int(a) for a in sys.argv[1:4])
    program = sys.argv[4:]
    if gpus_present() == 0:
        print("SKIPPED: no CUDA GPU available")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.json"
        run = subprocess.run(
            [*program, "--num", str(num), "--batch", str(batch), "--timeline", str(path)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if run.returncode != 0:
            print(f"FAIL: {' '.join(program)} exited {run.returncode}:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
            return 1
        problems = problems_in(json.loads(path.read_text()), workers, expected_batches(num, workers, batch))
    for problem in problems:
        print(f"FAIL: {problem}")
    if not problems:
        print(
            f"timeline_check: {workers} worker(s), batches {expected_batches(num, workers, batch)}: every step of "
            "every batch traced once"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
