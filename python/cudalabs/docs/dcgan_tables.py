"""Lab 09's tables from docs/data/results/lab09_*.json (scripts/lab09-bench, scripts/lab09_merge.py).

    throughput   ours per variant and PyTorch at batches 1024 and 5248, images/s and the ratio
    layers       per-layer milliseconds and GFLOP/s of each variant at one batch, each layer's floors
    end_to_end   num 5248 from host memory to host memory, ours and PyTorch's, same session

Lab 11's step 7 from docs/data/results/lab11_dcgan_*.json (scripts/lab11-dcgan-bench):

    tensor_cores        lab 11 at a precision, lab 09's FP32 sub-pixel variant and PyTorch's best
                        configuration at that precision, batches 1024 and 5248 and end to end
    tensor_core_layers  per-layer milliseconds of both generators at one batch, each layer against its floor
    pytorch_configs     every PyTorch configuration the bench tried, and the one that won

A layer's floors (layer_floors): its compute floor is its useful FLOPs (the count the record's GFLOP/s are of)
at the measured ceiling of what it multiplies in, its memory floor its minimum bytes (inputs read once,
weights once, outputs written once, at the bytes per value the code stores) at lab 00's measured copy rate;
the fraction reached is the larger floor over the measured time. The ceilings come from the suite's own
records only (floor_ceilings); a precision without one (TF32) has no compute floor.
"""
import pathlib
import re

from cudalabs.records import labdata
from cudalabs.records.benchmark import Record
from cudalabs.records.lab09_merge import pytorch_stem


def _load(data_dir, device, kind):
    name = f"lab09_{kind + '_' if kind else ''}{device}.json"
    path = pathlib.Path(data_dir) / "results" / name
    if not path.exists():
        raise KeyError(f"lab 09: no {name}")
    return Record.load(path)


def _source(data):
    c = data.context
    return (
        f"{c['device']}, {c.get('date', '')[:10]}, commit `{c.get('git_commit', '?')}`; PyTorch "
        f"{c['pytorch']['torch']} (cuDNN {c['pytorch']['cudnn']}, FP32, TF32 off) in the same session"
    )


# ---- Each layer against its floor ----

# The generator's sizes as the code has them: labs/09_dcgan/generator.cu (the linear layer: kLatent = 100 inputs,
# kLinearOut = 4 x 4 x 512 outputs) and common/reference_dcgan.cpp (generator_layer: transposed convolution L
# takes 4 << (L - 1) pixels a side and channels[L - 1], writes twice the side and channels[L]; 5 x 5 filters).
LATENT = 100
LINEAR_OUT = 4 * 4 * 512
CHANNELS = (512, 256, 128, 64, 3)
TAPS = 5

# Bytes per value of each layer's (input, weights, output), as each generator stores them. Lab 11's BF16
# generator (labs/11_tensor_cores/tensor_core_generator.cu): FP32 latents and linear weight, the linear layer's
# tail storing BF16; BF16 activations and wide filters; the RGB layer's packed filter and the images FP32.
# Its TF32 generator and lab 09's keep everything in FP32. The folded bias and batch norm (a scale and a shift
# per output column or channel; the RGB layer's bias) are FP32 everywhere.
FP32_VALUES = ((4, 4, 4),) * 5
VALUE_BYTES = {
    "dcgan_bf16": ((4, 4, 2), (2, 2, 2), (2, 2, 2), (2, 2, 2), (2, 4, 4)),
    "dcgan_tf32": FP32_VALUES,
}
# What each layer multiplies in, so which ceiling bounds its arithmetic, by the code a record measured: until
# 2026-11-30 the linear layer was lab 07's FP32 GEMM in both generators and TF32's RGB layer lab 09's FP32 kernel
# (the tensor-core record of commit d44243d); that day 407b140 put TF32's RGB layer on mma.sync and 40c45c2 the
# linear layer on TF32 tensor cores in three products (about FP32's accuracy, a third of TF32's rate). A record
# dated from COMPUTES_IN_SINCE on measured the second; lab 09's variants are FP32 throughout.
COMPUTES_IN_BEFORE = {
    "dcgan_bf16": ("fp32", "bf16", "bf16", "bf16", "bf16"),
    "dcgan_tf32": ("fp32", "tf32", "tf32", "tf32", "fp32"),
}
COMPUTES_IN_SINCE = "2026-11-30T12:26"
COMPUTES_IN = {
    "dcgan_bf16": ("tf32x3", "bf16", "bf16", "bf16", "bf16"),
    "dcgan_tf32": ("tf32x3", "tf32", "tf32", "tf32", "tf32"),
}
PRECISION_LABELS = {
    "fp32": "FP32 (FFMA)",
    "bf16": "BF16 (tensor cores)",
    "tf32": "TF32 (tensor cores)",
    "tf32x3": "FP32 as 3 TF32 products (tensor cores)",
}


