"""Loading the recorded data of docs/data/ and turning it into markdown tables.

Shared by the docs generator (cudalabs.docs.generate), the plots (cudalabs.docs.plots) and
scripts/lab_tables.py, so that a number printed anywhere comes from the same file and the same code.
"""
import csv
import json
import pathlib
import re

from cudalabs.records.benchmark import Record

DEFAULT_DEVICE = "nvidia-h100-80gb-hbm3"
# The problem the progression compares the GEMM labs at.
PROBLEM = "4096x4096x4096"


def number(text):
    """A metric value as a float ("1,234.5" -> 1234.5)."""
    return float(str(text).replace(",", ""))


def _count(text):
    """'268435456' -> '268,435,456 (2^28)'; other numbers with separators."""
    value = int(text)
    power = value.bit_length() - 1
    return f"{value:,}" + (f" (2^{power})" if value == 1 << power and power >= 16 else "")


PROBLEM_TITLES = (
    (
        r"(\d+)x(\d+)x(\d+)(_.+)?",
        lambda m: ("{0}^3".format(m[1]) if m[1] == m[2] == m[3] else f"{m[1]} x {m[2]} x {m[3]}")
        + (f", layout {m[4][1:]}" if m[4] else ""),
    ),
    (r"(\d+)MiB", lambda m: f"a copy of {m[1]} MiB"),
    (r"(\d+)x(\d+)", lambda m: f"{_count(m[1])} threads x {_count(m[2])} FMAs"),
    (r"sum_n(\d+)", lambda m: f"sum of {_count(m[1])} floats"),
    (r"scan_n(\d+)", lambda m: f"inclusive scan of {_count(m[1])} floats"),
    (r"hist_(\w+?)_n(\d+)", lambda m: f"histogram of {_count(m[2])} {m[1]} bytes"),
    (r"softmax_r(\d+)c(\d+)", lambda m: f"row softmax, {_count(m[1])} rows of {_count(m[2])}"),
    (
        r"b(\d+)h(\d+)s(\d+)d(\d+)(_causal)?",
        lambda m: f"attention, batch {m[1]}, {m[2]} heads, sequence {m[3]}, head_dim {m[4]}"
        + (", causal" if m[5] else ""),
    ),
    (r"b(\d+)", lambda m: f"batch {_count(m[1])}"),
    (r"n(\d+)_b(\d+)", lambda m: f"{_count(m[1])} images in batches of {_count(m[2])}"),
    (r"n(\d+)x(\d+)g", lambda m: f"{_count(m[1])} images on {m[2]} GPU{'s' if m[2] != '1' else ''}"),
    (r"n(\d+)", lambda m: f"{_count(m[1])} images"),
    (r"case(\d)", lambda m: f"case {'I' * int(m[1])}"),
)


def problem_title(problem):
    """A problem's name in a record (sum_n268435456, b4h16s4096d128_causal) as a reader's title, with the
    name itself beside it in code: "sum of 268,435,456 (2^28) floats (`sum_n268435456`)"."""
    for pattern, title in PROBLEM_TITLES:
        match = re.fullmatch(pattern, problem)
        if match:
            return f"{title(match)} (`{problem}`)"
    return f"`{problem}`"


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


