"""The docs' plots, drawn at build time from docs/data/ as SVG (matplotlib, Debian's python3-matplotlib)."""
import pathlib

import matplotlib

matplotlib.use("Agg")
# The same records draw the same bytes (the handouts' figures are committed and compared).
matplotlib.rcParams["svg.hashsalt"] = "cuda-labs"
import matplotlib.patches  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from cudalabs.labs import declared_labs  # noqa: E402
from cudalabs.records import labdata, random_shapes  # noqa: E402

# The FP32 GEMM progression, as the labs declare their family (labs/NN_name/lab.json).
GEMM_LABS = [lab.number for lab in declared_labs() if lab.family == "fp32_gemm"]
PROBLEM = labdata.PROBLEM
ceilings = labdata.ceilings


def device_name(data_dir, device):
    """The device as the records name it ("NVIDIA H100 80GB HBM3"), not the file-name slug."""
    for lab in ["00"] + GEMM_LABS:
        results = labdata.LabData(data_dir, lab, device).results
        if results is not None and results.context.get("device"):
            return results.context["device"]
    return device


def _gflops_axis(axis):
    """GFLOP/s with thousands separators, the tables' unit."""
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))


def _log_axis(axis):
    """A base-10 log axis labelled at 1, 2 and 5 of every decade (with thousands separators), so that even
    an axis spanning less than a decade shows several labels."""
    axis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_locator(matplotlib.ticker.LogLocator(base=10, subs=tuple(range(1, 10))))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def _legend_above(ax, ncol=3):
    """A legend over the plot, clear of the bars and of the axis label under it."""
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.01), ncol=ncol, frameon=False)


def _ratio_bars_past_edge(ax, rows, values, right_edge, offset=0.0):
    """Writes its value just past the right edge, outside the axes, on every bar that runs past it, so that no
    bar is cut without saying how long it is (and no label is cut by the bar's height)."""
    for row, value in zip(rows, values):
        if value > right_edge:
            ax.text(
                right_edge + 0.005,
                row + offset,
                f"\u2192 {value:.2f}",
                ha="left",
                va="center",
                fontsize=7,
                clip_on=False,
            )


def _legend_below(ax, ncol=3):
    """A legend under the plot, where it covers no bar, line or tick label."""
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=ncol, frameon=False)


def _save(fig, path):
    fig.tight_layout()
    # bbox "tight" keeps the legends placed under the axes inside the picture.
    kind = pathlib.Path(path).suffix.lstrip(".") or "svg"
    fig.savefig(path, format=kind, bbox_inches="tight", metadata={"Date": None} if kind == "svg" else None)
    plt.close(fig)


def _bars_with_percent(ax, values, percents, color):
    """One bar per value, its percentage (of cuBLAS) written above it."""
    bars = ax.bar(range(len(values)), values, color=color)
    for bar, percent in zip(bars, percents):
        ax.annotate(
            f"{percent:.0f} %",
            (bar.get_x() + bar.get_width() / 2, bar.get_height()),
            ha="center",
            va="bottom",
            fontsize=8,
        )


def _finish_bar_chart(fig, ax, labels, title, out):
    """Labels, the GFLOP/s axis at 4096^3, the title and the legend of a bar chart, then the file."""
    ax.set_xticks(range(len(labels)), labels, fontsize=7)
    ax.set_ylabel("GFLOP/s (4096^3, median)")
    _gflops_axis(ax.yaxis)
    ax.set_title(title, fontsize=9)
    _legend_below(ax, ncol=2)
    _save(fig, out)


def _wrapped(name, width=14):
    """A long variant name broken after its first underscore, so that neighbouring tick labels do not run
    into each other."""
    return name.replace("_", "_\n", 1) if len(name) > width else name


