#!/usr/bin/env python3
"""Markdown tables of a lab's recorded results and Nsight Compute profile, from docs/data/.

The handouts quote these tables and the docs site regenerates them, so a new GPU's run refreshes
every number. Usage:
  scripts/lab_tables.py LAB [--device SLUG] [--data docs/data] [--sweep]
prints the timing table (median ms, GFLOP/s, % of cuBLAS from the same run) and the profile table.
"""
import argparse
import csv
import json
import pathlib
import sys

# Profile columns shown per lab family: (ncu metric, header, how to format).
COMMON = [
    ("gpu__time_duration.sum", "ncu time (ms)", lambda v: f"{float(v) / 1e6:.2f}"),
    ("launch__registers_per_thread", "regs", str),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occ. %", lambda v: f"{float(v):.1f}"),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM %", lambda v: f"{float(v):.1f}"),
    ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory %", lambda v: f"{float(v):.1f}"),
]
GLOBAL = [
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum/l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
     "sectors/request (ld)", lambda v: f"{v:.1f}"),
    ("dram__bytes_read.sum", "DRAM read (GB)", lambda v: f"{float(v) / 1e9:.2f}"),
]
SHARED = [
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "smem ld conflicts", lambda v: f"{float(v):,.0f}"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smem st conflicts", lambda v: f"{float(v):,.0f}"),
]
ISSUE = [
    ("sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", "FMA pipe %", lambda v: f"{float(v):.1f}"),
    ("sm__issue_active.avg.pct_of_peak_sustained_elapsed", "issue active %", lambda v: f"{float(v):.1f}"),
    ("smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", "stall short sb", lambda v: f"{float(v):.2f}"),
    ("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", "stall long sb", lambda v: f"{float(v):.2f}"),
    ("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "stall barrier", lambda v: f"{float(v):.2f}"),
    ("smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", "stall wait", lambda v: f"{float(v):.2f}"),
]
PROFILE_COLUMNS = {
    "00": COMMON + GLOBAL,
    "01": COMMON + GLOBAL,
    "02": COMMON + GLOBAL + SHARED,
    "03": COMMON + SHARED,
    "04": COMMON + [("sm__maximum_warps_per_active_cycle_pct", "theoretical occ. %", lambda v: f"{float(v):.1f}")] + SHARED,
    "05": COMMON + SHARED + ISSUE,
    "06": COMMON + SHARED + ISSUE,
    "07": COMMON + SHARED + ISSUE,
}


def number(text):
    return float(str(text).replace(",", ""))


def markdown(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def timing_table(path):
    data = json.loads(path.read_text())
    medians = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    problems = []
    for b in medians:
        problem = b["run_name"].split("/")[-1]
        if problem not in problems:
            problems.append(problem)
    out = []
    for problem in problems:
        cublas = next((b for b in medians if b["run_name"] == "cublas/" + problem), None)
        rows = []
        for b in medians:
            parts = b["run_name"].split("/")
            if parts[-1] != problem:
                continue
            name = parts[1] if len(parts) == 3 and (parts[0].startswith("lab") or parts[0] == "reference") else parts[0]
            if "gflops" in b:
                pct = 100.0 * b["gflops"] / cublas["gflops"] if cublas else None
                rows.append((name, f"{b['real_time']:.3f}", f"{b['gflops']:,.0f}", "-" if pct is None else f"{pct:.1f}"))
            else:
                rows.append((name, f"{b['real_time']:.3f}", f"{b.get('gbytes_per_s', 0):,.0f} GB/s", "-"))
        out.append(f"**{problem}**\n\n" + markdown(("variant", "ms (median)", "GFLOP/s", "% of cuBLAS"), rows))
    context = data["context"]
    note = (f"_{context['device']}, {context['date'][:10]}, commit {context['git_commit'][:10]}, "
            f"`{context['command'].split(' --results-dir')[0]}`; CUDA-event times, median of "
            f"{medians[0].get('repetitions', '?')} repetitions._")
    return "\n\n".join(out) + "\n\n" + note


def profile_table(path, lab):
    rows = list(csv.reader(path.open()))
    header = rows[0]
    columns = PROFILE_COLUMNS.get(lab, COMMON)
    out_rows = []
    for row in rows[2:]:
        if len(row) > len(header):  # NVTX-filtered rows carry extra columns after the host name
            row = row[:5] + row[5 + len(row) - len(header):]
        values = dict(zip(header, row))
        label = values["variant"]
        if label == "roofline":  # lab 00 profiles every launch of its checks: name them by kernel and grid
            kernel = "copy" if "copy_kernel" in values.get("Kernel Name", "") else "fma"
            label = f"{kernel} grid {values.get('Grid Size', '?')}"
        cells = [label]
        for metric, _, fmt in columns:
            try:
                if "/" in metric:
                    a, b = metric.split("/")
                    cells.append(fmt(number(values[a]) / number(values[b])))
                else:
                    cells.append(fmt(number(values[metric])) if fmt is not str else values[metric])
            except (KeyError, ValueError, ZeroDivisionError):
                cells.append("-")
        out_rows.append(cells)
    return markdown(["variant"] + [c[1] for c in columns], out_rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("lab")
    parser.add_argument("--device", default="nvidia-h100-80gb-hbm3")
    parser.add_argument("--data", default="docs/data")
    parser.add_argument("--sweep", action="store_true")
    args = parser.parse_args()
    data = pathlib.Path(args.data)
    tag = "_sweep" if args.sweep else ""
    result = data / "results" / f"lab{args.lab}{tag}_{args.device}.json"
    if not result.exists():
        print(f"lab_tables: no {result}", file=sys.stderr)
        return 1
    print(timing_table(result))
    profile = data / "profiles" / f"lab{args.lab}_{args.device}.csv"
    if profile.exists() and not args.sweep:
        print("\n" + profile_table(profile, args.lab))
    return 0


if __name__ == "__main__":
    sys.exit(main())
