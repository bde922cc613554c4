"""Tiling diagrams drawn from the tile constants in the labs' own code (lab.h, launch.cuh, tiles.h), so that
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
    return {name: tuple(int(v) for v in args.split(","))
            for name, args in re.findall(r'\{"(\w+)",[^}]*?&launch<([\d,\s]+)>', text, re.S)}


def _save(fig, out):
    fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)


def bank_conflicts(repo, out):
    """Lab 02: the bank each lane of a warp reads in a_tile[lane][p], without and with one float of
    padding per row (kTile from lab.h)."""
    tile = _constant(pathlib.Path(repo) / "labs" / "02_smem_tiling" / "lab.h", "kTile")
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    for ax, pad, title in ((axes[0], 0, f"a_tile[{tile}][{tile}]: every lane in one bank"),
                           (axes[1], 1, f"a_tile[{tile}][{tile} + 1]: 32 lanes, 32 banks")):
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
        left.add_patch(patches.Rectangle((c * wn, r * wm), wn, wm, fill=True, alpha=0.25 if w else 0.6,
                                         color=plt.cm.tab10(w % 10)))
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
                right.add_patch(patches.Rectangle((col, row), 4, 4, fill=lane == 0, color="#c44e52" if lane == 0 else
                                                  "#dddddd", linewidth=0.3))
    right.set_xlim(0, wn)
    right.set_ylim(wm, 0)
    right.set_aspect("equal")
    right.set_title(f"warp 0: lane 0's {tm} x {tn} outputs in 4 x 4 pieces (red), {lanes_m} x {lanes_n} lanes",
                    fontsize=9)
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
    fig.suptitle("Lab 09: the 5 x 5 filter's taps that each output phase of the stride-2 transposed convolution "
                 "uses (blue)", fontsize=10)
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
            ax.add_patch(patches.Rectangle((c, r), 1, 1, color=shades[r // 16], alpha=0.35 + 0.65 * ((c // 2 + r) % 2),
                                           ec="none"))
    for warp in range(4):
        ax.text(8, 16 * warp + 8, f"warp {warp}\nrows {16 * warp}-{16 * warp + 15}", ha="center", va="center",
                fontsize=8, color="black")
    ax.set_xlim(0, 16)
    ax.set_ylim(64, 0)
    ax.set_title("wgmma m64nN: the warpgroup's 64 x N accumulators\n(first 16 columns; each warp as on the left)",
                 fontsize=9)

    ax = axes[2]
    for r in range(8):
        for position in range(chunks):
            logical = position ^ (r % 8)
            ax.add_patch(patches.Rectangle((position, r), 1, 1, color=colors(2 * logical % 20), ec="white"))
            ax.text(position + 0.5, r + 0.5, str(logical), ha="center", va="center", fontsize=8,
                    fontweight="bold" if logical == 0 else "normal")
    ax.set_xlim(0, chunks)
    ax.set_ylim(8, 0)
    ax.set_xticks([c + 0.5 for c in range(chunks)], [f"{4 * c}-{4 * c + 3}" for c in range(chunks)], fontsize=6)
    ax.set_xlabel("banks of each 16-byte position", fontsize=8)
    ax.set_title(f"the {row_bytes}-byte swizzle: the logical chunk in each position\n"
                 "(chunk 0, bold, moves to a new position in every row)", fontsize=9)
    for ax in axes[:2]:
        ax.set_xticks([])
        ax.set_yticks([])
    axes[2].set_yticks([r + 0.5 for r in range(8)], [f"row {r}" for r in range(8)], fontsize=7)
    for ax in (axes[0], axes[2]):
        ax.set_aspect("equal")
    fig.tight_layout()
    _save(fig, out)


def draw_all(repo, out_dir):
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    drawn = {"lab02_tiles.svg": bank_conflicts, "lab05_tiles.svg": thread_tiles, "lab07_tiles.svg": warp_tiles}
    for name, function in drawn.items():
        function(repo, out / name)
    subpixel_phases(out / "lab09_tiles.svg")
    tensor_core_layouts(repo, out / "lab11_layouts.svg")
    return list(drawn) + ["lab09_tiles.svg", "lab11_layouts.svg"]