def _sweep_problems(results):
    """The problems of a shape sweep in the sweep's own order (squares, rectangles, the DCGAN's GEMMs,
    layouts) as its command listed them, not the interleaved run order."""
    command = results.context.get("command", "").split()
    listed = command[command.index("--shapes") + 1].split(",") if "--shapes" in command else []
    measured = results.problems()
    problems = [p if "x" in p.split("_")[0] else f"{p}x{p}x{p}" for p in listed]
    return [p for p in problems if p in measured] or measured


def progression(data_dir, device, out):
    """Best variant of every GEMM lab at 4096^3, with cuBLAS and the FP32 ceiling."""
    labels, values, pcts = [], [], []
    cublas = None
    for lab in GEMM_LABS:
        results = labdata.LabData(data_dir, lab, device).results
        if results is None or PROBLEM not in results.problems():
            continue
        best = max((b for b in results.entries(PROBLEM) if b["run_name"].startswith("lab")), key=lambda b: b["gflops"])
        labels.append(f"lab {lab}\n{results.variant_of(best['run_name'])}")
        values.append(best["gflops"])
        cublas = results.cublas(PROBLEM)["gflops"]
        pcts.append(100 * best["gflops"] / results.cublas(PROBLEM)["gflops"])
    fig, ax = plt.subplots(figsize=(9, 4.2))
    _bars_with_percent(ax, values, pcts, "#4c72b0")
    if cublas:
        ax.axhline(cublas, color="#c44e52", linestyle="--", label=f"cuBLAS SGEMM ({cublas:,.0f} GFLOP/s)")
    limits = ceilings(data_dir, device)
    if limits and limits[0]:
        ax.axhline(limits[0], color="#55a868", linestyle=":", label=f"measured FP32 ceiling ({limits[0]:,.0f} GFLOP/s)")
    _finish_bar_chart(
        fig,
        ax,
        labels,
        f"The progression on the {device_name(data_dir, device)}: fastest variant "
        "per lab, % of cuBLAS above each bar",
        out,
    )


def lab_variants(data_dir, device, lab, out, ceiling=None):
    """Every variant of one lab with cuBLAS and the FP32 ceiling (or `ceiling`: (GFLOP/s, label)), each bar
    labelled with its rate; a log axis when the rates span more than a decade (lab 01's strided kernel next
    to cuBLAS)."""
    results = labdata.LabData(data_dir, lab, device).results
    problem = results.default_problem()
    entries = labdata.in_teaching_order(
        [b for b in results.entries(problem) if b["run_name"].startswith("lab")],
        labdata.variant_order(data_dir, lab),
        lambda b: results.variant_of(b["run_name"]),
    )
    rates = [b["gflops"] for b in entries]
    reference = results.cublas(problem)
    cublas = reference["gflops"]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(entries) + 1.6))
    bars = ax.barh([results.variant_of(b["run_name"]) for b in entries], rates, color="#4c72b0")
    for bar, rate in zip(bars, rates):
        ax.annotate(
            f"{rate:,.0f}",
            (bar.get_width(), bar.get_y() + bar.get_height() / 2),
            xytext=(3, 0),
            textcoords="offset points",
            va="center",
            fontsize=7,
        )
    name = "cuBLAS BF16" if reference["run_name"].startswith("cublas_bf16/") else "cuBLAS"
    ax.axvline(cublas, color="#c44e52", linestyle="--", label=f"{name} ({cublas:,.0f})")
    limits = (ceiling[0],) if ceiling else ceilings(data_dir, device)
    if limits and limits[0]:
        label = ceiling[1] if ceiling else "measured FP32 ceiling"
        ax.axvline(limits[0], color="#55a868", linestyle=":", label=f"{label} ({limits[0]:,.0f})")
    if max(rates + [cublas]) / max(min(rates), 1.0) > 10:
        ax.set_xscale("log", base=10)
        _log_axis(ax.xaxis)
    else:
        _gflops_axis(ax.xaxis)
    ax.set_xlim(right=max(rates + [cublas, limits[0] if limits and limits[0] else 0]) * 1.6)
    ax.invert_yaxis()
    ax.set_xlabel(f"GFLOP/s ({problem.replace('x', ' x ')}, median, {device_name(data_dir, device)})")
    _legend_above(ax, ncol=2)
    _save(fig, out)