class Results:
    """One Google Benchmark JSON file written by a lab driver: median aggregates by name."""

    def __init__(self, path):
        self.path = pathlib.Path(path)
        record = Record.load(self.path)
        self.context = record.context
        self.medians = record.medians()

    def problems(self):
        seen = []
        for b in self.medians:
            problem = b["run_name"].split("/")[-1]
            if problem not in seen:
                seen.append(problem)
        return seen

    @staticmethod
    def variant_of(run_name):
        parts = run_name.split("/")
        if len(parts) == 3 and (parts[0].startswith("lab") or parts[0] == "reference"):
            return parts[1]
        return parts[0]

    def default_problem(self):
        """The problem a figure means when it names none: the progression's 4096^3 where the record has it,
        else the record's first (a run with interleaved repetitions lists its problems in no set order)."""
        problems = self.problems()
        return PROBLEM if PROBLEM in problems else problems[0]

    def entries(self, problem):
        return [b for b in self.medians if b["run_name"].split("/")[-1] == problem]

    def entry(self, variant, problem=None):
        problem = problem or self.default_problem()
        for b in self.entries(problem):
            if self.variant_of(b["run_name"]) == variant:
                return b
        raise KeyError(f"{self.path.name}: no variant {variant} at {problem}")

    # The reference a lab is measured against: cuBLAS SGEMM (labs 01-07), cuBLAS in BF16 (lab 11).
    REFERENCES = ("cublas", "cublas_bf16")

    def cublas(self, problem):
        for reference in self.REFERENCES:
            for b in self.entries(problem):
                if b["run_name"] == f"{reference}/{problem}":
                    return b
        return None

    def percent_of_cublas(self, variant, problem=None):
        """% of cuBLAS, the suite's one definition: the variant's median rate over cuBLAS's median rate in the
        same run (as the drivers print it). The records' per-repetition counter pct_cublas is another
        quantity, and no page shows it (calc refuses counter(V, pct_cublas))."""
        problem = problem or self.default_problem()
        reference = self.cublas(problem)
        return 100.0 * self.entry(variant, problem)["gflops"] / reference["gflops"]

    # The references of the labs that are not GEMMs, timed in the same process: reference/<name>/<problem>.
    COPY = "cudaMemcpy"
    LIBRARIES = (("cub_", "CUB"), ("thrust_", "Thrust"), ("cublas", "cuBLAS"), ("cudaMemcpy", "cudaMemcpy"))

    @classmethod
    def library_of(cls, name):
        """A reference's library by its variant name: cub_scan -> CUB, cublas_attention -> cuBLAS."""
        return next((library for prefix, library in cls.LIBRARIES if name.startswith(prefix)), name)

    def library_reference(self, problem):
        """What a problem that is not a GEMM is measured against: its first reference/<name>/<problem> other
        than the copy (CUB for lab 12's sum, scan and histogram; cuBLAS's unfused attention for lab 13), or
        None."""
        for b in self.entries(problem):
            parts = b["run_name"].split("/")
            if len(parts) == 3 and parts[0] == "reference" and parts[1] != self.COPY:
                return b
        return None

    def copy(self, problem):
        """cudaMemcpy of the same bytes in the same run (reference/cudaMemcpy/<problem>), or None."""
        return next((b for b in self.entries(problem) if b["run_name"] == f"reference/{self.COPY}/{problem}"), None)

    def references(self):
        """The libraries this record was timed against in the same run, in the file's order."""
        names = []
        for b in self.medians:
            parts = b["run_name"].split("/")
            if parts[0] == "reference" and len(parts) == 3:
                names.append(self.library_of(parts[1]))
            elif parts[0] in self.REFERENCES or parts[0] == "cublas_tf32":
                names.append("cuBLAS")
        return list(dict.fromkeys(names))

    def note(self):
        c = self.context
        # A run started outside the checkout names its program by a path of no use to a reader.
        command = re.sub(r"<outside>/(?:\S*/)?", "", c["command"].split(" --results-dir")[0])
        references = self.references()
        listed = ", ".join(references[:-1]) + " and " + references[-1] if len(references) > 1 else "".join(references)
        same_run = f"; {listed} in the same run" if references else ""
        return (
            f"_{c['device']}, {c['date'][:10]}, commit {c['git_commit'][:10]}, `{command}`; CUDA-event times, "
            f"median of {self.medians[0].get('repetitions', '?')} repetitions{same_run}._"
        )

    def table(self, problem):
        cublas = self.cublas(problem)
        if cublas is None:  # not a GEMM: labs 12 and 13 (a library's reference/ entry), lab 00's copy, PyTorch's
            return self.reference_table(problem)
        rows = []
        for b in self.entries(problem):
            name = self.variant_of(b["run_name"])
            if "gflops" in b:
                pct = f"{100.0 * b['gflops'] / cublas['gflops']:.1f}" if cublas else "-"
                rows.append((name, f"{b['real_time']:.3f}", f"{b['gflops']:,.0f}", pct))
            else:
                rows.append((name, f"{b['real_time']:.3f}", f"{b.get('gbytes_per_s', 0):,.0f} GB/s", "-"))
        return markdown_table(("variant", "ms (median)", "GFLOP/s", "% of cuBLAS"), rows)

    def reference_table(self, problem):
        """A problem with no cuBLAS GEMM beside it: the rate (GFLOP/s, or GB/s where the problem counts bytes)
        and, where the run timed them, its share of a library's rate (a reference/ entry: CUB for lab 12,
        cuBLAS's unfused attention for lab 13) and of a cudaMemcpy of the same bytes."""
        entries = self.entries(problem)
        rate = "gflops" if all("gflops" in b for b in entries) else "gbytes_per_s"
        reference, copy = self.library_reference(problem), self.copy(problem)
        copy = copy if rate == "gbytes_per_s" else None
        header = ["variant", "ms (median)", "GFLOP/s" if rate == "gflops" else "GB/s"]
        if reference:
            header.append(f"% of {self.library_of(self.variant_of(reference['run_name']))}")
        if copy:
            header.append("% of copy")
        rows = []
        for b in entries:
            value = b.get(rate)
            cells = [self.variant_of(b["run_name"]), f"{b['real_time']:.3f}", "-" if value is None else f"{value:,.0f}"]
            for base in (reference, copy):
                if base:
                    cells.append("-" if value is None else f"{100.0 * value / base[rate]:.1f}")
            rows.append(cells)
        return markdown_table(header, rows)

    def tables(self):
        parts = [f"**{problem_title(p)}**\n\n{self.table(p)}" for p in self.problems()]
        return "\n\n".join(parts) + "\n\n" + self.note()

    def compact_table(self):
        """All problems in one table: a row per variant (cuBLAS first), a column per problem, each cell
        GFLOP/s with the share of cuBLAS's rate in the same run."""
        problems = self.problems()
        variants = ["cublas"] + [
            v for v in dict.fromkeys(self.variant_of(b["run_name"]) for b in self.medians) if v not in self.REFERENCES
        ]
        header = ["variant"] + [
            p.replace("x", " x ") if p.count("x") == 2 and len(set(p.split("x"))) > 1 else p.split("x")[0] + "^3"
            for p in problems
        ]
        rows = []
        for variant in variants:
            cells = [variant]
            for problem in problems:
                entry = (
                    self.cublas(problem)
                    if variant == "cublas"
                    else next((b for b in self.entries(problem) if self.variant_of(b["run_name"]) == variant), None)
                )
                reference = self.cublas(problem)
                if entry is None or "gflops" not in entry:
                    cells.append("-")
                elif variant == "cublas" or not reference:
                    cells.append(f"{entry['gflops']:,.0f}")
                else:
                    cells.append(f"{entry['gflops']:,.0f} ({100.0 * entry['gflops'] / reference['gflops']:.0f} %)")
            rows.append(cells)
        return (
            markdown_table(header, rows)
            + "\n\nGFLOP/s, and in brackets the share of cuBLAS's rate in the same run. "
            + self.note()
        )


