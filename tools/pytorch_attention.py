#!/usr/bin/env python3
"""PyTorch side of lab 13 (GPU machine): attention's speed to beat and an independent reference.

    pytorch_attention.py bench [--shapes b4h16s4096d128,b4h16s4096d128_causal] [--results-dir DIR]
                               [--repetitions 20] [--settle-ms 200]
        times torch.nn.functional.scaled_dot_product_attention in BF16 on every backend PyTorch has
        (flash, efficient, cudnn, math), on the shapes lab 13 times (batch, heads, sequence,
        head_dim; "_causal" for the causal mask), with CUDA events after a warm-up and after the
        backend ran untimed for --settle-ms (timed at the clocks its own power draw sustains, as lab
        13's drivers time theirs; the median of the repetitions), and writes
        DIR/lab13_pytorch_<device>.json: Google-Benchmark-shaped entries pytorch_<backend>/<shape> and
        pytorch_best/<shape> with the counter gflops, counted as the lab counts them (4 head_dim per
        (query, key) pair the mask keeps).

    pytorch_attention.py compare DIR
        reads what `lab13_solution --dump-dir DIR` wrote: per problem, attention_<shape>.json names
        its inputs Q, K, V and each rung's output O (raw BF16 files in DIR), and only those files are
        read. Runs the same attention in FP32 (the math backend, TF32 off) and checks every rung's
        O against it with lab 13's bound, its A[c] replaced by its upper bound max over keys |V[j][c]|:
        |O - torch| <= 2^-8 |torch| + 1.05 * 2^-8 * max|V[:, c]| + 1e-5. Prints PyTorch's BF16 output's
        distance too. Exit 1 above the bound, on a description that names no outputs or a file that is
        missing, or when nothing was found.
"""
import argparse
import json
import math
import os
import pathlib
import re
import statistics
import sys
import time

import torch
import torch.nn.functional as F

SHAPE = re.compile(r"^b(\d+)h(\d+)s(\d+)d(\d+)(_causal)?$")
BACKENDS = ("flash", "efficient", "cudnn", "math")


def parse_shape(text):
    match = SHAPE.match(text)
    if not match:
        raise SystemExit(f"pytorch_attention.py: shape '{text}' is not bBhHsSdD[_causal]")
    batch, heads, sequence, head_dim = (int(g) for g in match.groups()[:4])
    return batch, heads, sequence, head_dim, match.group(5) is not None


def flops(batch, heads, sequence, head_dim, causal):
    pairs = sequence * (sequence + 1) / 2 if causal else float(sequence) * sequence
    return 4.0 * batch * heads * head_dim * pairs


def sdpa_context(backend):
    """A context manager that allows only `backend` (torch >= 2.3; older: torch.backends.cuda.sdp_kernel)."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        names = {
            "flash": "FLASH_ATTENTION",
            "efficient": "EFFICIENT_ATTENTION",
            "cudnn": "CUDNN_ATTENTION",
            "math": "MATH",
        }
        if not hasattr(SDPBackend, names[backend]):
            return None
        return sdpa_kernel([getattr(SDPBackend, names[backend])])
    except ImportError:
        if backend == "cudnn":
            return None
        return torch.backends.cuda.sdp_kernel(
            enable_flash=backend == "flash", enable_mem_efficient=backend == "efficient", enable_math=backend == "math"
        )


def median_ms(function, repetitions, settle_ms, warmup=3):
    for _ in range(warmup):
        function()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    function()
    stop.record()
    stop.synchronize()
    for _ in range(math.ceil(settle_ms / max(start.elapsed_time(stop), 1e-3))):
        function()
    times = []
    for _ in range(repetitions):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        function()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def entry(name, ms, work, repetitions):
    return {
        "name": f"{name}_median",
        "run_name": name,
        "run_type": "aggregate",
        "aggregate_name": "median",
        "repetitions": repetitions,
        "iterations": 1,
        "real_time": ms,
        "cpu_time": ms,
        "time_unit": "ms",
        "gflops": work / (ms / 1000.0) * 1e-9,
    }


def command_line():
    """The command as run, absolute paths (outside the repository) shortened to <outside>/NAME."""
    return " ".join("<outside>/" + os.path.basename(a) if os.path.isabs(a) else a for a in sys.argv)


def device_slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def bench(args):
    torch.backends.cuda.matmul.allow_tf32 = False
    results, skipped = [], {}
    for text in args.shapes.split(","):
        batch, heads, sequence, head_dim, causal = parse_shape(text)
        generator = torch.Generator(device="cuda").manual_seed(2026)
        q, k, v = (
            torch.empty(batch, heads, sequence, head_dim, device="cuda", dtype=torch.bfloat16).uniform_(
                lo, hi, generator=generator
            )
            for lo, hi in ((-2, 2), (-2, 2), (-1, 1))
        )
        work = flops(batch, heads, sequence, head_dim, causal)
        best = None
        for backend in BACKENDS:
            context = sdpa_context(backend)
            if context is None:
                skipped[f"{backend}/{text}"] = "not in this PyTorch"
                continue
            try:
                with context, torch.no_grad():
                    ms = median_ms(
                        lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                        args.repetitions,
                        args.settle_ms,
                    )
            except RuntimeError as error:  # no kernel of this backend for these inputs
                skipped[f"{backend}/{text}"] = str(error).splitlines()[0][:200]
                print(f"bench: pytorch_{backend}/{text}: skipped ({skipped[f'{backend}/{text}']})", flush=True)
                continue
            results.append(entry(f"pytorch_{backend}/{text}", ms, work, args.repetitions))
            print(f"bench: pytorch_{backend}/{text}: {ms:.3f} ms, {work / ms * 1e-9:,.1f} TFLOP/s", flush=True)
            if best is None or ms < best[0]:
                best = (ms, backend)
        if best is not None:
            results.append(entry(f"pytorch_best/{text}", best[0], work, args.repetitions))
            print(f"bench: pytorch_best/{text}: {best[1]}", flush=True)
    device = torch.cuda.get_device_name()
    context = {
        "device": device,
        "torch": torch.__version__,
        "cuda_runtime": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "date": time.strftime("%Y-%m-%d"),
        "command": command_line(),
        "settle_ms": args.settle_ms,
        "git_commit": os.environ.get("CUDALABS_GIT_COMMIT", "unknown"),
        "skipped": skipped,
    }
    out = pathlib.Path(args.results_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"lab13_pytorch_{device_slug(device)}.json"
    path.write_text(json.dumps({"context": context, "benchmarks": results}, indent=1) + "\n")
    print(f"bench: wrote {path}")
    return 0 if results else 1


def read_bf16(path, shape):
    data = bytearray(pathlib.Path(path).read_bytes())
    return torch.frombuffer(data, dtype=torch.bfloat16).reshape(shape)


def dumped_file(directory, description, name):
    """The file `name` of a problem's description, in `directory` itself (never a path elsewhere)."""
    if not isinstance(name, str) or pathlib.PurePath(name).name != name or name in ("", ".", ".."):
        raise ValueError(f"{description.name}: '{name}' is not a file name in {directory}")
    path = directory / name
    if not path.is_file():
        raise ValueError(f"{description.name} names {name}, which is not in {directory}")
    return path