def roofline(data_dir, device, out, labs=None):
    """Lab 00's two measured roofs, DRAM bandwidth (the slope) and the FP32 FFMA rate (the flat roof), each
    drawn and labelled, with every profiled GEMM kernel placed by its DRAM intensity and its rate, one
    marker per variant: the whole suite (labs=None: a colour per lab, a marker per variant, each named in
    the legend) or one lab (every variant labelled, cuBLAS beside)."""
    limits = ceilings(data_dir, device)
    if not limits or not limits[0] or not limits[1]:
        return False
    fma, bandwidth = limits
    ridge = fma / bandwidth
    single = labs is not None and len(labs) == 1
    fig, ax = plt.subplots(figsize=(8, 5.2 if single else 6.4))
    low, high = 2.0**-4, 2.0**11
    ax.plot(
        [low, ridge],
        [bandwidth * low, fma],
        color="#4c72b0",
        linewidth=2,
        label=f"DRAM roof: {bandwidth:,.0f} GB/s x intensity",
    )
    ax.plot([ridge, high], [bandwidth * ridge, bandwidth * high], color="#4c72b0", linewidth=0.8, linestyle=":")
    ax.plot([ridge, high], [fma, fma], color="#c44e52", linewidth=2, label=f"FP32 roof: {fma:,.0f} GFLOP/s (FFMA)")
    ax.plot([low, ridge], [fma, fma], color="#c44e52", linewidth=0.8, linestyle=":")
    ax.axvline(ridge, color="grey", linestyle=":", linewidth=1)
    ax.annotate(
        f"ridge {ridge:.1f} FLOP/B",
        (ridge, fma * 0.05),
        fontsize=7,
        rotation=90,
        xytext=(3, 0),
        textcoords="offset points",
    )
    markers = "osD^v<>pPX*hH8"
    colors = plt.cm.tab10
    drawn = 0
    flops = 2.0 * 4096**3
    for i, lab in enumerate(GEMM_LABS):
        if labs is not None and lab not in labs:
            continue
        data = labdata.LabData(data_dir, lab, device)
        if data.results is None or data.profile is None:
            continue
        variants = [v for v in data.profile.variants() if v != "cublas"]
        if not single:
            # The whole suite: each lab's fastest profiled variant, so that the legend names a lab per entry
            # (every variant of a lab is on the lab's own roofline).
            timed = [
                v
                for v in variants
                if any(data.results.variant_of(b["run_name"]) == v for b in data.results.entries(PROBLEM))
            ]
            variants = [max(timed, key=lambda v: data.results.entry(v, PROBLEM)["gflops"])] if timed else []
        if single or lab == "07":
            variants.append("cublas")  # cuBLAS once: beside its own lab, or beside lab 07 on the whole suite
        for j, variant in enumerate(variants):
            try:
                bytes_moved = data.profile.value(variant, "dram__bytes_read.sum") + data.profile.value(
                    variant, "dram__bytes_write.sum"
                )
                gflops = (
                    data.results.entry(variant, PROBLEM)["gflops"]
                    if variant != "cublas"
                    else data.results.cublas(PROBLEM)["gflops"]
                )
            except (KeyError, TypeError):
                continue
            if variant == "cublas":
                ax.scatter(flops / bytes_moved, gflops, marker="*", s=120, color="black", label="cuBLAS", zorder=3)
            elif single:
                ax.scatter(
                    flops / bytes_moved,
                    gflops,
                    marker=markers[j % len(markers)],
                    s=50,
                    color=colors(j % 10),
                    label=variant,
                    zorder=3,
                )
            else:
                ax.scatter(
                    flops / bytes_moved,
                    gflops,
                    marker=markers[i % len(markers)],
                    s=60,
                    color=colors(i % 10),
                    edgecolor="white",
                    linewidth=0.4,
                    label=f"lab {lab}: {variant}",
                    zorder=3,
                )
            drawn += 1
    if drawn == 0:
        plt.close(fig)
        return False
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    _log_axis(ax.yaxis)
    ax.set_xlim(low, high)
    ax.set_ylim(bandwidth * low, fma * 2.5)
    ax.set_xlabel("arithmetic intensity (FLOP per DRAM byte, Nsight Compute)")
    ax.set_ylabel("GFLOP/s (4096^3, median)")
    what = f"lab {labs[0]}" if single else "each GEMM lab's fastest variant"
    ax.set_title(f"Roofline of the {device_name(data_dir, device)}, {what}", fontsize=9)
    ax.grid(True, which="major", linewidth=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=3, frameon=False)
    _save(fig, out)
    return True