class Profile:
    """One Nsight Compute raw-page CSV written by scripts/profile: one row per variant."""

    def __init__(self, path):
        self.path = pathlib.Path(path)
        rows = list(csv.reader(self.path.open()))
        self.header = rows[0]
        self.rows = []
        for row in rows[2:]:
            if len(row) > len(self.header):  # NVTX-filtered rows carry extra columns after the host name
                row = row[:5] + row[5 + len(row) - len(self.header) :]
            values = dict(zip(self.header, row))
            if values["variant"] == "roofline":  # lab 00 profiles every launch of its checks
                kernel = "copy" if "copy_kernel" in values.get("Kernel Name", "") else "fma"
                values["variant"] = f"{kernel} grid {values.get('Grid Size', '?').strip('()').split(',')[0]}"
            self.rows.append(values)

    def variants(self):
        return [r["variant"] for r in self.rows]

    def value(self, variant, metric):
        for r in self.rows:
            if r["variant"] == variant:
                if "/" in metric:
                    a, b = metric.split("/")
                    return number(r[a]) / number(r[b])
                return number(r[metric])
        raise KeyError(f"{self.path.name}: no variant {variant}")

    def same_kernel_as(self, variant):
        """The first other variant whose profiled kernel is the one `variant` launched (a dispatcher such as
        `best` names no kernel of its own)."""
        kernel = next((r.get("Kernel Name") for r in self.rows if r["variant"] == variant), None)
        if not kernel:
            raise KeyError(f"{self.path.name}: no kernel name for {variant}")
        for r in self.rows:
            if r["variant"] not in (variant, "cublas") and r.get("Kernel Name") == kernel:
                return r["variant"]
        raise KeyError(f"{self.path.name}: no other variant runs {variant}'s kernel")

    def table(self, columns, variants=None):
        rows = []
        for r in self.rows:
            if variants and r["variant"] not in variants:
                continue
            cells = [r["variant"]]
            for metric, _, fmt in columns:
                try:
                    cells.append(fmt(self.value(r["variant"], metric)))
                except (KeyError, ValueError, ZeroDivisionError):
                    cells.append("-")
            rows.append(cells)
        return markdown_table(["variant"] + [c[1] for c in columns], rows)


