"""Nsight Compute on lab 13's steps past the ladder: one launch of each step (and of the two rungs they
improve) at batch 4, 16 heads, sequence 4096, head_dim 128, and the steps that change how the causal mask is
served (its schedule, its branch, its key tiles) under it too.

scripts/lab13-steps-profile runs ncu on a GPU and leaves, in its folder, one CSV a launch as ncu writes it
(`--csv --page raw`: the program's own output, then a header line, a line of units and a line per kernel),
its log and exit status, and context.json (device, driver, date, commit, ncu's version, the command).
`record` turns that folder into the record docs/data/profiles/lab13_steps_<device>.csv (a row per launch, the
launch's name in front, ncu's columns merged by name, as scripts/profile writes a lab's) with its context
beside it (.json); `markdown` is the handout's table of it ({{step_profiles:...}} in render.py).

  python3 -m cudalabs.records.step_profiles launches                 "ROW MASK" a line: what the script profiles
  python3 -m cudalabs.records.step_profiles metrics                  the metrics it asks ncu for, comma-separated
  python3 -m cudalabs.records.step_profiles record RAW_DIR DATA_DIR [--commit HASH]
"""
from __future__ import annotations

import argparse
import csv
import json
import pathlib
import re
import sys

from cudalabs.records.benchmark import device_slug
from cudalabs.records.labdata import Profile, markdown_table
from cudalabs.records.ncu_page import raw_page

RECORD = "profiles/lab13_steps"
PROBLEM = "b4h16s4096d128"
# (row, mask) in teaching order: the mma.sync core and its steps, the wgmma challenge and its steps.
LAUNCHES = tuple(
    (row, "none")
    for row in (
        "flash_mma",
        "flash_mma_ex2",
        "flash_mma_rows",
        "flash_mma_prefetch",
        "flash_mma_lazy",
        "flash_mma_copies",
        "flash_mma_chains",
        "flash_wgmma",
        "flash_wgmma_2cta",
        "flash_wgmma_overlap",
        "flash_wgmma_overlap_128",
        "flash_wgmma_ws",
        "flash_wgmma_ws_pingpong",
        "flash_wgmma_ws_tma",
        "flash_wgmma_ws_lpt",
        "flash_wgmma_ws_lazy",
        "flash_wgmma_ws_176",
        "flash_wgmma_ws_chains",
        "flash_wgmma_ws_tiles",
        "flash_wgmma_ws_persistent",
        "flash_wgmma_ws_resident",
        "flash_wgmma_ws_fma",
    )
) + tuple(
    (row, "causal")
    for row in ("flash_wgmma_ws_tma", "flash_wgmma_ws_lpt", "flash_wgmma_ws_chains", "flash_wgmma_ws_tiles")
)

TIME = "gpu__time_duration.sum"
TENSOR = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"  # mma.sync and wgmma alike
STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$")
# Asked for beside the sections (SpeedOfLight, Occupancy, LaunchStats, WarpStateStats): the tensor pipe by
# kind of instruction and the issue slots. The script drops a name its ncu does not know (a newer ncu has
# sm__pipe_tensor_op_gmma_cycles_active, wgmma's own pipe; this list asks for it where it exists).
METRICS = (
    TIME,
    TENSOR,
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_tensor_op_hmma.sum",
    "sm__inst_executed_pipe_tensor_op_gmma.sum",
    "sm__issue_active.avg.pct_of_peak_sustained_active",
    "smsp__average_warp_latency_per_inst_issued.ratio",
    "launch__registers_per_thread",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "dram__bytes_read.sum",
)
# The table: (metric, header, format); then the three largest stall reasons.
COLUMNS = (
    (TIME, "kernel ms", lambda v: f"{v / 1e6:.3f}"),
    (TENSOR, "tensor pipe %", lambda v: f"{v:.1f}"),
    ("sm__issue_active.avg.pct_of_peak_sustained_active", "issue slots %", lambda v: f"{v:.1f}"),
    ("launch__registers_per_thread", "registers", lambda v: f"{v:.0f}"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "warps active %", lambda v: f"{v:.1f}"),
)
TOP_STALLS = 3


def stem(row: str, mask: str) -> str:
    """The file name of one launch's CSV, log and status in the script's folder."""
    return row if mask == "none" else f"{row}_{mask}"


def label(row: str, mask: str) -> str:
    """The launch's name in the record's `variant` column."""
    return row if mask == "none" else f"{row}, {mask}"


def read_raw(path: pathlib.Path) -> tuple[list[str], list[str], list[list[str]]]:
    """ncu's raw page in a launch's file: (header, units, one row per kernel)."""
    return raw_page(path.read_text(errors="replace"))


def why_missing(raw_dir: pathlib.Path, name: str) -> str:
    """Why a launch left no profile: its exit status and the last line of its log."""
    status = raw_dir / f"{name}.status"
    if not status.exists() and not (raw_dir / f"{name}.csv").exists():
        return "not run"
    code = status.read_text().strip() if status.exists() else "?"
    reason = {"124": "timed out", "137": "killed"}.get(code, f"exit {code}")
    log = raw_dir / f"{name}.log"
    last = [line for line in log.read_text(errors="replace").splitlines() if line.strip()] if log.exists() else []
    return f"ncu profiled no kernel ({reason}{': ' + last[-1].strip() if last else ''})"