def block_size(data_dir, device, out):
    """Lab 04: GFLOP/s and occupancy against the block edge."""
    data = labdata.LabData(data_dir, "04", device)
    if data.results is None:
        return False
    entries = [b for b in data.results.entries(PROBLEM) if b["run_name"].startswith("lab04/")]
    edges = [int(data.results.variant_of(b["run_name"]).split("x")[-1]) for b in entries]
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.plot(edges, [b["gflops"] for b in entries], "o-", color="#4c72b0", label="GFLOP/s")
    ax.set_xscale("log", base=2)
    ax.set_xticks(edges, [f"{e}x{e}" for e in edges])
    ax.set_xlabel("block")
    ax.set_ylabel("GFLOP/s (4096^3)")
    _gflops_axis(ax.yaxis)
    twin = ax.twinx()
    twin.plot(edges, [b.get("occupancy", 0) for b in entries], "s--", color="#dd8452", label="theoretical occupancy %")
    if data.profile:
        achieved = []
        for b in entries:
            try:
                achieved.append(
                    data.profile.value(
                        data.results.variant_of(b["run_name"]), "sm__warps_active.avg.pct_of_peak_sustained_active"
                    )
                )
            except KeyError:
                achieved.append(float("nan"))
        twin.plot(edges, achieved, "x:", color="#55a868", label="achieved occupancy % (ncu)")
    twin.set_ylim(0, 110)
    twin.set_ylabel("occupancy %")
    handles = ax.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
    ax.legend(
        handles,
        [h.get_label() for h in handles],
        fontsize=7,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.22),
        ncol=3,
        frameon=False,
    )
    _save(fig, out)
    return True


def sweep(data_dir, device, out):
    """Labs 05-07 across problem sizes: every lab's fastest variant at each size, and cuBLAS."""
    fig, ax = plt.subplots(figsize=(7.5, 4))
    cublas_drawn = False
    for lab, style in (("05", "o-"), ("06", "s-"), ("07", "^-")):
        results = labdata.LabData(data_dir, lab, device).sweep
        if results is None:
            continue
        cubes = [p for p in results.problems() if len(set(p.split("x"))) == 1]
        sizes = [int(p.split("x")[0]) for p in cubes]
        best = [max(b["gflops"] for b in results.entries(p) if b["run_name"].startswith("lab")) for p in cubes]
        ax.plot(sizes, best, style, label=f"lab {lab}, fastest variant")
        if lab == "07" and not cublas_drawn:
            ax.plot(sizes, [results.cublas(p)["gflops"] for p in cubes], "k--", label="cuBLAS (lab 07 run)")
            cublas_drawn = True
    ax.set_xscale("log", base=2)
    ax.set_xlabel("M = N = K")
    ax.set_ylabel(f"GFLOP/s (median, {device_name(data_dir, device)})")
    _gflops_axis(ax.yaxis)
    _legend_below(ax, ncol=4)
    _save(fig, out)
    return True


SHAPES_RECORDS = {"before": "history/lab07_v4-before-shapes_shapes", "after": "results/lab07_shapes"}


