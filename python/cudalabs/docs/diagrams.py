"""Diagrams drawn from the constants in the labs' own code (lab.h, launch.cuh, tiles.h), so that
a picture cannot drift from the kernel it explains: who computes which part of C, and which shared-memory
bank each lane of a warp touches.
"""
import pathlib
import re

import matplotlib

matplotlib.use("Agg")
# The same records draw the same bytes (the handouts' figures are committed and compared).
matplotlib.rcParams["svg.hashsalt"] = "cuda-labs"
import matplotlib.patches as patches  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from cudalabs.records import labdata  # noqa: E402
from cudalabs.records.benchmark import Record  # noqa: E402


def _constant(path, name):
    match = re.search(rf"\b{name}\s*=\s*(\d+)\s*[;,]", pathlib.Path(path).read_text())
    if not match:
        raise KeyError(f"diagrams: no constant {name} in {path}")
    return int(match.group(1))


def lab07_tile(repo, name="Tile128x256"):
    """(BM, BN, BK, WARPS_M, WARPS_N, TM, TN) of one of lab 07's tile shapes, read from tiles.h."""
    text = (pathlib.Path(repo) / "labs" / "07_wide_loads" / "tiles.h").read_text()
    match = re.search(rf"using {name}\s*=\s*TileShape<([\d,\s]+)>", text)
    if not match:
        raise KeyError(f"diagrams: no {name} in tiles.h")
    return tuple(int(v) for v in match.group(1).split(","))[:7]


def lab05_tiles(repo):
    """The (BM, BN, BK, TM, TN) of lab 05's variants, read from its launch.cuh."""
    text = (pathlib.Path(repo) / "labs" / "05_register_tiling" / "launch.cuh").read_text()
    return {
        name: tuple(int(v) for v in args.split(","))
        for name, args in re.findall(r'\{"(\w+)",[^}]*?&launch<([\d,\s]+)>', text, re.S)
    }


def _save(fig, out):
    fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)


def bank_conflicts(repo, out):
    """Lab 02: the bank each lane of a warp reads in a_tile[lane][p], without and with one float of
    padding per row (kTile from lab.h)."""
    tile = _constant(pathlib.Path(repo) / "labs" / "02_smem_tiling" / "lab.h", "kTile")
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    for ax, pad, title in (
        (axes[0], 0, f"a_tile[{tile}][{tile}]: every lane in one bank"),
        (axes[1], 1, f"a_tile[{tile}][{tile} + 1]: 32 lanes, 32 banks"),
    ):
        for lane in range(32):
            bank = (lane * (tile + pad)) % 32
            ax.add_patch(patches.Rectangle((bank, lane), 1, 1, color="#c44e52" if pad == 0 else "#55a868"))
        ax.set_xlim(0, 32)
        ax.set_ylim(32, 0)
        ax.set_xticks(range(0, 33, 8))
        ax.set_xlabel("shared-memory bank")
        ax.set_title(title, fontsize=9)
        ax.grid(True, linewidth=0.3)
    axes[0].set_ylabel("lane of the warp (p = 0)")
    fig.suptitle("Lab 02: the bank of a_tile[lane][p] for the 32 lanes of a warp", fontsize=10)
    _save(fig, out)


def thread_tiles(repo, out):
    """Lab 05: the block tile of C and one thread's tile in it, for each variant (launch.cuh)."""
    variants = lab05_tiles(repo)
    fig, axes = plt.subplots(1, len(variants), figsize=(4.5 * len(variants), 4.2))
    for ax, (name, (bm, bn, bk, tm, tn)) in zip(axes, variants.items()):
        threads_m, threads_n = bm // tm, bn // tn
        ax.add_patch(patches.Rectangle((0, 0), bn, bm, fill=False, linewidth=1.5))
        for t in range(threads_n + 1):
            ax.plot([t * tn, t * tn], [0, bm], color="#cccccc", linewidth=0.3)
        for t in range(threads_m + 1):
            ax.plot([0, bn], [t * tm, t * tm], color="#cccccc", linewidth=0.3)
        ax.add_patch(patches.Rectangle((tn, tm), tn, tm, color="#4c72b0"))
        ax.annotate(f"one thread: {tm} x {tn}", (tn * 2.5, tm * 1.5), fontsize=8, va="center")
        ax.set_xlim(0, bn)
        ax.set_ylim(bm, 0)
        ax.set_aspect("equal")
        ax.set_title(f"{name}: {bm} x {bn} block tile, {threads_m * threads_n} threads, BK = {bk}", fontsize=9)
        ax.set_xlabel("columns of C")
        ax.set_ylabel("rows of C")
    fig.suptitle("Lab 05: who computes what (from launch.cuh)", fontsize=10)
    _save(fig, out)