def computes_in(variant, record_date):
    """What each layer of `variant` multiplies in, in the code of a record dated `record_date` (ISO 8601)."""
    table = COMPUTES_IN if record_date >= COMPUTES_IN_SINCE else COMPUTES_IN_BEFORE
    return table.get(variant, ("fp32",) * 5)


def useful_flops(layer, batch):
    """Layer 0..4's useful FLOPs for `batch` images, as lab09::layer_flops counts them (TconvShape::useful_macs:
    the multiply-adds that meet a real input pixel, the inserted zeros skipped)."""
    if layer == 0:
        return 2.0 * batch * LATENT * LINEAR_OUT
    size = 4 << (layer - 1)
    pairs = sum(1 for y in range(2 * size) for r in range(TAPS) if (y + 1 - r) % 2 == 0 and 0 <= y + 1 - r < 2 * size)
    return 2.0 * batch * pairs * pairs * CHANNELS[layer - 1] * CHANNELS[layer]


def minimum_bytes(layer, batch, value_bytes):
    """The fewest bytes layer 0..4 can move for `batch` images: its input read once, its weights and folded
    bias / batch norm once, its output written once; value_bytes = (input, weights, output) bytes per value."""
    inp, weights, out = value_bytes
    if layer == 0:
        return batch * LATENT * inp + LATENT * LINEAR_OUT * weights + 2 * LINEAR_OUT * 4 + batch * LINEAR_OUT * out
    size, c, k = 4 << (layer - 1), CHANNELS[layer - 1], CHANNELS[layer]
    affine = (2 if layer < 4 else 1) * k * 4
    return batch * size * size * c * inp + TAPS * TAPS * k * c * weights + affine + batch * 4 * size * size * k * out


def floor(flops, nbytes, ms, flop_rate, bandwidth):
    """One layer against its floor: flops at flop_rate (FLOP/s; None where no ceiling is recorded) and nbytes at
    bandwidth (bytes/s), in ms, which one bounds it, and the fraction of the larger floor the measured `ms`
    reaches (`complete` False when the compute floor is unknown: then `reached` counts the memory floor only)."""
    compute = flops / flop_rate * 1e3 if flop_rate else None
    memory = nbytes / bandwidth * 1e3
    larger = memory if compute is None else max(compute, memory)
    return {
        "compute_ms": compute,
        "memory_ms": memory,
        "bound": None if compute is None else ("compute" if compute >= memory else "memory"),
        "floor_ms": larger,
        "reached": larger / ms,
        "complete": compute is not None,
    }