def pct(v):
    return f"{v:.1f}"


def ratio(v):
    return f"{v:.2f}"


def count(v):
    return f"{v:,.0f}"


# The Nsight Compute sections the walkthroughs show, as (metric, header, format) columns.
SECTIONS = {
    "sol": [
        ("gpu__time_duration.sum", "duration (ms)", lambda v: f"{v / 1e6:.2f}"),
        ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "compute (SM) %", pct),
        ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory %", pct),
        ("l1tex__throughput.avg.pct_of_peak_sustained_active", "L1/TEX %", pct),
        ("lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 %", pct),
        ("dram__cycles_active.avg.pct_of_peak_sustained_elapsed", "DRAM %", pct),
    ],
    "occupancy": [
        ("launch__registers_per_thread", "registers", count),
        ("launch__shared_mem_per_block", "shared B/block", count),
        ("launch__occupancy_limit_registers", "limit regs", count),
        ("launch__occupancy_limit_shared_mem", "limit smem", count),
        ("launch__occupancy_limit_warps", "limit warps", count),
        ("launch__occupancy_limit_blocks", "limit SM", count),
        ("sm__maximum_warps_per_active_cycle_pct", "theoretical %", pct),
        ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved %", pct),
    ],
    "memory": [
        ("dram__bytes_read.sum", "DRAM read (GB)", lambda v: f"{v / 1e9:.2f}"),
        ("dram__bytes_write.sum", "DRAM write (GB)", lambda v: f"{v / 1e9:.2f}"),
        (
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum/l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
            "sectors per load request",
            lambda v: f"{v:.1f}",
        ),
        ("l1tex__t_sector_hit_rate.pct", "L1 hit %", pct),
        ("lts__t_sector_hit_rate.pct", "L2 hit %", pct),
    ],
    "stalls": [
        ("smsp__average_warp_latency_per_inst_issued.ratio", "cycles per issue", ratio),
        ("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", "long scoreboard", ratio),
        ("smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", "short scoreboard", ratio),
        ("smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio", "MIO throttle", ratio),
        ("smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio", "LG throttle", ratio),
        ("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "barrier", ratio),
        ("smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", "wait", ratio),
        ("smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio", "dispatch", ratio),
        ("smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio", "not selected", ratio),
    ],
    "banks": [
        ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared load conflicts", count),
        ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared store conflicts", count),
        ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared load wavefronts", count),
    ],
    "issue": [
        ("sm__issue_active.avg.pct_of_peak_sustained_elapsed", "issue slots used %", pct),
        ("sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", "FMA pipe %", pct),
        ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "thread FFMAs", count),
    ],
}


