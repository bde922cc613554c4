#!/usr/bin/env python3
"""PyTorch side of lab 09: the independent reference and the speed baseline (GPU machine).

    pytorch_dcgan.py compare --weights W.cldw --latents Z.cldz --images A.cldi [B.cldi ...] [--tolerance 2e-4]
        runs the same weights and latent vectors through torch.nn (FP32, TF32 off) and prints, per
        file, the largest difference from the images `dcgan --raw` wrote; exit 1 above the tolerance.

    pytorch_dcgan.py bench [--weights W.cldw] --batches 1024,5248 --end-to-end 5248 --json OUT.json
        first times every configuration at the largest batch (channels-last or not, each eager and
        under torch.compile where it compiles; FP32 with TF32 off) and keeps the fastest; then times
        it on the GPU per batch (CUDA events, warm-up, median) and, end to end, from host memory to
        host memory; writes Google-Benchmark-shaped entries pytorch/b<batch> and
        pytorch/end_to_end/n<num> with the counter images_per_s, every configuration's rate and the
        winner in the context.

    --precision bf16 or tf32 (both commands): PyTorch on tensor cores. compare runs torch.autocast
    BF16 (or TF32 enabled) and checks the largest and the mean difference (--mean-tolerance). bench
    also tries BF16 weights or autocast, and records pytorch_<precision>/b<batch>.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import torch

import dcgan_torch  # beside this script: Python puts a script's folder on its path


def set_precision(precision):
    """FP32 with no TF32 anywhere, or TF32 tensor cores allowed (BF16 comes from the model's dtype
    or autocast, not from these switches)."""
    tf32 = precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cudnn.benchmark = True


def load_model(path):
    if path:
        return dcgan_torch.from_tensors(dcgan_torch.read_weights(path), "cuda")
    torch.manual_seed(0)
    model = dcgan_torch.Generator()
    model.init_dcgan()
    return model.cuda().eval()


def compare(args):
    set_precision(args.precision)
    model = load_model(args.weights)
    z = torch.from_numpy(dcgan_torch.read_latents(args.latents)).cuda()
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.precision == "bf16"):
        theirs = model(z).float().permute(0, 2, 3, 1).cpu().numpy()  # N x H x W x C, as the suite
    failed = False
    for path in args.images:
        ours = dcgan_torch.read_images(path)
        if theirs.shape != ours.shape:
            print(f"compare {path}: FAIL: shapes differ: torch {theirs.shape}, suite {ours.shape}")
            failed = True
            continue
        difference = np.abs(theirs - ours)
        worst = np.unravel_index(np.argmax(difference), difference.shape)
        ok = difference.max() <= args.tolerance and (
            args.mean_tolerance is None or difference.mean() <= args.mean_tolerance
        )
        failed = failed or not ok
        print(
            f"compare {os.path.basename(path)}: {'PASS' if ok else 'FAIL'}: {ours.shape[0]} images, max |torch "
            f"- suite| = "
            f"{difference.max():.3g} at image {worst[0]} (h {worst[1]}, w {worst[2]}, c {worst[3]}), mean "
            f"{difference.mean():.3g}; tolerance {args.tolerance}"
            + (f", mean {args.mean_tolerance}" if args.mean_tolerance is not None else "")
            + f" ({args.precision})"
        )
    sys.exit(1 if failed else 0)


def median_ms(function, repetitions, warmup=3):
    for _ in range(warmup):
        function()
    torch.cuda.synchronize()
    times = []
    for _ in range(repetitions):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        function()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def entry(name, ms, images):
    return {
        "name": name,
        "run_type": "iteration",
        "iterations": 1,
        "real_time": ms,
        "cpu_time": ms,
        "time_unit": "ms",
        "images_per_s": images / (ms / 1000.0),
    }


def configurations(precision):
    """(name, make(model) -> callable(z), input dtype) of every eager configuration tried."""

    def eager(channels_last, bf16_weights, autocast):
        def make(model):
            m = model.to(torch.bfloat16) if bf16_weights else model
            if channels_last:
                m = m.to(memory_format=torch.channels_last)

            def run(z):
                with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
                    return m(z)

            return run

        return make

    if precision == "bf16":
        return [
            ("bf16_weights_channels_last", eager(True, True, False), torch.bfloat16),
            ("bf16_weights", eager(False, True, False), torch.bfloat16),
            ("autocast_channels_last", eager(True, False, True), torch.float32),
            ("autocast", eager(False, False, True), torch.float32),
        ]
    return [
        ("channels_last", eager(True, False, False), torch.float32),
        ("default", eager(False, False, False), torch.float32),
    ]


def best_configuration(args, batch):
    """Times each configuration at `batch`, eager and under torch.compile (where it compiles);
    returns the fastest as (name, callable, dtype) and every configuration's images/s."""
    rates, candidates = {}, []
    repetitions = max(5, args.repetitions // 2)
    for name, make, dtype in configurations(args.precision):
        run = make(load_model(args.weights))
        z = torch.randn(batch, dcgan_torch.LATENT, device="cuda", dtype=dtype)
        for label, function in ((name, run), (name + "_compiled", None)):
            try:
                function = function or torch.compile(run)
                ms = median_ms(lambda: function(z), repetitions)
            except Exception as error:  # torch.compile needs a working Triton toolchain: record why not
                rates[label] = f"failed: {type(error).__name__}: {str(error).splitlines()[0][:200]}"
                print(f"bench: pytorch_{args.precision} {label}: {rates[label]}", flush=True)
                continue
            rates[label] = batch / ms * 1000
            candidates.append((ms, label, function, dtype))
            print(f"bench: pytorch_{args.precision} {label}: {rates[label]:,.0f} images/s at batch {batch}", flush=True)
    ms, name, run, dtype = min(candidates, key=lambda c: c[0])
    return (name, run, dtype), rates


def command_line():
    """The command as run, absolute paths (outside the repository) shortened to <outside>/NAME."""
    return " ".join("<outside>/" + os.path.basename(a) if os.path.isabs(a) else a for a in sys.argv)


def bench(args):
    """PyTorch's fastest configuration at args.precision (FP32: TF32 off, cuDNN's fastest FP32
    algorithms), timed per batch and end to end."""
    set_precision(args.precision)
    batches = [int(b) for b in args.batches.split(",")]
    results = []
    prefix = "pytorch" if args.precision == "fp32" else f"pytorch_{args.precision}"
    with torch.no_grad():  # inference: no autograd graph, in the trials as in the timing
        (winner, run, dtype), rates = best_configuration(args, max(batches))
        for batch in batches:
            z = torch.randn(batch, dcgan_torch.LATENT, device="cuda", dtype=dtype)
            ms = median_ms(lambda: run(z), args.repetitions)
            results.append(entry(f"{prefix}/b{batch}", ms, batch))
            print(f"bench: {prefix}/b{batch} ({winner}): {ms:.3f} ms, {batch / ms * 1000:,.0f} images/s", flush=True)
        num = args.end_to_end
        z_host = torch.randn(num, dcgan_torch.LATENT)
        ms = median_ms(lambda: run(z_host.cuda().to(dtype)).float().cpu(), args.repetitions)
        results.append(entry(f"{prefix}/end_to_end/n{num}", ms, num))
        print(f"bench: {prefix}/end_to_end/n{num}: {ms:.3f} ms, {num / ms * 1000:,.0f} images/s", flush=True)
    context = {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "cudnn": torch.backends.cudnn.version(),
        "date": time.strftime("%Y-%m-%d"),
        "command": command_line(),
        "precision": args.precision,
        "cudnn_benchmark": True,
        "winner": winner,
        "configurations_images_per_s": rates,
    }
    with open(args.json, "w") as f:
        json.dump({"context": context, "benchmarks": results}, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--weights", default="")
    c.add_argument("--latents", required=True)
    c.add_argument("--images", required=True, nargs="+")
    c.add_argument("--tolerance", type=float, default=1e-4)
    c.add_argument("--mean-tolerance", type=float, default=None)
    c.add_argument("--precision", choices=["fp32", "tf32", "bf16"], default="fp32")
    b = sub.add_parser("bench")
    b.add_argument("--weights", default="")
    b.add_argument("--batches", default="1024,5248")
    b.add_argument("--end-to-end", type=int, default=5248)
    b.add_argument("--repetitions", type=int, default=20)
    b.add_argument("--json", required=True)
    b.add_argument("--precision", choices=["fp32", "tf32", "bf16"], default="fp32")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("pytorch_dcgan: no CUDA GPU visible to PyTorch")
    compare(args) if args.command == "compare" else bench(args)


if __name__ == "__main__":
    main()
