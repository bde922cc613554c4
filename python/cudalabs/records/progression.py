"""Prints the progression table of a run: every lab's variants with GFLOP/s and % of cuBLAS.

Reads the Google Benchmark JSON files the lab drivers write (--results-dir), one per lab and device,
and uses each benchmark's median aggregate. Each lab's % of cuBLAS is against the cuBLAS run recorded
in the same file, so every ratio was measured side by side.

Usage: scripts/progression.py RESULTS_DIR_OR_FILES...
"""
import sys

from cudalabs.records.benchmark import Record, record_files, run_name


def main(argv):
    files = record_files(argv[1:])
    if not files:
        print("progression: no lab results found in " + " ".join(argv[1:]), file=sys.stderr)
        return 1
    rows = []
    device = None
    last_cublas = None
    for path in files:
        record = Record.load(path)
        device = device or record.context.get("device")
        cublas = {}
        entries = [(run_name(entry), entry) for entry in record.medians()]
        for name, entry in entries:
            if name.startswith("cublas/"):
                cublas[name.split("/", 1)[1]] = entry.get("gflops")
        for name, entry in entries:
            parts = name.split("/")
            if len(parts) != 3 or not parts[0].startswith("lab"):
                continue
            lab, variant, problem = parts
            if "gflops" in entry:
                reference = cublas.get(problem)
                pct = 100.0 * entry["gflops"] / reference if reference else None
                rows.append((lab, variant, problem, f"{entry['gflops']:.0f} GFLOP/s", pct))
            elif "gbytes_per_s" in entry:
                rows.append((lab, variant, problem, f"{entry['gbytes_per_s']:.0f} GB/s", None))
        if cublas:
            last_cublas = (path.name.split("_", 1)[0], cublas)
    if last_cublas:
        lab, cublas = last_cublas
        for problem, gflops in sorted(cublas.items()):
            rows.append((lab, "cublas", problem, f"{gflops:.0f} GFLOP/s", 100.0))
    print(f"\nprogression on {device or 'unknown device'} (medians; % of cuBLAS from the same run)")
    header = ("lab", "variant", "problem", "rate", "% of cuBLAS")
    table = [header] + [(r[0], r[1], r[2], r[3], "-" if r[4] is None else f"{r[4]:.1f}") for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        print("  ".join(cell.rjust(w) if j >= 3 else cell.ljust(w) for j, (cell, w) in enumerate(zip(row, widths))))
        if i == 0:
            print("-" * (sum(widths) + 2 * (len(widths) - 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