class Trace:
    """A Chrome trace written by --timeline (docs/data/timelines/NAME): its spans, in microseconds."""

    def __init__(self, data_dir, name):
        path = pathlib.Path(data_dir) / "timelines" / name
        if not path.exists():
            raise KeyError(f"no timeline {path}")
        self.events = json.loads(path.read_text())["traceEvents"]
        self.spans = [e for e in self.events if e["ph"] == "X"]
        if not self.spans:
            raise KeyError(f"timeline {path} has no spans")
        self.origin = min(e["ts"] for e in self.spans)
        metadata = [e for e in self.events if e["ph"] == "M"]
        # Trace process id -> name ("GPU 0 worker"), (process, thread) -> track name ("compute stream").
        self.processes = {e["pid"]: e["args"]["name"] for e in metadata if e["name"] == "process_name"}
        self.threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in metadata if e["name"] == "thread_name"}

    def kernels_ms(self, worker):
        """The kernels' time of one worker (its trace process), added up."""
        return sum(e["dur"] for e in self.spans if e["pid"] == worker and e["cat"] == "kernel") / 1000

    def end_ms(self):
        """From the first span's start to the last span's end."""
        return (max(e["ts"] + e["dur"] for e in self.spans) - self.origin) / 1000


class LabData:
    """Everything recorded for one lab on one device."""

    def __init__(self, data_dir, lab, device=DEFAULT_DEVICE):
        data = pathlib.Path(data_dir)
        self.lab = lab
        self.device = device
        self.results_path = data / "results" / f"lab{lab}_{device}.json"
        self.sweep_path = data / "results" / f"lab{lab}_sweep_{device}.json"
        self.profile_path = data / "profiles" / f"lab{lab}_{device}.csv"
        self.results = Results(self.results_path) if self.results_path.exists() else None
        self.sweep = Results(self.sweep_path) if self.sweep_path.exists() else None
        self.profile = Profile(self.profile_path) if self.profile_path.exists() else None


def variant_order(data_dir, lab):
    """A lab's variants in teaching order, as its launch.cuh lists them ({"name", ...} entries); [] if none."""
    import re

    repo = pathlib.Path(data_dir).resolve().parent.parent
    folders = sorted((repo / "labs").glob(f"{lab}_*"))
    if not folders or not (folders[0] / "launch.cuh").exists():
        return []
    return re.findall(r'^\s*\{"(\w+)",', (folders[0] / "launch.cuh").read_text(), re.M)


def in_teaching_order(entries, order, name_of):
    """`entries` sorted by `order` (names not in it keep their place after the listed ones)."""
    rank = {name: i for i, name in enumerate(order)}
    return sorted(entries, key=lambda e: rank.get(name_of(e), len(rank)))


def tensor_ceiling(data_dir, device, precision="bf16"):
    """Lab 11's measured tensor-core ceiling (lab11_ceiling's wgmma row of `precision`, "bf16" or "tf32",
    docs/data/logs/), GFLOP/s, or None."""
    import re

    path = pathlib.Path(data_dir) / "logs" / f"lab11_ceiling_{device}.txt"
    if not path.exists():
        return None
    row = r"^wgmma \S+\s+" if precision == "bf16" else r"^wgmma \S+ \(TF32\)\s+"
    match = re.search(row + r"([\d.]+)\s+PASS", path.read_text(), re.M)
    return float(match.group(1)) * 1e3 if match else None