def floor_ceilings(data_dir, device):
    """The measured ceilings the floors use, from this suite's records: {"fp32", "bf16", "tf32": FLOP/s or None,
    "bandwidth": bytes/s, "notes": where they come from}. FP32: lab 00's FMA kernel; bandwidth: lab 00's copy
    ceiling (labdata.ceilings: the faster of its copy kernel and cudaMemcpy); BF16 and TF32: lab11_ceiling's wgmma
    rows (docs/data/logs/lab11_ceiling_<device>.txt), None where the log has no such row."""
    measured = labdata.ceilings(data_dir, device)
    if measured is None:
        raise KeyError(f"floors: no lab 00 record for {device} (its FMA and copy ceilings)")
    fma, bandwidth = measured
    lab00 = labdata.LabData(data_dir, "00", device).results.context
    tensor = labdata.tensor_ceiling(data_dir, device)
    tf32 = labdata.tensor_ceiling(data_dir, device, "tf32")
    log = pathlib.Path(data_dir) / "logs" / f"lab11_ceiling_{device}.txt"
    notes = {
        "fp32": f"FP32 and bytes: lab 00's FMA kernel, {fma / 1e3:,.1f} TFLOP/s, and its copy ceiling, "
        f"{bandwidth:,.0f} GB/s (the faster of its copy kernel and `cudaMemcpy`, bytes read and written; "
        f"{lab00['device']}, {lab00['date'][:10]}, commit `{lab00['git_commit'][:7]}`)",
        "tf32": "TF32: no record measures the tensor cores' TF32 rate, so a TF32 layer has no compute floor (-) and "
        "its fraction counts the memory floor only",
    }
    if tensor is not None or tf32 is not None:
        text = log.read_text()
        run = re.search(r"^# .*?, (\d{4}-\d\d-\d\d), commit (\w+)", text, re.M)
        name = re.search(r"^lab11_ceiling: (.+?) \(", text, re.M)
        source = (
            f"({name.group(1) if name else device}, {run.group(1) if run else '?'}, "
            f"commit `{run.group(2) if run else '?'}`; docs/data/logs/{log.name})"
        )
        if tensor is not None:
            notes["bf16"] = f"BF16: `lab11_ceiling`'s `wgmma` rate, {tensor / 1e3:,.1f} TFLOP/s {source}"
        if tf32 is not None:
            notes["tf32"] = f"TF32: `lab11_ceiling`'s TF32 `wgmma` rate, {tf32 / 1e3:,.1f} TFLOP/s {source}"
    notes["tf32x3"] = (
        "three TF32 products: a third of TF32's rate"
        if tf32 is not None
        else "three TF32 products: no record measures TF32's rate, so no compute floor (-)"
    )
    return {
        "fp32": fma * 1e9,
        "bf16": tensor * 1e9 if tensor else None,
        "tf32": tf32 * 1e9 if tf32 else None,
        "tf32x3": tf32 * 1e9 / 3 if tf32 else None,
        "bandwidth": bandwidth * 1e9,
        "notes": notes,
    }


def layer_floors(table, variant, ceilings, record_date=""):
    """Each layer of one generator's per-layer record (`table`: batch, ms, gflops; the record dated `record_date`)
    against its floor, in layer order: floor()'s dict with the layer's `precision` and `flops` (the record's GFLOP/s
    times its ms)."""
    rows = []
    for layer, (ms, gflops) in enumerate(zip(table["ms"], table["gflops"])):
        precision = computes_in(variant, record_date)[layer]
        flops = gflops * 1e9 * ms * 1e-3
        nbytes = minimum_bytes(layer, table["batch"], VALUE_BYTES.get(variant, FP32_VALUES)[layer])
        row = floor(flops, nbytes, ms, ceilings[precision], ceilings["bandwidth"])
        rows.append({**row, "precision": precision, "flops": flops, "bytes": nbytes, "ms": ms})
    return rows


def _floor_ms(value):
    return "-" if value is None else f"{value:.3f}"


def _reached(fraction, complete):
    percent = f"{100 * fraction:.0f} %" if fraction >= 0.1 else f"{100 * fraction:.1f} %"
    return percent if complete else f"at least {percent}"


