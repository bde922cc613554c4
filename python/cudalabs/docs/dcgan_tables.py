"""Lab 09's tables from docs/data/results/lab09_*.json (scripts/lab09-bench, scripts/lab09_merge.py).

    throughput   ours per variant and PyTorch at batches 1024 and 5248, images/s and the ratio
    layers       per-layer milliseconds and GFLOP/s of each variant at one batch
    end_to_end   num 5248 from host memory to host memory, ours and PyTorch's, same session

Lab 11's step 7 from docs/data/results/lab11_dcgan_*.json (scripts/lab11-dcgan-bench):

    tensor_cores        lab 11 at a precision, lab 09's FP32 sub-pixel variant and PyTorch's best
                        configuration at that precision, batches 1024 and 5248 and end to end
    tensor_core_layers  per-layer milliseconds of both generators at one batch
    pytorch_configs     every PyTorch configuration the bench tried, and the one that won
"""
import pathlib

from cudalabs.records.benchmark import Record


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
    names = [
        "linear + bn0 + ReLU",
        "tconv1 4x4x512 -> 8x8x256",
        "tconv2 -> 16x16x128",
        "tconv3 -> 32x32x64",
        "tconv4 -> 64x64x3 + tanh",
    ]
    order = [v for v in ["branch_free", "gemm_batched", "per_layer", "fused", "subpixel"] if v in tables]
    lines = ["| layer | " + " | ".join(f"`{v}` ms (GFLOP/s)" for v in order) + " |", "| --- |" + " ---: |" * len(order)]
    for i, name in enumerate(names):
        lines.append(
            f"| {name} | "
            + " | ".join(f"{tables[v]['ms'][i]:.3f} ({tables[v]['gflops'][i]:,.0f})" for v in order)
            + " |"
        )
    methods = "; ".join(f"`{v}`: {tables[v]['methods']}" for v in order)
    return (
        "\n".join(lines)
        + f"\n\nBatch {batch}, CUDA events around each layer, median of 5 runs. Methods per layer: {methods}."
    )


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
    baselines = "; ".join(f"{p.upper()} `{c['pytorch_' + p]['winner']}`" for p in _precisions(data))
    pytorch = c["pytorch_" + _precisions(data)[0]]
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
            (f"PyTorch, {p.upper()}, best configuration", f"pytorch_{p}", p),
        ]
    rows.append(("lab 09 `subpixel` (FP32)", "lab09/subpixel", _precisions(data)[0]))
    lines = [
        "| generator | ms, batch 1024 | images/s | x PyTorch, same precision | ms, batch 5248 | images/s | x "
        "PyTorch, same precision |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, stem, p in rows:
        cells = [label]
        for batch in (1024, 5248):
            b, theirs = m[f"{stem}/b{batch}"], m[f"pytorch_{p}/b{batch}"]
            ratio = f"{b['images_per_s'] / theirs['images_per_s']:.2f}" if not stem.startswith("lab09/") else "-"
            cells += [f"{b['real_time']:.2f}", f"{b['images_per_s']:,.0f}", ratio]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "| end to end, 5,248 images | batches of | ms | images/s | x PyTorch, same precision |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for p in _precisions(data):
        theirs = next(b for n, b in m.items() if n.startswith(f"pytorch_{p}/end_to_end/"))
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


def tensor_core_layers(data_dir, device, batch="5248"):
    data = Record.load(_tensor_core_path(data_dir, device))
    tables = {k.split("/")[0]: v for k, v in data.layers.items() if k.endswith(f"/b{batch}")}
    order = [f"dcgan_{p}" for p in _precisions(data) if f"dcgan_{p}" in tables] + ["subpixel"]
    names = [
        "linear + bn0 + ReLU",
        "tconv1 4x4x512 -> 8x8x256",
        "tconv2 -> 16x16x128",
        "tconv3 -> 32x32x64",
        "tconv4 -> 64x64x3 + tanh",
    ]
    lines = ["| layer | " + " | ".join(f"`{v}` ms (GFLOP/s)" for v in order) + " |", "| --- |" + " ---: |" * len(order)]
    for i, name in enumerate(names):
        lines.append(
            f"| {name} | "
            + " | ".join(f"{tables[v]['ms'][i]:.3f} ({tables[v]['gflops'][i]:,.0f})" for v in order)
            + " |"
        )
    lines.append("| all layers | " + " | ".join(f"{sum(tables[v]['ms']):.3f}" for v in order) + " |")
    return (
        "\n".join(lines)
        + f"\n\nBatch {batch}, CUDA events around each layer, median of 5 runs; {_tensor_core_source(data)}."
    )


def pytorch_configs(data_dir, device):
    data = Record.load(_tensor_core_path(data_dir, device))
    lines = ["| precision | PyTorch configuration | images/s at batch 5248 |", "| --- | --- | ---: |"]
    for p in _precisions(data):
        pytorch = data.context["pytorch_" + p]
        for name, rate in pytorch["configurations_images_per_s"].items():
            cell = f"{rate:,.0f}" if isinstance(rate, (int, float)) else str(rate)
            lines.append(f"| {p.upper()} | `{name}`{' (the baseline)' if name == pytorch['winner'] else ''} | {cell} |")
    return (
        "\n".join(lines)
        + f"\n\nEach timed alone at batch 5248 (`cudnn.benchmark` on), then the fastest: {_tensor_core_source(data)}."
    )
