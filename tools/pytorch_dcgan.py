#!/usr/bin/env python3
"""PyTorch side of lab 09: the independent reference and the speed baseline (GPU machine).

    pytorch_dcgan.py compare --weights W.cldw --latents Z.cldz --images A.cldi [B.cldi ...] [--tolerance 2e-4]
        runs the same weights and latent vectors through torch.nn (FP32, TF32 off) and prints, per
        file, the largest difference from the images `dcgan --raw` wrote; exit 1 above the tolerance.

    pytorch_dcgan.py bench [--weights W.cldw] --batches 1024,5248 --end-to-end 5248 --json OUT.json
        times model(z) on the GPU per batch (CUDA events, warm-up, median) and, end to end,
        model(z.cuda()).cpu() from host memory; writes Google-Benchmark-shaped entries
        pytorch/b<batch> and pytorch/end_to_end/n<num> with the counter images_per_s.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dcgan_torch  # noqa: E402


def strict_fp32():
    # The comparison is FP32 against FP32: no TF32 tensor cores anywhere.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True  # let cuDNN pick its fastest FP32 algorithm


def load_model(path):
    if path:
        return dcgan_torch.from_tensors(dcgan_torch.read_weights(path), "cuda")
    torch.manual_seed(0)
    model = dcgan_torch.Generator()
    model.init_dcgan()
    return model.cuda().eval()


def compare(args):
    strict_fp32()
    model = load_model(args.weights)
    z = torch.from_numpy(dcgan_torch.read_latents(args.latents)).cuda()
    with torch.no_grad():
        theirs = model(z).permute(0, 2, 3, 1).cpu().numpy()  # N x H x W x C, as the suite stores
    failed = False
    for path in args.images:
        ours = dcgan_torch.read_images(path)
        if theirs.shape != ours.shape:
            print(f"compare {path}: FAIL: shapes differ: torch {theirs.shape}, suite {ours.shape}")
            failed = True
            continue
        difference = np.abs(theirs - ours)
        worst = np.unravel_index(np.argmax(difference), difference.shape)
        ok = difference.max() <= args.tolerance
        failed = failed or not ok
        print(f"compare {os.path.basename(path)}: {'PASS' if ok else 'FAIL'}: {ours.shape[0]} images, max |torch - suite| = "
              f"{difference.max():.3g} at image {worst[0]} (h {worst[1]}, w {worst[2]}, c {worst[3]}), mean "
              f"{difference.mean():.3g}; tolerance {args.tolerance}")
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
    return {"name": name, "run_type": "iteration", "iterations": 1, "real_time": ms, "cpu_time": ms,
            "time_unit": "ms", "images_per_s": images / (ms / 1000.0)}


def bench(args):
    strict_fp32()
    model = load_model(args.weights)
    results = []
    with torch.no_grad():
        for batch in [int(b) for b in args.batches.split(",")]:
            z = torch.randn(batch, dcgan_torch.LATENT, device="cuda")
            ms = median_ms(lambda: model(z), args.repetitions)
            results.append(entry(f"pytorch/b{batch}", ms, batch))
            print(f"bench: pytorch/b{batch}: {ms:.3f} ms, {batch / ms * 1000:,.0f} images/s", flush=True)
        num = args.end_to_end
        z_host = torch.randn(num, dcgan_torch.LATENT)  # pageable host memory, as a user would have it
        ms = median_ms(lambda: model(z_host.cuda()).cpu(), args.repetitions)
        results.append(entry(f"pytorch/end_to_end/n{num}", ms, num))
        print(f"bench: pytorch/end_to_end/n{num}: {ms:.3f} ms, {num / ms * 1000:,.0f} images/s", flush=True)
    context = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "cudnn": torch.backends.cudnn.version(), "date": time.strftime("%Y-%m-%d"),
               "command": " ".join(sys.argv), "tf32": False, "cudnn_benchmark": True}
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
    b = sub.add_parser("bench")
    b.add_argument("--weights", default="")
    b.add_argument("--batches", default="1024,5248")
    b.add_argument("--end-to-end", type=int, default=5248)
    b.add_argument("--repetitions", type=int, default=20)
    b.add_argument("--json", required=True)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("pytorch_dcgan: no CUDA GPU visible to PyTorch")
    compare(args) if args.command == "compare" else bench(args)


if __name__ == "__main__":
    main()
