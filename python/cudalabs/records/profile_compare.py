"""The key metrics of two Nsight Compute CSVs written by scripts/profile (yours and the reference
solution's), side by side per variant, in the handouts' terms.

  profile_compare.py YOURS.csv [SOLUTION.csv]
"""
from __future__ import annotations

import sys
from pathlib import Path

# The docs' own reader of scripts/profile's CSV (it also knows the NVTX-filtered cuBLAS row's layout).
from cudalabs.records import labdata

# (label, metric, unit scale, format): what the handouts discuss, in their units.
KEY_METRICS = (
    ("time (ms)", "gpu__time_duration.sum", 1e-6, "{:.3f}"),  # ncu records nanoseconds
    ("registers / thread", "launch__registers_per_thread", None, "{:.0f}"),
    ("achieved occupancy (%)", "sm__warps_active.avg.pct_of_peak_sustained_active", None, "{:.1f}"),
    ("SM throughput (% of peak)", "sm__throughput.avg.pct_of_peak_sustained_elapsed", None, "{:.1f}"),
    (
        "memory throughput (% of peak)",
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
        None,
        "{:.1f}",
    ),
    ("DRAM read (MB)", "dram__bytes_read.sum", 1e-6, "{:,.1f}"),
    (
        "global load sectors / request",
        ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
        None,
        "{:.2f}",
    ),
    ("shared load bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", None, "{:,.0f}"),
    ("shared store bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", None, "{:,.0f}"),
    ("FFMA (thread instructions)", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", None, "{:,.0f}"),
)


def read_profile(path: Path) -> dict[str, dict[str, float]]:
    """Variant -> metric -> value, the first kernel of each variant (labdata.Profile's reading)."""
    profile = labdata.Profile(path)
    found: dict[str, dict[str, float]] = {}
    for row in profile.rows:
        values = {}
        for name, cell in row.items():
            try:
                values[name] = labdata.number(cell)
            except ValueError:
                continue
        found.setdefault(row["variant"], values)
    return found


def key_value(values: dict[str, float], metric, scale) -> float | None:
    if isinstance(metric, tuple):
        top, bottom = (values.get(m) for m in metric)
        return top / bottom if top is not None and bottom else None
    value = values.get(metric)
    return value * scale if value is not None and scale else value


def table(yours: dict, solution: dict | None) -> str:
    lines = []
    for variant, values in yours.items():
        lines.append(f"\n{variant}")
        reference = (solution or {}).get(variant)
        head = f"  {'metric':32} {'yours':>16}" + (f" {'solution':>16}" if reference else "")
        lines.append(head)
        for label, metric, scale, fmt in KEY_METRICS:
            mine = key_value(values, metric, scale)
            cells = [fmt.format(mine) if mine is not None else "-"]
            if reference:
                theirs = key_value(reference, metric, scale)
                cells.append(fmt.format(theirs) if theirs is not None else "-")
            lines.append(f"  {label:32} " + " ".join(f"{c:>16}" for c in cells))
    return "\n".join(lines)


def main(argv) -> int:
    if len(argv) not in (2, 3):
        print("usage: profile_compare.py YOURS.csv [SOLUTION.csv]", file=sys.stderr)
        return 2
    paths = [Path(p) for p in argv[1:]]
    for path in paths:
        if not path.is_file():
            print(f"profile_compare: '{path}' is not a file (run scripts/profile first)", file=sys.stderr)
            return 2
    yours = read_profile(paths[0])
    solution = read_profile(paths[1]) if len(paths) == 2 else None
    print(
        f"Nsight Compute, first launch of each variant ({paths[0].name}"
        + (f" beside {paths[1].name})" if solution else ")")
        + table(yours, solution)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