def record(raw_dir: pathlib.Path, data_dir: pathlib.Path, commit: str | None = None) -> pathlib.Path:
    """Writes docs/data/profiles/lab13_steps_<device>.csv and .json from the script's folder; returns the CSV."""
    context = json.loads((raw_dir / "context.json").read_text())
    columns, units, rows, missing = ["variant"], {"variant": ""}, [], {}
    for row, mask in LAUNCHES:
        name = stem(row, mask)
        path = raw_dir / f"{name}.csv"
        header, unit_row, kernels = read_raw(path) if path.exists() else ([], [], [])
        if not kernels:
            missing[label(row, mask)] = why_missing(raw_dir, name)
            continue
        if len(kernels) != 1:
            raise ValueError(f"{path}: {len(kernels)} kernels profiled, one launch expected (--launch-count 1)")
        columns += [c for c in header if c not in columns]
        units.update(zip(header, unit_row))
        rows.append({"variant": label(row, mask), **dict(zip(header, kernels[0]))})
    if not rows:
        raise ValueError(f"{raw_dir}: no launch was profiled ({'; '.join(f'{k}: {v}' for k, v in missing.items())})")
    stem_out = data_dir / f"{RECORD}_{device_slug(context['device'])}"
    stem_out.parent.mkdir(parents=True, exist_ok=True)
    with stem_out.with_suffix(".csv").open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(columns)
        writer.writerow([units.get(c, "") for c in columns])
        writer.writerows([r.get(c, "") for c in columns] for r in rows)
    context = {**context, "problem": PROBLEM, "missing": missing}
    if commit:
        context["git_commit"] = commit
    stem_out.with_suffix(".json").write_text(json.dumps(context, indent=2) + "\n")
    return stem_out.with_suffix(".csv")


def stalls(profile: Profile, variant: str) -> str:
    """The largest stall reasons of a launch, in cycles a warp waited per instruction issued."""
    row = next(r for r in profile.rows if r["variant"] == variant)
    reasons = []
    for metric, value in row.items():
        match = STALL.match(metric)
        if match and match[1] != "selected" and value not in ("", "n/a"):
            reasons.append((float(value.replace(",", "")), match[1].replace("_", " ")))
    reasons.sort(reverse=True)
    return ", ".join(f"{name} {value:.2f}" for value, name in reasons[:TOP_STALLS]) or "-"


def markdown(data_dir: pathlib.Path, record_name: str, device: str) -> str:
    """The handout's table of the record, or until it exists a line saying that it is not measured yet."""
    path = data_dir / f"{record_name}_{device}.csv"
    if not path.exists():
        return (
            f"*Not measured yet on the {device}: no profile of the steps has been recorded "
            f"(docs/data/{record_name}_{device}.csv does not exist), so this table has no figures yet.*"
        )
    context = json.loads(path.with_suffix(".json").read_text())
    profile = Profile(path)
    rows = []
    for variant in profile.variants():
        cells = [f"`{variant}`"]
        for metric, _, fmt in COLUMNS:
            try:
                cells.append(fmt(profile.value(variant, metric)))
            except (KeyError, ValueError):
                cells.append("-")
        rows.append(cells + [stalls(profile, variant)])
    table = markdown_table(["launch"] + [c[1] for c in COLUMNS] + ["largest stalls (cycles per issue)"], rows)
    note = (
        f"_{context['device']}, {context['date'][:10]}, commit {context['git_commit'][:7]}, Nsight Compute "
        f"{context['ncu']}, one launch each at `{context['problem']}`; the command in "
        f"docs/data/{record_name}_{device}.json._"
    )
    missing = context.get("missing", {})
    if missing:
        note += "\n\nNot profiled: " + "; ".join(f"`{k}` ({v})" for k, v in missing.items()) + "."
    # A launch the list names that the record neither holds nor missed: a step added after the record.
    later = [label(r, m) for r, m in LAUNCHES if label(r, m) not in profile.variants() and label(r, m) not in missing]
    if later:
        note += (
            "\n\nNot in this record (added to the steps after it was taken): "
            + ", ".join(f"`{name}`" for name in later)
            + "."
        )
    return table + "\n\n" + note


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m cudalabs.records.step_profiles", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("launches")
    commands.add_parser("metrics")
    make = commands.add_parser("record")
    make.add_argument("raw_dir", type=pathlib.Path)
    make.add_argument("data_dir", type=pathlib.Path)
    make.add_argument("--commit", help="the commit the profiled build was made from, where the copy had no .git")
    args = parser.parse_args(argv)
    if args.command == "launches":
        print("\n".join(f"{row} {mask}" for row, mask in LAUNCHES))
    elif args.command == "metrics":
        print(",".join(METRICS))
    else:
        try:
            path = record(args.raw_dir, args.data_dir, args.commit)
        except (OSError, ValueError, KeyError) as error:
            print(f"step_profiles: {error}", file=sys.stderr)
            return 1
        print(f"step_profiles: wrote {path} and {path.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