def compare(args):
    directory = pathlib.Path(args.directory)
    problems = sorted(directory.glob("attention_*.json"))
    if not problems:
        print(f"compare: no attention_*.json in {directory}: run lab13_solution --dump-dir {directory} first")
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    failed, checked = False, 0
    for description in problems:
        problem = description.stem
        p = json.loads(description.read_text())
        shape = (p["batch"], p["heads"], p["sequence"], p["head_dim"])
        inputs, outputs = p.get("inputs"), p.get("outputs")
        if not isinstance(inputs, dict) or sorted(inputs) != ["k", "q", "v"] or not isinstance(outputs, dict):
            print(
                f"compare {problem}: FAIL: {description.name} does not name its inputs (q, k, v) and "
                "outputs: written by an older lab13_solution? Run --dump-dir again"
            )
            failed = True
            continue
        if not outputs:
            print(f"compare {problem}: FAIL: {description.name} names no outputs (no rung passed its own check)")
            failed = True
            continue
        try:
            q, k, v = (read_bf16(dumped_file(directory, description, inputs[name]), shape).cuda() for name in "qkv")
        except ValueError as error:
            print(f"compare {problem}: FAIL: {error}")
            failed = True
            continue
        with torch.no_grad():
            with sdpa_context("math"):
                exact = F.scaled_dot_product_attention(
                    q.float(), k.float(), v.float(), is_causal=p["causal"], scale=p["scale"]
                )
            theirs = F.scaled_dot_product_attention(q, k, v, is_causal=p["causal"], scale=p["scale"]).float()
        largest_v = v.float().abs().amax(dim=2, keepdim=True)  # per head and column
        bound = 2.0**-8 * exact.abs() + 1.05 * 2.0**-8 * largest_v + 1e-5
        print(
            f"compare {problem}: PyTorch's BF16 output: max |torch_bf16 - fp32| = "
            f"{(theirs - exact).abs().max():.3g}, {((theirs - exact).abs() / bound).max():.2f} of the bound"
        )
        for variant, name in sorted(outputs.items()):
            try:
                ours = read_bf16(dumped_file(directory, description, name), shape).cuda().float()
            except ValueError as error:
                print(f"compare {problem} {variant}: FAIL: {error}")
                failed = True
                continue
            error = (ours - exact).abs()
            fraction = (error / bound).max().item()
            ok = math.isfinite(fraction) and fraction <= 1.0
            failed = failed or not ok
            checked += 1
            worst = torch.nonzero(error == error.max())[0].tolist()
            print(
                f"compare {problem} {variant}: {'PASS' if ok else 'FAIL'}: max |ours - torch fp32| = "
                f"{error.max():.3g} at (batch, head, query, column) {tuple(worst)}, {fraction:.2f} of the bound"
            )
    if checked == 0:
        print("compare: no variant outputs found")
        return 1
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bench")
    b.add_argument("--shapes", default="b4h16s4096d128,b4h16s4096d128_causal")
    b.add_argument("--results-dir", default=".")
    b.add_argument("--repetitions", type=int, default=20)
    b.add_argument("--settle-ms", type=float, default=200.0)
    c = sub.add_parser("compare")
    c.add_argument("directory")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("pytorch_attention.py: no CUDA GPU available")
        return 1
    return bench(args) if args.command == "bench" else compare(args)


if __name__ == "__main__":
    sys.exit(main())