def coarsen_kgp_tables(data_dir):
    """[COARSEN-KGP]'s Tables 3.1 and 3.2 (docs/data/sources/coarsen-kgp_tables.json): case -> rows of dicts."""
    data = json.loads((pathlib.Path(data_dir) / "sources" / "coarsen-kgp_tables.json").read_text())
    return {case: [dict(zip(data["columns"], row)) for row in data[case]] for case in ("case1", "case2")}


def coarsening_rows(lab_data, problem):
    """Lab 08 on one problem, per factor: timing counters from the results, occupancy and SM activity
    from the profile (row 'coarsen<F>/<problem>'), speedup over factor 1."""
    entries = [b for b in lab_data.results.entries(problem) if b["run_name"].startswith("lab08/")]
    base = next(b["real_time"] for b in entries if lab_data.results.variant_of(b["run_name"]) == "coarsen1")
    rows = []
    for b in entries:
        variant = lab_data.results.variant_of(b["run_name"])
        row = {
            "factor": int(variant.replace("coarsen", "")),
            "block": int(b["block"]),
            "registers": int(b["registers"]),
            "theoretical": b["occupancy"],
            "ms": b["real_time"],
            "speedup": base / b["real_time"],
            "gflops": b["gflops"],
            "spill": int(b.get("spill_bytes", 0)),
            "achieved": None,
            "sm_active": None,
        }
        if lab_data.profile:
            label = f"{variant}/{problem}"
            row["achieved"] = lab_data.profile.value(label, "sm__warps_active.avg.pct_of_peak_sustained_active")
            row["sm_active"] = 100.0 * lab_data.profile.value(label, "sm__cycles_active.avg/sm__cycles_elapsed.avg")
        rows.append(row)
    return rows


def coarsening_table(lab_data, data_dir, problem):
    """Our H100 row next to the thesis's row for every factor (ours / [COARSEN-KGP])."""
    seed = {r["factor"]: r for r in coarsen_kgp_tables(data_dir)[problem]}
    seed_base = seed[1]["time_ms"]
    rows = []
    for r in coarsening_rows(lab_data, problem):
        s = seed[r["factor"]]
        achieved = f"{r['achieved']:.1f}" if r["achieved"] is not None else "-"
        active = f"{r['sm_active']:.1f}" if r["sm_active"] is not None else "-"
        rows.append(
            (
                r["factor"],
                f"{r['block']} / {s['block']}",
                f"{r['registers']} / {s['registers']}",
                f"{r['theoretical']:.1f} / {s['theoretical_occupancy_pct']:.1f}",
                f"{achieved} / {s['achieved_occupancy_pct']:.1f}",
                f"{active} / {s['sm_utilization_pct']:.1f}",
                f"{r['ms']:.3f} / {s['time_ms']:.2f}",
                f"{r['speedup']:.2f} / {seed_base / s['time_ms']:.2f}",
                f"{r['gflops']:,.0f}",
            )
        )
    return markdown_table(
        (
            "factor",
            "block",
            "registers",
            "theoretical occ. %",
            "achieved occ. %",
            "SM active % / SM util. %",
            "ms",
            "speedup over 1",
            "GFLOP/s (H100)",
        ),
        rows,
    )


def ceilings(data_dir, device):
    """The measured FP32 and bandwidth ceilings from lab 00's results, or None."""
    lab00 = LabData(data_dir, "00", device).results
    if lab00 is None:
        return None
    fma = bandwidth = None
    for b in lab00.medians:
        if b["run_name"].startswith("lab00/fma/"):
            fma = b["gflops"]
        if b["run_name"].startswith(("lab00/copy/", "reference/cudaMemcpy/")):
            bandwidth = max(bandwidth or 0.0, b["gbytes_per_s"])
    return fma, bandwidth