def warp_tiles(repo, out, name="Tile128x256"):
    """Lab 07: the block tile split among warps, and in warp 0 the 4 x 4 pieces of lane 0 spread across
    the warp tile (tiles.h): the layout that makes a warp's 128-bit shared loads conflict-free."""
    bm, bn, bk, warps_m, warps_n, tm, tn = lab07_tile(repo, name)
    wm, wn = bm // warps_m, bn // warps_n
    lanes_n = wn // tn
    lanes_m = 32 // lanes_n
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4), gridspec_kw={"width_ratios": [bn / bm, wn / wm]})
    for w in range(warps_m * warps_n):
        r, c = divmod(w, warps_n)
        left.add_patch(
            patches.Rectangle((c * wn, r * wm), wn, wm, fill=True, alpha=0.25 if w else 0.6, color=plt.cm.tab10(w % 10))
        )
        left.annotate(f"warp {w}", (c * wn + wn / 2, r * wm + wm / 2), ha="center", va="center", fontsize=8)
    left.set_xlim(0, bn)
    left.set_ylim(bm, 0)
    left.set_aspect("equal")
    left.set_title(f"{name}: {bm} x {bn} block tile, {warps_m} x {warps_n} warps of {wm} x {wn}", fontsize=9)
    for lane in range(32):
        lane_m, lane_n = divmod(lane, lanes_n)
        for g in range(tm // 4):
            for h in range(tn // 4):
                row, col = lane_m * 4 + g * lanes_m * 4, lane_n * 4 + h * lanes_n * 4
                right.add_patch(
                    patches.Rectangle(
                        (col, row), 4, 4, fill=lane == 0, color="#c44e52" if lane == 0 else "#dddddd", linewidth=0.3
                    )
                )
    right.set_xlim(0, wn)
    right.set_ylim(wm, 0)
    right.set_aspect("equal")
    right.set_title(
        f"warp 0: lane 0's {tm} x {tn} outputs in 4 x 4 pieces (red), {lanes_m} x {lanes_n} lanes", fontsize=9
    )
    fig.suptitle(f"Lab 07: block, warp and lane tiles (from tiles.h), BK = {bk}", fontsize=10)
    _save(fig, out)


def subpixel_phases(out):
    """Lab 09: a stride-2, 5 x 5 transposed convolution seen as four small convolutions, one per output
    phase (y mod 2, x mod 2): the taps each phase uses (subpixel.h: parity 0 takes the odd filter
    rows, two taps; parity 1 the even ones, three)."""
    fig, axes = plt.subplots(1, 4, figsize=(11, 3.2))
    for ax, (py, px) in zip(axes, ((0, 0), (0, 1), (1, 0), (1, 1))):
        for r in range(5):
            for s in range(5):
                used = (r % 2 == (py + 1) % 2) and (s % 2 == (px + 1) % 2)
                ax.add_patch(patches.Rectangle((s, r), 1, 1, color="#4c72b0" if used else "#eeeeee", ec="white"))
        taps_r = len([r for r in range(5) if r % 2 == (py + 1) % 2])
        taps_s = len([s for s in range(5) if s % 2 == (px + 1) % 2])
        ax.set_xlim(0, 5)
        ax.set_ylim(5, 0)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(f"phase ({py}, {px}): {taps_r} x {taps_s} taps", fontsize=9)
    fig.suptitle(
        "Lab 09: the 5 x 5 filter's taps that each output phase of the stride-2 transposed convolution " "uses (blue)",
        fontsize=10,
    )
    _save(fig, out)


def tensor_core_layouts(repo, out):
    """Lab 11: where the tensor cores' operands and results live. Left: the accumulators of one mma.sync
    m16n8k16 (lane l holds rows l / 4 and l / 4 + 8, columns 2 (l % 4) and 2 (l % 4) + 1). Middle: a
    wgmma m64nN accumulator, the same pattern once per warp of the warpgroup, 16 rows each. Right: the
    128-byte swizzle of a shared tile (tiles.h: 128-byte rows of 16-byte chunks), each cell the logical
    chunk stored there, chunk c of row r at position c ^ (r % 8): the 8 rows ldmatrix or the tensor
    cores read at one logical chunk land on 8 different positions, so on all 32 banks."""
    tiles = pathlib.Path(repo) / "labs" / "11_tensor_cores" / "tiles.h"
    row_bytes = _constant(tiles, "kRowBytes")
    chunks = row_bytes // 16
    colors = plt.get_cmap("tab20")
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.8), gridspec_kw={"width_ratios": [1.0, 1.0, 1.3]})

    ax = axes[0]
    for r in range(16):
        for c in range(8):
            lane = (r % 8) * 4 + c // 2
            register = (c % 2) + 2 * (r // 8)
            ax.add_patch(patches.Rectangle((c, r), 1, 1, color=colors(lane % 20), ec="white"))
            ax.text(c + 0.5, r + 0.5, f"{lane}\nd{register}", ha="center", va="center", fontsize=5)
    ax.set_xlim(0, 8)
    ax.set_ylim(16, 0)
    ax.set_title("mma.sync m16n8k16: the 16 x 8 accumulators\n(lane, register)", fontsize=9)

    ax = axes[1]
    shades = ["#4c72b0", "#55a868", "#c44e52", "#8172b2"]
    for r in range(64):
        for c in range(16):
            ax.add_patch(
                patches.Rectangle(
                    (c, r), 1, 1, color=shades[r // 16], alpha=0.35 + 0.65 * ((c // 2 + r) % 2), ec="none"
                )
            )
    for warp in range(4):
        ax.text(
            8,
            16 * warp + 8,
            f"warp {warp}\nrows {16 * warp}-{16 * warp + 15}",
            ha="center",
            va="center",
            fontsize=8,
            color="black",
        )
    ax.set_xlim(0, 16)
    ax.set_ylim(64, 0)
    ax.set_title(
        "wgmma m64nN: the warpgroup's 64 x N accumulators\n(first 16 columns; each warp as on the left)", fontsize=9
    )

    ax = axes[2]
    for r in range(8):
        for position in range(chunks):
            logical = position ^ (r % 8)
            ax.add_patch(patches.Rectangle((position, r), 1, 1, color=colors(2 * logical % 20), ec="white"))
            ax.text(
                position + 0.5,
                r + 0.5,
                str(logical),
                ha="center",
                va="center",
                fontsize=8,
                fontweight="bold" if logical == 0 else "normal",
            )
    ax.set_xlim(0, chunks)
    ax.set_ylim(8, 0)
    ax.set_xticks([c + 0.5 for c in range(chunks)], [f"{4 * c}-{4 * c + 3}" for c in range(chunks)], fontsize=6)
    ax.set_xlabel("banks of each 16-byte position", fontsize=8)
    ax.set_title(
        f"the {row_bytes}-byte swizzle: the logical chunk in each position\n"
        "(chunk 0, bold, moves to a new position in every row)",
        fontsize=9,
    )
    for ax in axes[:2]:
        ax.set_xticks([])
        ax.set_yticks([])
    axes[2].set_yticks([r + 0.5 for r in range(8)], [f"row {r}" for r in range(8)], fontsize=7)
    for ax in (axes[0], axes[2]):
        ax.set_aspect("equal")
    fig.tight_layout()
    _save(fig, out)


def _record_context(repo, record):
    """The custom context of a results record (docs/data/RECORD_<device>.json), or {}."""
    path = pathlib.Path(repo) / "docs" / "data" / f"{record}_{labdata.DEFAULT_DEVICE}.json"
    return Record.load(path).context if path.exists() else {}


SECTORS_PER_REQUEST = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum/l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"


def coalescing(repo, out):
    """Lab 01: one warp of a kBlockX x kBlockY block (lab.h) under each mapping: the elements of C it
    computes, and the 32-byte sectors its 32 lanes touch in one load of A, one of B and the store of C
    (row-major floats of a 4096-wide matrix). The measured sectors per load request (Nsight Compute,
    docs/data/profiles/lab01_*.csv) are in each title."""
    lab = pathlib.Path(repo) / "labs" / "01_naive_gemm" / "lab.h"
    block_x, block_y = _constant(lab, "kBlockX"), _constant(lab, "kBlockY")
    width = 4096  # the profiled problem's leading dimension, in floats
    profile = labdata.LabData(pathlib.Path(repo) / "docs" / "data", "01").profile
    fig, axes = plt.subplots(2, 2, figsize=(11, 6.2), gridspec_kw={"width_ratios": [1, 2.4]})
    for row, (variant, x_walks_columns) in enumerate((("naive_strided", False), ("naive_coalesced", True))):
        ax = axes[row][0]
        rows_c, cols_c = (block_x, block_y) if not x_walks_columns else (block_y, block_x)
        for r in range(rows_c):
            for c in range(cols_c):
                warp0 = (c == 0) if not x_walks_columns else (r == 0)
                ax.add_patch(
                    patches.Rectangle((c, r), 1, 1, color="#c44e52" if warp0 else "#e8e8e8", ec="white", linewidth=0.4)
                )
        ax.set_xlim(0, cols_c)
        ax.set_ylim(rows_c, 0)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(
            f"{variant}: a {block_x} x {block_y} block's piece of C\nwarp 0 (red) = "
            + ("one column: lane l computes row l" if not x_walks_columns else "one row: lane l computes column l"),
            fontsize=8,
        )
        ax = axes[row][1]
        # Byte offsets of each lane's element, per access, for row-major matrices `width` floats wide.
        if x_walks_columns:
            accesses = {
                "load of A(row, p)": [0] * 32,
                "load of B(p, col + l)": [4 * lane for lane in range(32)],
                "store of C(row, col + l)": [4 * lane for lane in range(32)],
            }
        else:
            accesses = {
                "load of A(row + l, p)": [4 * width * lane for lane in range(32)],
                "load of B(p, col)": [0] * 32,
                "store of C(row + l, col)": [4 * width * lane for lane in range(32)],
            }
        for y, (name, offsets) in enumerate(accesses.items()):
            sectors = sorted(set(o // 32 for o in offsets))
            for lane, offset in enumerate(offsets):
                ax.add_patch(
                    patches.Rectangle(
                        (lane, y),
                        1,
                        0.8,
                        color=plt.cm.tab20(sectors.index(offset // 32) % 20),
                        ec="white",
                        linewidth=0.5,
                    )
                )
            ax.text(32.5, y + 0.4, f"{len(sectors)} sector{'s' if len(sectors) > 1 else ''}", va="center", fontsize=8)
            ax.text(-0.5, y + 0.4, name, va="center", ha="right", fontsize=8)
        ax.set_xlim(-14, 38)
        ax.set_ylim(3, -0.2)
        ax.set_xticks([0, 8, 16, 24, 31], ["lane 0", "8", "16", "24", "31"], fontsize=7)
        ax.set_yticks([])
        for side in ("left", "right", "top"):
            ax.spines[side].set_visible(False)
        measured = ""
        if profile is not None:
            try:
                sectors = profile.value(variant, SECTORS_PER_REQUEST)
                measured = f" - measured: {sectors:.1f} sectors per load request (ncu)"
            except KeyError:
                pass
        ax.set_title(
            f"{variant}: the 32-byte sector of each lane's address (one colour per sector){measured}", fontsize=8
        )
    fig.suptitle("Lab 01: who computes what, and how many 32-byte sectors one warp instruction needs", fontsize=10)
    fig.tight_layout()
    _save(fig, out)


def pipeline(repo, out):
    """Lab 06: the tile loop over time, without and with overlap: lab 05's two barriers a tile, lab 06's
    register prefetch into the other of two shared buffers (one barrier), and cp.async with
    kAsyncStages stages (lab.h). Durations are drawn to illustrate the order, not measured."""
    stages = _constant(pathlib.Path(repo) / "labs" / "06_double_buffering" / "lab.h", "kAsyncStages")
    load, store, compute, tiles = 3.0, 0.6, 4.0, 6
    fig, axes = plt.subplots(3, 1, figsize=(11, 7.0), sharex=True, gridspec_kw={"height_ratios": [3, 3, stages + 1]})
    colors = {"load": "#64b5cd", "store": "#8172b3", "compute": "#55a868", "barrier": "black"}

    def bar(ax, row, start, length, kind, tile):
        ax.barh(row, length, left=start, height=0.6, color=colors[kind], edgecolor="white")
        if length >= 0.9:
            ax.text(start + length / 2, row, f"{tile}", ha="center", va="center", fontsize=7, color="white")

    # Lab 05: load tile t, barrier, compute, barrier.
    ax, t0 = axes[0], 0.0
    for t in range(tiles):
        bar(ax, 0, t0, load, "load", t)
        bar(ax, 1, t0 + load, store, "store", t)
        ax.axvline(t0 + load + store, color="black", linewidth=0.6)
        bar(ax, 2, t0 + load + store, compute, "compute", t)
        t0 += load + store + compute
        ax.axvline(t0, color="black", linewidth=0.6)
    ax.set_title(
        "lab 05 rt_2d: load tile t, barrier, compute it, barrier: the loads wait for the arithmetic and "
        "the arithmetic for the loads",
        fontsize=8,
    )
    # prefetch_regs: global loads of t + 1 in flight during the FFMAs of t; store to the other buffer; one barrier.
    ax = axes[1]
    bar(ax, 0, 0, load, "load", 0)
    bar(ax, 1, load, store, "store", 0)
    t0 = load + store
    ax.axvline(t0, color="black", linewidth=0.6)
    for t in range(tiles):
        if t + 1 < tiles:
            bar(ax, 0, t0, load, "load", t + 1)
        bar(ax, 2, t0, compute, "compute", t)
        if t + 1 < tiles:
            bar(ax, 1, t0 + compute, store, "store", t + 1)
        t0 += compute + (store if t + 1 < tiles else 0)
        ax.axvline(t0, color="black", linewidth=0.6)
    ax.set_title(
        "prefetch_regs: tile t + 1's loads fly into registers while tile t is computed, then go to the "
        "other shared buffer: one barrier a tile",
        fontsize=8,
    )
    # cp_async: `stages` buffers, stages - 1 tiles in flight while one is computed; a row per stage.
    ax = axes[2]
    for t in range(min(stages - 1, tiles)):
        bar(ax, t % stages, t * 0.5, load, "load", t)
    t0 = load + 0.5 * (stages - 2)
    ax.axvline(t0, color="black", linewidth=0.6)
    for t in range(tiles):
        nxt = t + stages - 1
        if nxt < tiles:
            bar(ax, nxt % stages, t0, load, "load", nxt)
        bar(ax, stages, t0, compute, "compute", t)
        t0 += compute
        ax.axvline(t0, color="black", linewidth=0.6)
    ax.set_title(
        f"cp_async, {stages} stages: {stages - 1} tiles copy straight into shared memory while one is "
        "computed (no registers, no stores)",
        fontsize=8,
    )
    for ax in axes[:2]:
        ax.set_yticks([0, 1, 2], ["global loads", "stores to shared", "FFMAs"], fontsize=8)
    axes[2].set_yticks(range(stages + 1), [f"cp.async, stage {s}" for s in range(stages)] + ["FFMAs"], fontsize=8)
    for ax in axes:
        ax.invert_yaxis()
        ax.set_xlim(0, (load + store + compute) * tiles + 1)
    axes[2].set_xlabel("time, drawn to show the order (a black line: a barrier; the number: the tile)", fontsize=8)
    handles = [patches.Patch(color=c, label=n) for n, c in colors.items() if n != "barrier"]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=8, frameon=False, bbox_to_anchor=(0.5, -0.02))
    fig.suptitle("Lab 06: the tile loop over time, before and after double buffering", fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    _save(fig, out)


WAVES_SHAPE = (1024, 1024, 65536)  # a shape of the sweep with too few tiles for the SMs (lab 07's handout)


def waves(repo, out, tile="Tile256x128"):
    """Lab 07: how the work of one GEMM lands on the SMs over time, for a shape with fewer tiles than SMs:
    whole tiles (one wave, most SMs idle), split-K (each tile's K in s slices, then a sum), and stream-K
    (every SM the same share of all tiles' K steps, a tile's pieces on neighbouring SMs). The tile is
    tiles.h's; the SM count is the lab 07 record's (docs/data/results/lab07_*.json)."""
    bm, bn, bk = lab07_tile(repo, tile)[:3]
    sms = int(_record_context(repo, "results/lab07").get("sm_count", 132))
    m, n, k = WAVES_SHAPE
    tiles = -(-m // bm) * -(-n // bn)
    steps = k // bk
    split = max(1, sms // tiles)
    share = -(-tiles * steps // sms)
    fig, axes = plt.subplots(1, 3, figsize=(12, 5.4), sharey=True)
    color = lambda t: plt.cm.tab20(t % 20)  # noqa: E731

    ax = axes[0]
    for t in range(tiles):
        ax.barh(t, steps, left=0, height=1.0, color=color(t), edgecolor="none")
    ax.set_title(
        f"whole tiles: {tiles} blocks, one wave;\n{sms - tiles} of {sms} SMs idle, " f"{steps} steps of K each",
        fontsize=8,
    )
    ax = axes[1]
    for t in range(tiles):
        for s in range(split):
            ax.barh(t * split + s, steps / split, left=0, height=1.0, color=color(t), edgecolor="none")
        ax.barh(t * split, steps / split * 0.08, left=steps / split, height=1.0, color="black")
    ax.set_title(
        f"split-K by {split}: {tiles * split} blocks of {steps // split} steps,\n"
        "then each tile's slices summed (black)",
        fontsize=8,
    )
    ax = axes[2]
    for sm in range(sms):
        begin, end = sm * share, min((sm + 1) * share, tiles * steps)
        position = begin
        while position < end:
            t = position // steps
            piece_end = min(end, (t + 1) * steps)
            ax.barh(
                sm,
                piece_end - position,
                left=position - begin,
                height=1.0,
                color=color(t),
                edgecolor="white",
                linewidth=0.2,
            )
            position = piece_end
    ax.set_title(
        f"stream-K: every SM {share} steps of the {tiles * steps:,} in all,\n"
        "a tile cut where one SM's share ends (its pieces summed)",
        fontsize=8,
    )
    for ax in axes:
        ax.set_xlim(0, steps * 1.05)
        ax.set_xlabel("time in steps of K (BK = %d)" % bk, fontsize=8)
        ax.axvline(share, color="grey", linestyle=":", linewidth=0.8)
    axes[0].set_ylim(sms, 0)
    axes[0].set_ylabel(f"SM (the {sms} of the recorded GPU)", fontsize=8)
    fig.suptitle(
        f"Lab 07: {m} x {n} x {k} in {bm} x {bn} tiles on {sms} SMs: one colour per tile of C; "
        "the dotted line is stream-K's finish",
        fontsize=10,
    )
    fig.tight_layout()
    _save(fig, out)


MPI_EXAMPLE = (5248, 2, 2)  # images, nodes, ranks per node: [DCGAN-SHPC]'s run size on two nodes


def mpi_flow(repo, out):
    """Lab 10: the data flow of the MPI program (mpi_main.cpp) on two nodes of two ranks: rank 0 reads or
    draws the latents and scatters each rank its gpu_share (MPI_Scatterv); every rank runs lab 09's
    pipeline on its GPU; the ranks of rank 0's node write their images straight into rank 0's node's
    shared window (MPI_Win_allocate_shared), the others send theirs by MPI_Igatherv as each batch lands;
    a checkpoint (MPI_Allreduce) closes each phase; rank 0 writes the output. Shares by lab.h's rule."""
    num, nodes, per_node = MPI_EXAMPLE
    ranks = nodes * per_node
    shares = []
    for r in range(ranks):  # gpu_share (lab.h): the first num % ranks parts get one image more
        count = num // ranks + (1 if r < num % ranks else 0)
        first = sum(s[1] for s in shares)
        shares.append((first, count))
    fig, ax = plt.subplots(figsize=(12, 6.2))
    ax.set_xlim(0, 12)
    ax.set_ylim(0, 7.4)
    ax.axis("off")

    def box(x, y, w, h, text, color, size=8, weight="normal"):
        ax.add_patch(patches.FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.04", fc=color, ec="#555555"))
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size, fontweight=weight)

    def arrow(x0, y0, x1, y1, text="", color="#333333", style="-|>", dashed=False):
        ax.annotate(
            "",
            (x1, y1),
            (x0, y0),
            arrowprops=dict(arrowstyle=style, color=color, lw=1.3, linestyle="--" if dashed else "-"),
        )
        if text:
            ax.text((x0 + x1) / 2, (y0 + y1) / 2 + 0.12, text, ha="center", fontsize=7, color=color)

    for node in range(nodes):
        x0 = 0.3 + node * 6.0
        ax.add_patch(patches.Rectangle((x0, 0.3), 5.5, 5.4, fill=False, ec="#999999", linestyle="--"))
        ax.text(x0 + 0.1, 5.5, f"node {node}", fontsize=9, color="#555555")
        for local in range(per_node):
            r = node * per_node + local
            x = x0 + 0.3 + local * 2.6
            first, count = shares[r]
            box(x, 3.6, 2.2, 1.2, f"rank {r}\nimages {first}..{first + count - 1}\n({count})", "#eef3fb", 8, "bold")
            box(x, 1.9, 2.2, 1.0, f"GPU {local}\nlab 09's pipeline", "#e6f4ea", 8)
            arrow(x + 1.1, 3.6, x + 1.1, 2.9, "its latents")
    box(
        0.6,
        0.5,
        4.9,
        0.9,
        "rank 0's node: one shared window (MPI_Win_allocate_shared)\nthe images of the whole run",
        "#fdf1e6",
        8,
    )
    for local in range(per_node):
        x = 0.6 + local * 2.6 + 1.1
        arrow(x, 1.9, x, 1.4, "", color="#dd8452")
    ax.text(
        2.95, 1.62, "each batch copied straight into its place: no byte sent", ha="center", fontsize=7, color="#dd8452"
    )
    for local in range(per_node):
        x = 6.6 + local * 2.6 + 1.1
        arrow(x, 1.9, 5.5, 0.95, "", color="#c44e52", dashed=True)
    ax.text(
        8.3,
        1.0,
        "MPI_Igatherv to rank 0, batch by batch,\nwhile the GPUs compute the next",
        ha="center",
        fontsize=7,
        color="#c44e52",
    )
    box(0.6, 6.3, 3.0, 0.8, "rank 0 reads or draws\nthe latent vectors", "#eeeeee", 8)
    for r in range(ranks):
        x = 0.3 + (r // per_node) * 6.0 + 0.3 + (r % per_node) * 2.6 + 1.1
        arrow(2.1, 6.3, x, 4.8, "", color="#4c72b0")
    ax.text(5.6, 6.35, "MPI_Scatterv: each rank its share of the latent vectors", fontsize=7, color="#4c72b0")
    box(8.4, 6.3, 3.3, 0.8, "each phase ends at a checkpoint\n(MPI_Allreduce of a status)", "#f4f4f4", 8)
    ax.set_title(
        f"Lab 10: the MPI program's data flow, {num} images on {nodes} nodes of {per_node} ranks (one GPU "
        "each; shares by gpu_share); rank 0 writes the output from the window",
        fontsize=10,
    )
    _save(fig, out)


def warpgroups(repo, out):
    """Lab 11: the warp-specialized kernel of step 6 (tiles.h's SpecializedTile): one producer warpgroup
    brings each stage's A and B with TMA into a ring of kStages stages, kConsumers consumer warpgroups
    (64 rows of the tile each) run wgmma on a full stage and hand it back; full and empty mbarriers
    say which. Left: who owns what of the tile; right: the first steps over time (order, not
    measured durations)."""
    tiles_path = pathlib.Path(repo) / "labs" / "11_tensor_cores" / "tiles.h"
    text = tiles_path.read_text()

    def value(struct, name):
        body = text[text.index(f"struct {struct}") :]
        match = re.search(rf"\b{name}\s*=\s*(\d+)", body[: body.index("};")])
        if not match:
            raise KeyError(f"diagrams: no {name} in {struct} (tiles.h)")
        return int(match.group(1))

    # The variant warp_specialized: the template's default rows (128), a consumer each 64 of them.
    default_rows = re.search(r"template <int kWidth, int kRows = (\d+)>\s*struct SpecializedTile", text)
    if not default_rows:
        raise KeyError("diagrams: no default kRows of SpecializedTile (tiles.h)")
    bm = int(default_rows.group(1))
    stages, consumers = _constant(tiles_path, "kSpecializedStages"), bm // 64
    bk = value("SwizzledTile", "BK")
    width = 256  # the variant warp_specialized (warp_specialized_128: 128)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12.5, 4.8), gridspec_kw={"width_ratios": [1, 2.4]})
    rows = bm // consumers
    for c in range(consumers):
        left.add_patch(patches.Rectangle((0, c * rows), width, rows, color=plt.cm.tab10(c + 1), alpha=0.6))
        left.text(
            width / 2,
            c * rows + rows / 2,
            f"consumer warpgroup {c}\n{rows} x {width} accumulators\n" "(wgmma m64n256k16)",
            ha="center",
            va="center",
            fontsize=8,
        )
    left.set_xlim(0, width)
    left.set_ylim(bm, 0)
    left.set_aspect("equal")
    left.set_title(f"one {bm} x {width} tile of C: rows split among {consumers} consumers", fontsize=9)
    left.set_xlabel("columns of C")
    left.set_ylabel("rows of C")
    steps = stages + 4
    produce, consume = 1.0, 2.0
    lanes = ["producer (TMA)"] + [f"consumer {c} (wgmma)" for c in range(consumers)]
    ready = []
    for s in range(steps):
        # The producer may refill a stage once every consumer has released it (the empty barrier).
        free = 0.0 if s < stages else ready[s - stages][1]
        start = max(s * produce if s < stages else 0.0, free, (ready[-1][0] if ready else 0.0))
        done = start + produce
        begin = max(done, ready[-1][1] if ready else 0.0)
        ready.append((done, begin + consume))
        right.barh(0, produce, left=start, height=0.6, color=plt.cm.tab20(s % 20), edgecolor="white")
        right.text(start + produce / 2, 0, f"k{s}\ns{s % stages}", ha="center", va="center", fontsize=6)
        for c in range(consumers):
            right.barh(1 + c, consume, left=begin, height=0.6, color=plt.cm.tab20(s % 20), edgecolor="white")
            right.text(begin + consume / 2, 1 + c, f"k{s}", ha="center", va="center", fontsize=7)
    right.set_yticks(range(len(lanes)), lanes, fontsize=8)
    right.invert_yaxis()
    right.set_xlabel(
        f"time (order only): k = the step of K ({bk} deep), s = the stage of the ring of {stages}; "
        "a stage is refilled once both consumers released it",
        fontsize=8,
    )
    right.set_title(
        f"the ring of {stages} stages: the producer runs ahead until every stage is full, then "
        "refills each as the consumers hand it back",
        fontsize=9,
    )
    fig.suptitle("Lab 11 step 6: a producer warpgroup and consumer warpgroups (from tiles.h)", fontsize=10)
    fig.tight_layout()
    _save(fig, out)


def tile_loop(repo, out, keys=512):
    """Lab 13: FlashAttention's tile loop (step 5, tiles.h's MmaTile). Left: one block's queries against a
    sequence's keys, split among its warps, walking the key tiles left to right with the next tile's copy in
    flight (causal: the tiles past the diagonal are never visited). Right: what each warp does with one tile,
    and the running maximum, sum and output it carries from one tile to the next."""
    tiles = pathlib.Path(repo) / "labs" / "13_attention" / "tiles.h"
    queries, tile_keys = _constant(tiles, "kQueries"), _constant(tiles, "kKeys")
    warps, stages = _constant(tiles, "kWarps"), _constant(tiles, "kStages")
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5.4), gridspec_kw={"width_ratios": [1.25, 1]})
    block_row = 3  # the block drawn: queries 3 * kQueries ... on the causal diagonal's fourth tile
    rows = keys // queries
    for r in range(rows):
        for c in range(keys // tile_keys):
            past_diagonal = c * tile_keys > (r + 1) * queries - 1
            face = "#f2f2f2" if past_diagonal else "#e3ecf7"
            if r == block_row and not past_diagonal:
                face = "#4c72b0" if c == block_row - 1 else "#9db7de"
            left.add_patch(
                patches.Rectangle(
                    (c * tile_keys, r * queries),
                    tile_keys,
                    queries,
                    facecolor=face,
                    edgecolor="white",
                    linewidth=1.0,
                    hatch="//" if past_diagonal else None,
                )
            )
    for w in range(1, warps):
        y = block_row * queries + w * queries / warps
        left.plot([0, (block_row + 1) * tile_keys], [y, y], color="white", linewidth=0.8)
    for w in range(warps):
        left.text(
            -6, block_row * queries + (w + 0.5) * queries / warps, f"warp {w}", ha="right", va="center", fontsize=7
        )
    left.annotate(
        "",
        xy=((block_row + 1) * tile_keys - 4, block_row * queries - 10),
        xytext=(4, block_row * queries - 10),
        arrowprops={"arrowstyle": "->", "color": "#c44e52"},
    )
    left.text(
        2,
        block_row * queries - 16,
        f"the block walks its key tiles; {stages} tiles of K and V in flight",
        fontsize=8,
        color="#c44e52",
    )
    left.text(
        block_row * tile_keys + 4,
        (block_row + 1) * queries + 18,
        "dark: the tile in use\nlight: the block's other tiles\nhatched: past the causal diagonal, never visited",
        fontsize=7,
        va="top",
    )
    left.set_xlim(-60, keys)
    left.set_ylim(keys + 10, -30)
    left.set_aspect("equal")
    left.set_xticks([0, keys // 2, keys], ["key 0", f"{keys // 2}", f"{keys}"], fontsize=7)
    left.set_yticks([0, keys // 2, keys], ["query 0", f"{keys // 2}", f"{keys}"], fontsize=7)
    left.set_title(
        f"The scores S = Q K^T, {keys} queries x {keys} keys, never stored: a block owns {queries} "
        f"queries\n({warps} warps of {queries // warps}) and visits the key tiles of {tile_keys}, "
        "one after the other",
        fontsize=8,
    )
    for side in ("top", "right"):
        left.spines[side].set_visible(False)
    steps = [
        ("copy K and V tile t + 1 (cp.async)", "started before tile t is used"),
        ("S = Q K_t^T for the warp's rows", "warp_scores: mma.sync from ldmatrix"),
        ("scale_and_mask", "log2 units; -inf past the sequence or the diagonal"),
        ("online_softmax", "m' = max(m, rowmax S); l and O times exp2(m - m');\nP = exp2(S - m'); l += rowsum P"),
        ("O += P V_t", "warp_add_pv: P is the next mma's A fragment"),
    ]
    right.set_xlim(0, 10)
    right.set_ylim(len(steps) * 1.6 + 1.6, -0.4)
    right.axis("off")
    for i, (name, how) in enumerate(steps):
        y = i * 1.6
        right.add_patch(
            patches.FancyBboxPatch(
                (0.3, y), 9.2, 1.15, boxstyle="round,pad=0.05", facecolor="#eef3fb", edgecolor="#4c72b0"
            )
        )
        right.text(0.55, y + 0.38, name, fontsize=9, fontweight="bold", va="center")
        right.text(0.55, y + 0.85, how, fontsize=7, va="center")
        if i + 1 < len(steps):
            right.annotate("", xy=(4.9, y + 1.55), xytext=(4.9, y + 1.2), arrowprops={"arrowstyle": "->"})
    loop_top, loop_bottom = 0.55, (len(steps) - 1) * 1.6 + 0.55
    right.annotate(
        "",
        xy=(9.75, loop_top),
        xytext=(9.75, loop_bottom),
        arrowprops={"arrowstyle": "->", "color": "#c44e52", "connectionstyle": "bar,fraction=-0.15"},
    )
    right.text(
        9.95,
        (loop_top + loop_bottom) / 2,
        "next tile: m, l and O\nstay in registers",
        fontsize=7,
        color="#c44e52",
        rotation=90,
        va="center",
    )
    right.text(0.3, len(steps) * 1.6 + 0.5, "after the last tile: store_output writes O / l, row by row", fontsize=9)
    right.set_title("Each warp, for each key tile t", fontsize=9)
    fig.suptitle("Lab 13: FlashAttention's tile loop (step 5, flash_mma; tiles.h's MmaTile)", fontsize=10)
    fig.tight_layout()
    _save(fig, out)


def draw_all(repo, out_dir):
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    drawn = {
        "lab02_tiles.svg": bank_conflicts,
        "lab05_tiles.svg": thread_tiles,
        "lab07_tiles.svg": warp_tiles,
        "lab01_coalescing.svg": coalescing,
        "lab06_pipeline.svg": pipeline,
        "lab07_waves.svg": waves,
        "lab10_mpi_flow.svg": mpi_flow,
        "lab11_warpgroups.svg": warpgroups,
    }
    for name, function in drawn.items():
        function(repo, out / name)
    subpixel_phases(out / "lab09_taps.svg")
    tensor_core_layouts(repo, out / "lab11_layouts.svg")
    tile_loop(repo, out / "lab13_tile_loop.svg")
    return list(drawn) + ["lab09_taps.svg", "lab11_layouts.svg", "lab13_tile_loop.svg"]
