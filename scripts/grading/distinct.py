"""Variants that are what their names say. Each lab's rubric names what sets its variants apart (a
launch configuration, a shared-memory access pattern, an instruction that only one of them uses) as
Nsight Compute metrics, measured on one launch of each variant on a small problem. Two variants whose
measurements agree are one kernel under two names: the later one in the rubric's order earns nothing.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass

# ncu's exit line when the node does not let users read the GPU's performance counters.
_NO_PERMISSION = re.compile(r"ERR_NVGPUCTRPERM|does not have permission to access NVIDIA GPU Performance Counters")


@dataclass(frozen=True)
class DistinctRule:
    why: str  # what makes the lab's variants distinct, in words, for the report
    metrics: tuple[str, ...]  # the Nsight Compute metrics that measure it
    args: tuple[str, ...]  # the driver's problem flags for the profiled run
    tolerance: float = 0.05  # relative difference below which two measurements agree
    repeats: tuple[str, ...] = ()  # variants that may repeat another (lab 07's best picks one of them)


def ncu_command(ncu: str, driver: str, lab: str, variant: str, rule: DistinctRule) -> list[str]:
    """The profile the rule reads: the first launch of the lab's kernels in a --verify-only run of one
    variant on the rule's problem (clocks as the GPU sets them, as the recorded profiles are taken)."""
    return [ncu, "--clock-control", "none", "--kernel-name-base", "demangled", "--kernel-name", f"regex:lab{lab}::",
            "--launch-count", "1", "--metrics", ",".join(rule.metrics), "--csv", "--page", "raw", driver, "--variant",
            variant, "--verify-only", *rule.args]


def read_ncu_csv(text: str) -> dict[str, float] | None:
    """The metrics of the first kernel in ncu's `--csv --page raw` output (the program's own output and
    ncu's notes come first); None when no kernel was profiled."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return None
    rows = list(csv.reader(lines[start:]))
    if len(rows) < 3:  # header, units, then one row per kernel
        return None
    values = {}
    for name, cell in zip(rows[0], rows[2]):
        try:
            values[name] = float(cell.replace(",", ""))
        except ValueError:
            continue
    return values


def no_permission(text: str) -> bool:
    return bool(_NO_PERMISSION.search(text))


def agree(first: dict[str, float], second: dict[str, float], tolerance: float) -> bool:
    """True when every metric of the two measurements is within `tolerance` of the larger one."""
    return all(abs(first[m] - second[m]) <= tolerance * max(abs(first[m]), abs(second[m])) for m in first)


def repeated(signatures: dict[str, dict[str, float]], rule: DistinctRule) -> dict[str, str]:
    """Variant -> the earlier variant (in the given order) whose measurements it repeats."""
    found: dict[str, str] = {}
    kept: list[str] = []
    for name, signature in signatures.items():
        if name in rule.repeats:
            continue
        twin = next((earlier for earlier in kept if agree(signatures[earlier], signature, rule.tolerance)), None)
        if twin is None:
            kept.append(name)
        else:
            found[name] = twin
    return found


def describe(signature: dict[str, float]) -> str:
    """The measurements in one short line: metric names without their common prefixes."""
    def short(metric: str) -> str:
        return metric.replace("l1tex__data_", "").replace("pipe_lsu_mem_", "").replace(".sum", "")
    return ", ".join(f"{short(m)} {v:.4g}" for m, v in signature.items())