def _floor_legend(ceilings, precisions):
    """What the floor columns mean, and the records of the ceilings that `precisions` (of the table) use."""
    sizes = "BF16 2 bytes, FP32 4" if "bf16" in precisions else "FP32 4 bytes"
    used = [ceilings["notes"][p] for p in ("fp32", "bf16", "tf32", "tf32x3") if p in precisions | {"fp32"}]
    return (
        "Compute floor: the layer's useful FLOPs at the measured rate of what it multiplies in; memory floor: its "
        "input read once, its weights once and its output written once, at the bytes per value the code stores "
        f"({sizes}), at the measured copy rate; bound: the larger of the two; of the floor: the larger floor over "
        f"the measured time (100 % is the floor). Ceilings: {'; '.join(used)}."
    )


def throughput(data_dir, device):
    data = _load(data_dir, device, "")
    m = data.medians_by_name()
    variants = ["branch_free", "gemm_batched", "per_layer", "fused", "subpixel"]
    lines = [
        "| variant | ms, batch 1024 | images/s | x PyTorch | ms, batch 5248 | images/s | x PyTorch |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for v in variants + ["pytorch"]:
        cells = [f"`{v}`" if v != "pytorch" else "PyTorch (`model(z)`)"]
        for batch in (1024, 5248):
            b = m.get(f"lab09/{v}/b{batch}" if v != "pytorch" else f"pytorch/b{batch}")
            theirs = m[f"pytorch/b{batch}"]
            if b is None:
                cells += ["-", "-", "-"]
                continue
            cells += [
                f"{b['real_time']:.2f}",
                f"{b['images_per_s']:,.0f}",
                f"{b['images_per_s'] / theirs['images_per_s']:.2f}",
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\nOne batch on the GPU, CUDA-event medians; {_source(data)}."


def layers(data_dir, device, batch="1024"):
    data = _load(data_dir, device, "")
    tables = {k.split("/")[0]: v for k, v in data.layers.items() if k.endswith(f"/b{batch}")}
    order = [v for v in ["branch_free", "gemm_batched", "per_layer", "fused", "subpixel"] if v in tables]
    ceilings = floor_ceilings(data_dir, device)
    floors = {v: layer_floors(tables[v], v, ceilings) for v in order}  # FP32 throughout: the same floors
    # Layers across, variants down: five narrow columns fit a page where five variants of three figures
    # each did not (the last variant, the lab's result, fell off the screen).
    first = floors[order[0]]
    lines = [
        "| | " + " | ".join(LAYER_NAMES) + " |",
        "| --- |" + " ---: |" * len(LAYER_NAMES),
        "| compute floor, ms | " + " | ".join(_floor_ms(row["compute_ms"]) for row in first) + " |",
        "| memory floor, ms | " + " | ".join(_floor_ms(row["memory_ms"]) for row in first) + " |",
        "| bound | " + " | ".join(str(row["bound"]) for row in first) + " |",
    ]
    for v in order:
        lines.append(
            f"| `{v}` | "
            + " | ".join(
                f"{tables[v]['ms'][i]:.3f} ms ({tables[v]['gflops'][i]:,.0f} GFLOP/s; "
                f"{_reached(floors[v][i]['reached'], floors[v][i]['complete'])})"
                for i in range(len(LAYER_NAMES))
            )
            + " |"
        )
    kernels = [tables[v]["methods"].split(",") for v in order]
    methods = ["| variant | " + " | ".join(LAYER_NAMES[1:]) + " |", "| --- |" + " --- |" * (len(LAYER_NAMES) - 1)]
    methods += [f"| `{v}` | " + " | ".join(f"`{m}`" for m in row) + " |" for v, row in zip(order, kernels)]
    note = (
        f"Batch {batch}, CUDA events around each layer, median of 5 runs; each cell the layer's time, its rate and "
        "the share of its floor it reaches. "
        + _floor_legend(ceilings, {r["precision"] for v in order for r in floors[v]})
    )
    kernels_note = "The kernel each variant runs for each transposed convolution (the linear layer is the same in all):"
    return "\n".join(lines) + f"\n\n{note}\n\n{kernels_note}\n\n" + "\n".join(methods)


def end_to_end(data_dir, device):
    data = _load(data_dir, device, "")
    m = data.medians_by_name()
    theirs = next(b for n, b in m.items() if n.startswith("pytorch/end_to_end/"))
    lines = ["| run | batches of | ms | images/s | x PyTorch |", "| --- | ---: | ---: | ---: | ---: |"]
    for name, b in sorted(m.items()):
        if name.startswith("lab09/end_to_end/"):
            lines.append(
                f"| `dcgan --variant subpixel` | {b['batch']} | {b['real_time']:.1f} | {b['images_per_s']:,.0f} | "
                f"{theirs['real_time'] / b['real_time']:.2f} |"
            )
    lines.append(
        f"| PyTorch `model(z.cuda()).cpu()` | 5248 | {theirs['real_time']:.1f} | {theirs['images_per_s']:,.0f} | 1.00 |"
    )
    return (
        "\n".join(lines)
        + f"\n\nnum_to_gen = 5248, latent vectors in host memory to images in host memory; {_source(data)}."
    )


def scaling(data_dir, device, flavour):
    """Lab 10: [DCGAN-SHPC]'s Table 4 for `flavour` (threads, mpi or mpi-collective) from
    results/lab10_<device>.json."""
    # "small-<flavour>": the small-num_to_gen runs of scripts/lab10-bench step 4 (multi_gpu/).
    if flavour.startswith("small-"):
        flavour = flavour[len("small-") :]
        path = pathlib.Path(data_dir) / "multi_gpu" / f"lab10_{flavour}_small-n_{device}.json"
    else:
        path = pathlib.Path(data_dir) / "results" / f"lab10_{device}.json"
    if not path.exists():
        raise KeyError(f"lab 10: no {path.name}")
    data = Record.load(path)
    cells = {}
    for b in data.benchmarks:
        if b["run_name"].startswith(f"lab10/{flavour}/"):
            cells[(b["num"], b["gpus"])] = b
    if not cells:
        raise KeyError(f"lab 10: no lab10/{flavour}/ results in {path.name}")
    gpus = sorted({g for _, g in cells})
    nums = sorted({n for n, _ in cells})
    header = ["num_to_gen"]
    for g in gpus:
        header += [f"s, {g} GPU{'s' if g > 1 else ''}", "images/s"] + (["x one GPU"] if g > 1 else [])
    lines = ["| " + " | ".join(header) + " |", "| ---: |" + " ---: |" * (len(header) - 1)]
    for n in nums:
        row = [f"{n:,}"]
        for g in gpus:
            b = cells.get((n, g))
            one = cells.get((n, 1))
            if b is None:
                row += ["-", "-"] + (["-"] if g > 1 else [])
                continue
            row += [f"{b['real_time'] / 1e3:.4f}", f"{b['images_per_s']:,.0f}"]
            if g > 1:
                row.append(f"{b['images_per_s'] / one['images_per_s']:.2f}" if one else "-")
        lines.append("| " + " | ".join(row) + " |")
    c = data.context
    if flavour in c:  # the merged record keeps each flavour's context under its name
        c = {**c[flavour], **{k: v for k, v in c.items() if isinstance(v, str)}}
    what = {
        "threads": "one host thread per GPU",
        "mpi": "one MPI rank per GPU (Open MPI, one node: the ranks write into rank 0's output, an MPI "
        "shared-memory window)",
        "mpi-collective": "one MPI rank per GPU (Open MPI, one node: the images reach rank 0 by MPI_Igatherv)",
    }[flavour]
    repetitions = sorted({b.get("repetitions", 0) for b in cells.values()})
    runs = "/".join(str(r) for r in repetitions)
    return "\n".join(lines) + (
        f"\n\nEnd to end (latent vectors in host memory to images in host memory), median of {runs} runs, "
        f"{what}; {c['devices']}, {c['date'][:10]}, commit `{c['git_commit']}`."
    )


def tuning_rows(data_dir):
    """The rows of lab 09's tuning record (docs/data/dcgan/tuning.md) as dicts by column name; a row with
    an empty commit continues the one above."""
    text = (pathlib.Path(data_dir) / "dcgan" / "tuning.md").read_text()
    lines = [line for line in text.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows, last = [], {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        row = dict(zip(header, cells))
        if not row["commit"]:
            row["commit"], row["change"] = last.get("commit", ""), last.get("change", "")
        rows.append(row)
        last = row
    return rows


def _tensor_core_path(data_dir, device):
    path = pathlib.Path(data_dir) / "results" / f"lab11_dcgan_{device}.json"
    if not path.exists():
        raise KeyError(f"lab 11: no {path.name}")
    return path


def _precisions(data):
    """The reduced precisions of a lab 11 record, in the order BF16, TF32."""
    found = [k[len("pytorch_") :] for k in data.context if k.startswith("pytorch_")]
    return [p for p in ("bf16", "tf32") if p in found]


def _tensor_core_source(data):
    c = data.context
    timed = _precisions(data) + (["fp32"] if "winner" in c.get(pytorch_stem("fp32"), {}) else [])
    baselines = "; ".join(f"{p.upper()} `{c[pytorch_stem(p)]['winner']}`" for p in timed)
    pytorch = c[pytorch_stem(_precisions(data)[0])]
    return (
        f"{c['device']}, {c.get('date', '')[:10]}, commit `{c.get('git_commit', '?')}`; PyTorch "
        f"{pytorch['torch']} (cuDNN {pytorch['cudnn']}; best configurations: {baselines}) in the same session"
    )


def tensor_cores(data_dir, device):
    data = Record.load(_tensor_core_path(data_dir, device))
    m = data.medians_by_name()
    rows = []
    for p in _precisions(data):
        rows += [
            (f"lab 11 `dcgan_{p}`", f"lab11/dcgan_{p}", p),
            (f"PyTorch, {p.upper()}, best configuration", pytorch_stem(p), p),
        ]
    rows.append(("lab 09 `subpixel` (FP32)", "lab09/subpixel", "fp32"))
    if pytorch_stem("fp32") in data.context:  # the session timed PyTorch's FP32 too
        rows.append(("PyTorch, FP32, best configuration", pytorch_stem("fp32"), "fp32"))
    lines = [
        "| generator | ms, batch 1024 | images/s | x PyTorch, same precision | ms, batch 5248 | images/s | x "
        "PyTorch, same precision |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, stem, p in rows:
        cells = [label]
        for batch in (1024, 5248):
            # FP32 (lab 09's generator) against PyTorch's FP32 where the session timed it, else no ratio
            b, key = m[f"{stem}/b{batch}"], f"{pytorch_stem(p)}/b{batch}"
            theirs = m.get(key) if p == "fp32" else m[key]
            ratio = f"{b['images_per_s'] / theirs['images_per_s']:.2f}" if theirs else "-"
            cells += [f"{b['real_time']:.2f}", f"{b['images_per_s']:,.0f}", ratio]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "| end to end, 5,248 images | batches of | ms | images/s | x PyTorch, same precision |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for p in _precisions(data):
        theirs = next(b for n, b in m.items() if n.startswith(f"{pytorch_stem(p)}/end_to_end/"))
        for name, b in sorted(m.items()):
            if name.startswith(f"lab11/end_to_end/dcgan_{p}/"):
                lines.append(
                    f"| `dcgan --precision {p}` | {b['batch']} | {b['real_time']:.1f} | {b['images_per_s']:,.0f} | "
                    f"{theirs['real_time'] / b['real_time']:.2f} |"
                )
        lines.append(
            f"| PyTorch {p.upper()}, `model(z.cuda()).cpu()` | 5248 | {theirs['real_time']:.1f} | "
            f"{theirs['images_per_s']:,.0f} | 1.00 |"
        )
    return "\n".join(lines) + f"\n\nOne batch on the GPU, CUDA-event medians; {_tensor_core_source(data)}."


LAYER_NAMES = (
    "linear + bn0 + ReLU",
    "tconv1 4x4x512 -> 8x8x256",
    "tconv2 -> 16x16x128",
    "tconv3 -> 32x32x64",
    "tconv4 -> 64x64x3 + tanh",
)


def tensor_core_layers(data_dir, device, batch="5248"):
    data = Record.load(_tensor_core_path(data_dir, device))
    tables = {k.split("/")[0]: v for k, v in data.layers.items() if k.endswith(f"/b{batch}")}
    order = [f"dcgan_{p}" for p in _precisions(data) if f"dcgan_{p}" in tables] + ["subpixel"]
    ceilings = floor_ceilings(data_dir, device)
    floors = {v: layer_floors(tables[v], v, ceilings, data.context.get("date", "")) for v in order}
    lines = [
        "| layer | generator | computes in | ms | GFLOP/s | compute floor, ms | memory floor, ms | bound | "
        "of the floor |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    for i, name in enumerate(LAYER_NAMES):
        for j, v in enumerate(order):
            row = floors[v][i]
            lines.append(
                f"| {name if j == 0 else ''} | `{v}` | {PRECISION_LABELS[row['precision']]} | {row['ms']:.3f} | "
                f"{tables[v]['gflops'][i]:,.0f} | {_floor_ms(row['compute_ms'])} | {_floor_ms(row['memory_ms'])} | "
                f"{row['bound'] or '-'} | {_reached(row['reached'], row['complete'])} |"
            )
    for j, v in enumerate(order):
        rows = floors[v]
        total = sum(r["ms"] for r in rows)
        complete = all(r["complete"] for r in rows)
        compute = sum(r["compute_ms"] for r in rows) if complete else None
        gflops = sum(r["flops"] for r in rows) / total / 1e6
        memory = sum(r["memory_ms"] for r in rows)
        lines.append(
            f"| {'all layers' if j == 0 else ''} | `{v}` | | {total:.3f} | {gflops:,.0f} | {_floor_ms(compute)} | "
            f"{_floor_ms(memory)} | | {_reached(sum(r['floor_ms'] for r in rows) / total, complete)} |"
        )
    return (
        "\n".join(lines)
        + f"\n\nBatch {batch}, CUDA events around each layer, median of 5 runs; {_tensor_core_source(data)}. "
        + _floor_legend(ceilings, {r["precision"] for v in order for r in floors[v]})
        + " The BF16 RGB layer's floor is at `wgmma`'s rate too, though its kernel runs on `mma.sync`; all layers: "
        "the floors summed, and the sum of each layer's larger floor over the total time."
    )


def pytorch_configs(data_dir, device):
    data = Record.load(_tensor_core_path(data_dir, device))
    lines = ["| precision | PyTorch configuration | images/s at batch 5248 |", "| --- | --- | ---: |"]
    for p in _precisions(data) + (["fp32"] if pytorch_stem("fp32") in data.context else []):
        pytorch = data.context[pytorch_stem(p)]
        for name, rate in pytorch.get("configurations_images_per_s", {}).items():
            cell = f"{rate:,.0f}" if isinstance(rate, (int, float)) else str(rate)
            lines.append(f"| {p.upper()} | `{name}`{' (the baseline)' if name == pytorch['winner'] else ''} | {cell} |")
    return (
        "\n".join(lines)
        + f"\n\nEach timed alone at batch 5248 (`cudnn.benchmark` on), then the fastest: {_tensor_core_source(data)}."
    )