def lab07_shapes(data_dir, device, out):
    """Lab 07's `best` over cuBLAS on every shape of the shape sweep, before and after the wave model and
    split-K, with the 0.95 target."""
    records = {}
    for when, record in SHAPES_RECORDS.items():
        path = pathlib.Path(data_dir) / f"{record}_{device}.json"
        if not path.exists():
            return False
        records[when] = labdata.Results(path)
    problems = _sweep_problems(records["after"])

    def ratio(results, problem):
        return results.percent_of_cublas("best", problem) / 100

    fig, ax = plt.subplots(figsize=(7.5, 0.2 * len(problems) + 1.2))
    rows = range(len(problems))
    ax.barh(
        [r + 0.2 for r in rows],
        [ratio(records["before"], p) for p in problems],
        height=0.4,
        color="0.75",
        label="before (one tile by a rule of thumb, scalar loads when any matrix is misaligned)",
    )
    after = [ratio(records["after"], p) for p in problems]
    ax.barh(
        [r - 0.2 for r in rows],
        after,
        height=0.4,
        color="tab:blue",
        label="after: the wave model, split-K, the narrow kernel, the aligned copies, the clamped edge blocks and "
        "stream-K",
    )
    right_edge = 1.15
    _ratio_bars_past_edge(ax, rows, [ratio(records["before"], p) for p in problems], right_edge, offset=0.2)
    _ratio_bars_past_edge(ax, rows, after, right_edge, offset=-0.2)
    ax.axvline(1.0, color="black", linewidth=0.8, label="1.0: as fast as cuBLAS")
    ax.axvline(
        0.95, color="tab:red", linestyle="--", linewidth=0.8, label="target: 0.95 of cuBLAS (left of it: to win)"
    )
    ax.set_yticks(list(rows))
    ax.set_yticklabels(problems, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, right_edge)
    ax.set_xlabel(f"best / cuBLAS, GFLOP/s (medians, one process, {device_name(data_dir, device)})")
    _legend_below(ax, ncol=1)
    _save(fig, out)
    return True


def tensor_cores(data_dir, device, out):
    """The main page's second chart: lab 11's tensor-core ladder at 4096^3 after lab 07's FP32 best, with
    cuBLAS in BF16 and TF32 and the measured tensor-core and FP32 ceilings."""
    lab11 = labdata.LabData(data_dir, "11", device).results
    lab07 = labdata.LabData(data_dir, "07", device).results
    if lab11 is None or lab07 is None or PROBLEM not in lab11.problems():
        return False
    fp32 = max((b for b in lab07.entries(PROBLEM) if b["run_name"].startswith("lab")), key=lambda b: b["gflops"])
    rungs = labdata.in_teaching_order(
        [
            b
            for b in lab11.entries(PROBLEM)
            if b["run_name"].startswith("lab11/") and lab11.variant_of(b["run_name"]) != "best"
        ],
        labdata.variant_order(data_dir, "11"),
        lambda b: lab11.variant_of(b["run_name"]),
    )
    bf16 = lab11.cublas(PROBLEM)["gflops"]
    labels = [f"lab 07\n{lab07.variant_of(fp32['run_name'])}\n(FP32)"] + [
        _wrapped(lab11.variant_of(b["run_name"])) for b in rungs
    ]
    values = [fp32["gflops"]] + [b["gflops"] for b in rungs]
    fig, ax = plt.subplots(figsize=(9, 4.4))
    _bars_with_percent(ax, values, [100 * value / bf16 for value in values], ["0.6"] + ["#4c72b0"] * len(rungs))
    ax.axhline(bf16, color="#c44e52", linestyle="--", label=f"cuBLAS BF16 ({bf16:,.0f} GFLOP/s)")
    tf32 = next((b["gflops"] for b in lab11.entries(PROBLEM) if b["run_name"].startswith("cublas_tf32/")), None)
    if tf32:
        ax.axhline(tf32, color="#dd8452", linestyle="-.", label=f"cuBLAS TF32 ({tf32:,.0f})")
    peak = labdata.tensor_ceiling(data_dir, device)
    if peak:
        ax.axhline(peak, color="#55a868", linestyle=":", label=f"measured tensor-core ceiling ({peak:,.0f})")
    _finish_bar_chart(
        fig,
        ax,
        labels,
        f"Lab 11 on the {device_name(data_dir, device)}: the tensor-core ladder "
        "(BF16 in, FP32 sums), % of cuBLAS BF16 above each bar",
        out,
    )
    return True


