"""The GPUs of the node the grader runs on, as nvidia-smi reports them (no GPU: none, never an error)."""
from __future__ import annotations

import os
import subprocess

from .lab_grader import GpuFacts


def gpu_facts() -> GpuFacts | None:
    """The first GPU's name and compute capability, or None without a usable GPU."""
    try:
        result = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    rows = [line.split(",") for line in result.stdout.splitlines() if line.strip()]
    if result.returncode != 0 or not rows or len(rows[0]) < 2:
        return None
    try:
        return GpuFacts(rows[0][0].strip(), float(rows[0][1].strip()))
    except ValueError:
        return None


def gpu_list(text: str) -> list[str]:
    """--gpus, else the devices a scheduler already gave this job (CUDA_VISIBLE_DEVICES), else every GPU."""
    if text:
        return text.split(",")
    if visible := os.environ.get("CUDA_VISIBLE_DEVICES", "").strip():
        return [device for device in visible.split(",") if device]
    try:
        listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [str(i) for i, line in enumerate(row for row in listing.stdout.splitlines() if row.startswith("GPU "))]