def lab11_shapes(data_dir, device, out):
    """Lab 11's `best` over cuBLAS BF16 on every shape of its sweep, with the 0.90 line."""
    path = pathlib.Path(data_dir) / "results" / f"lab11_shapes_{device}.json"
    if not path.exists():
        return False
    results = labdata.Results(path)
    problems = _sweep_problems(results)
    ratios = [results.percent_of_cublas("best", p) / 100 for p in problems]
    right_edge = 1.3
    fig, ax = plt.subplots(figsize=(7.5, 0.2 * len(problems) + 1.2))
    ax.barh(range(len(problems)), ratios, height=0.6, color="tab:blue", label="best / cuBLAS BF16")
    _ratio_bars_past_edge(ax, range(len(problems)), ratios, right_edge)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.axvline(0.9, color="tab:red", linestyle="--", linewidth=0.8, label="0.90 of cuBLAS")
    ax.set_yticks(list(range(len(problems))))
    ax.set_yticklabels(problems, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, right_edge)
    ax.set_xlabel(f"best / cuBLAS BF16, GFLOP/s (medians, one process, {device_name(data_dir, device)})")
    _legend_below(ax, ncol=2)
    _save(fig, out)
    return True


def gemm_random_shapes(data_dir, device, out, record="results/gemm_random_shapes"):
    """Lab 07's and lab 11's `best` against cuBLAS on the random shapes of scripts/gemm-random-shapes: for each
    lab the share of the shapes whose ratio cuBLAS time / best time is at most x (a step per shape), with its
    goal for the 10th percentile and the line where the share is 0.1."""
    path = pathlib.Path(data_dir) / f"{record}_{device}.json"
    if not path.exists():
        return False
    summary = random_shapes.load_summary(path)
    colors = {"07": "tab:blue", "11": "tab:orange"}
    fig, ax = plt.subplots(figsize=(7.5, 4.4))
    every = []
    for number, part in summary["labs"].items():
        ratios = sorted(part["ratios"].values())
        if not ratios:
            continue
        every += ratios
        lab = random_shapes.LABS[number]
        shares = [(i + 1) / len(ratios) for i in range(len(ratios))]
        ax.step(
            [ratios[0]] + ratios,
            [0.0] + shares,
            where="post",
            color=colors[number],
            label=f"lab {number}, {part['precision']} ({len(ratios)} shapes): geometric mean "
            f"{random_shapes.figure(part['geomean'], lab.geomean_goal)}, 10th percentile "
            f"{random_shapes.figure(part['p10'], lab.p10_goal)}",
        )
        ax.axvline(
            lab.p10_goal,
            color=colors[number],
            linestyle="--",
            linewidth=0.8,
            label=f"lab {number}'s goal for the 10th percentile: {lab.p10_goal:.2f}",
        )
    if not every:
        plt.close(fig)
        return False
    ax.axhline(0.1, color="0.4", linestyle=":", linewidth=0.8)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    low, high = min(every + [0.8]) / 1.05, max(every + [1.25]) * 1.05
    ax.set_xlim(low, high)
    ticks = [t for t in (0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0, 3.0, 4.0) if low <= t <= high]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of the shapes at or below")
    context = summary["context"]
    ax.set_title(f"{len(summary['shapes'])} random shapes, seed {context['seed']}, {context['device']}", fontsize=9)
    ax.set_xlabel("cuBLAS time / best time (medians; each lab's driver in one process, repetitions interleaved)")
    _legend_below(ax, ncol=1)
    _save(fig, out)
    return True


def coarsening(data_dir, device, out):
    """Lab 08: speedup over factor 1 and achieved occupancy against the coarsening factor, both cases,
    next to [COARSEN-KGP]'s Tables 3.1 and 3.2."""
    data = labdata.LabData(data_dir, "08", device)
    if data.results is None:
        return False
    seed = labdata.coarsen_kgp_tables(data_dir)
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    for problem, color in (("case1", "#4c72b0"), ("case2", "#dd8452")):
        rows = labdata.coarsening_rows(data, problem)
        factors = [r["factor"] for r in rows]
        name = "case I" if problem == "case1" else "case II"
        left.plot(factors, [r["speedup"] for r in rows], "o-", color=color, label=f"{name}, H100")
        base = seed[problem][0]["time_ms"]
        left.plot(
            factors,
            [base / s["time_ms"] for s in seed[problem]],
            "x--",
            color=color,
            alpha=0.6,
            label=f"{name}, [COARSEN-KGP]",
        )
        if rows[0]["achieved"] is not None:
            right.plot(factors, [r["achieved"] for r in rows], "o-", color=color, label=f"{name}, H100 (ncu)")
        right.plot(
            factors,
            [s["achieved_occupancy_pct"] for s in seed[problem]],
            "x--",
            color=color,
            alpha=0.6,
            label=f"{name}, [COARSEN-KGP]",
        )
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xticks([1, 2, 4, 8, 16, 32], ["1", "2", "4", "8", "16", "32"])
        ax.set_xlabel("coarsening factor (outputs per thread)")
        ax.legend(fontsize=7)
    left.axhline(1.0, color="grey", linewidth=0.8)
    left.set_ylabel("speedup over factor 1")
    right.set_ylabel("achieved occupancy %")
    right.set_ylim(0, 105)
    fig.tight_layout()
    _save(fig, out)
    return True


def multi_gpu_scaling(data_dir, device, out, record_device="nvidia-h200"):
    """Lab 10: images/s against the number of images, one and two GPUs, threads and MPI, from its record
    (the two-GPU machine's, whatever device the rest of the site shows)."""
    path = pathlib.Path(data_dir) / "results" / f"lab10_{record_device}.json"
    if not path.exists():
        return False
    results = labdata.Results(path)
    fig, ax = plt.subplots(figsize=(7.5, 4))
    styles = {"threads": ("#4c72b0", "o"), "mpi": ("#dd8452", "s"), "mpi-collective": ("#c44e52", "x")}
    for kind, (color, marker) in styles.items():
        for gpus, line in ((1, ":"), (2, "-")):
            if kind == "mpi-collective" and gpus == 1:
                continue
            points = sorted(
                (int(b["num"]), b["images_per_s"])
                for b in results.medians
                if b["run_name"].startswith(f"lab10/{kind}/") and int(b["gpus"]) == gpus
            )
            if points:
                ax.plot(
                    [p[0] for p in points],
                    [p[1] for p in points],
                    line,
                    marker=marker,
                    color=color,
                    label=f"{kind}, {gpus} GPU{'s' if gpus > 1 else ''}",
                )
    ax.set_xscale("log", base=10)
    ax.set_yscale("log", base=10)
    _log_axis(ax.xaxis)
    _log_axis(ax.yaxis)
    ax.set_xlabel("images generated (num_to_gen), end to end")
    ax.set_ylabel(f"images/s ({results.context.get('device', record_device)})")
    _legend_below(ax, ncol=3)
    _save(fig, out)
    return True


TIMELINES = {
    "lab09_timeline.svg": "lab09_subpixel_n5248_b1312_nvidia-h100-80gb-hbm3.json",
    "lab10_timeline.svg": "lab10_two-workers-one-gpu_n5248_b1312_nvidia-h100-80gb-hbm3.json",
    "lab10_timeline_two_gpus.svg": "lab10_two-gpus_n5248_b1312_nvidia-h200.json",
}


def timeline(data_dir, out, record):
    """A recorded trace (docs/data/timelines/, written by --timeline) as a Gantt chart: a row per track
    (GPU, stream or host thread), a bar per span, kernels coloured by layer, copies and host work apart."""
    try:
        trace = labdata.Trace(data_dir, record)
    except KeyError:
        return False
    processes, threads, spans, origin = trace.processes, trace.threads, trace.spans, trace.origin
    order = ["host", "upload stream", "compute stream", "download stream"]
    tracks = sorted(threads, key=lambda k: (k[0], order.index(threads[k]) if threads[k] in order else 9))
    colors = {
        "linear": "#8172b3",
        "tconv1": "#4c72b0",
        "tconv2": "#55a868",
        "tconv3": "#c44e52",
        "tconv4": "#ccb974",
        "upload": "#64b5cd",
        "download": "#64b5cd",
        "stage latents": "#999999",
        "copy images": "#dd8452",
    }
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(tracks) + 1.4))
    for row, key in enumerate(tracks):
        for e in spans:
            if (e["pid"], e["tid"]) != key:
                continue
            kind = e["name"].rsplit(" b", 1)[0]
            ax.barh(
                row,
                e["dur"] / 1000,
                left=(e["ts"] - origin) / 1000,
                height=0.6,
                color=colors.get(kind, "#999999"),
                edgecolor="white",
                linewidth=0.4,
            )
            if e["dur"] > 1500:  # label the wide bars with their batch
                ax.annotate(
                    e["name"].rsplit(" ", 1)[1],
                    ((e["ts"] - origin + e["dur"] / 2) / 1000, row),
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="white",
                )
    ax.set_yticks(range(len(tracks)), [f"{processes.get(k[0], k[0])}: {threads[k]}" for k in tracks], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("ms from the first span")
    handles = [matplotlib.patches.Patch(color=c, label=n) for n, c in colors.items() if n not in ("download",)]
    ax.legend(handles=handles, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=5, frameon=False)
    _save(fig, out)
    return True


def draw_all(data_dir, device, out_dir):
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    drawn = []
    progression(data_dir, device, out / "progression.svg")
    drawn.append("progression.svg")
    for lab in GEMM_LABS:
        if labdata.LabData(data_dir, lab, device).results is not None:
            lab_variants(data_dir, device, lab, out / f"lab{lab}_variants.svg")
            drawn.append(f"lab{lab}_variants.svg")
        if roofline(data_dir, device, out / f"lab{lab}_roofline.svg", labs=[lab]):
            drawn.append(f"lab{lab}_roofline.svg")
    if labdata.LabData(data_dir, "11", device).results is not None:
        peak = labdata.tensor_ceiling(data_dir, device)
        lab_variants(
            data_dir,
            device,
            "11",
            out / "lab11_variants.svg",
            ceiling=(peak, "measured tensor-core ceiling") if peak else None,
        )
        drawn.append("lab11_variants.svg")
    for name, record in TIMELINES.items():
        if timeline(data_dir, out / name, record):
            drawn.append(name)
    for name, function in (
        ("roofline.svg", roofline),
        ("lab04_block_size.svg", block_size),
        ("gemm_sweep.svg", sweep),
        ("lab08_coarsening.svg", coarsening),
        ("lab10_scaling.svg", multi_gpu_scaling),
        ("lab07_shapes.svg", lab07_shapes),
        ("progression_tensor_cores.svg", tensor_cores),
        ("lab11_shapes.svg", lab11_shapes),
    ):
        if function(data_dir, device, out / name):
            drawn.append(name)
    # Each summary of scripts/gemm-random-shapes under results/ (results/gemm_random_shapes*_<device>.json).
    for path in sorted((pathlib.Path(data_dir) / "results").glob(f"gemm_random_shapes*_{device}.json")):
        record = f"results/{path.name[: -len(f'_{device}.json')]}"
        name = f"{record.split('/')[-1]}.svg"
        if gemm_random_shapes(data_dir, device, out / name, record):
            drawn.append(name)
    return drawn
