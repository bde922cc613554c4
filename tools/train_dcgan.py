#!/usr/bin/env python3
"""Trains lab 09's generator on Fashion-MNIST and exports it as a suite weights file.

Run on the GPU machine (PyTorch is there); the dataset is Debian's dataset-fashion-mnist
(/usr/share/datasets/fashion-mnist, or --data). The 28 x 28 grey images are upscaled to 64 x 64
(bilinear) and repeated into three channels; pixels are mapped to [-1, 1] to match the tanh output.

    python3 tools/train_dcgan.py --minutes 4 --output data/dcgan/fashion_mnist.cldw

Training uses a standard DCGAN discriminator, Adam (2e-4, beta1 0.5), batch 128, TF32 allowed (only
inference is benchmarked). Before export, the generator's batch-norm statistics are recomputed as an
exact average over generated batches (momentum None), so that inference-form batch norm with the
stored mean and variance reproduces what the generator learned. The file is float16 (about 10 MB).
"""
import argparse
import gzip
import json
import os
import sys
import time

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

import dcgan_torch  # beside this script: Python puts a script's folder on its path


def load_fashion_mnist(folder):
    with gzip.open(os.path.join(folder, "train-images-idx3-ubyte.gz"), "rb") as f:
        data = f.read()
    count = int.from_bytes(data[4:8], "big")
    return np.frombuffer(data, np.uint8, offset=16).reshape(count, 28, 28)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()

        def block(c_in, c_out, norm=True):
            layers = [nn.Conv2d(c_in, c_out, 5, 2, 2)]
            if norm:
                layers.append(nn.BatchNorm2d(c_out))
            layers.append(nn.LeakyReLU(0.2))
            return layers

        self.features = nn.Sequential(*block(3, 64, False), *block(64, 128), *block(128, 256), *block(256, 512))
        self.score = nn.Linear(512 * 4 * 4, 1)

    def forward(self, x):
        return self.score(self.features(x).flatten(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--minutes", type=float, default=4.0, help="training time budget")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--output", required=True, help="weights file to write (float16)")
    args = parser.parse_args()
    if args.minutes <= 0 or args.batch < 2:
        sys.exit(f"train_dcgan: --minutes {args.minutes} and --batch {args.batch} must be positive (batch >= 2)")

    torch.manual_seed(args.seed)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    device = torch.device("cuda")

    images = torch.from_numpy(load_fashion_mnist(args.data).copy()).to(device)
    print(f"train_dcgan: {images.shape[0]} Fashion-MNIST images on {torch.cuda.get_device_name()}", flush=True)

    generator = dcgan_torch.Generator().to(device)
    generator.init_dcgan()
    discriminator = Discriminator().to(device)
    for module in discriminator.modules():
        if isinstance(module, (nn.Conv2d, nn.Linear)):
            nn.init.normal_(module.weight, 0.0, 0.02)
    opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    bce = nn.BCEWithLogitsLoss()

    def real_batch():
        index = torch.randint(0, images.shape[0], (args.batch,), device=device)
        x = images[index].float().div(127.5).sub(1.0).unsqueeze(1)
        x = F.interpolate(x, size=(64, 64), mode="bilinear", align_corners=False)
        return x.expand(-1, 3, -1, -1).contiguous()

    ones = torch.ones(args.batch, 1, device=device)
    zeros = torch.zeros(args.batch, 1, device=device)
    start, step, history = time.time(), 0, []
    while time.time() - start < args.minutes * 60:
        real = real_batch()
        z = torch.randn(args.batch, dcgan_torch.LATENT, device=device)
        fake = generator(z)
        loss_d = bce(discriminator(real), ones) + bce(discriminator(fake.detach()), zeros)
        opt_d.zero_grad(set_to_none=True)
        loss_d.backward()
        opt_d.step()
        loss_g = bce(discriminator(fake), ones)
        opt_g.zero_grad(set_to_none=True)
        loss_g.backward()
        opt_g.step()
        step += 1
        if step % 500 == 0:
            history.append(
                {
                    "step": step,
                    "seconds": round(time.time() - start, 1),
                    "loss_d": round(loss_d.item(), 4),
                    "loss_g": round(loss_g.item(), 4),
                }
            )
            print(
                f"train_dcgan: step {step} ({history[-1]['seconds']} s) loss D {loss_d.item():.3f} "
                f"G {loss_g.item():.3f}",
                flush=True,
            )

    # Inference-form batch norm needs statistics that match what training normalised with: average
    # them exactly over many generated batches instead of trusting the momentum estimate.
    for norm in generator.norms:
        norm.reset_running_stats()
        norm.momentum = None
    generator.train()
    with torch.no_grad():
        for _ in range(100):
            generator(torch.randn(256, dcgan_torch.LATENT, device=device))
    generator.eval()

    tensors = dcgan_torch.to_tensors(generator)
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    dcgan_torch.write_weights(args.output, tensors, dcgan_torch.FLOAT16)
    log = {
        "device": torch.cuda.get_device_name(),
        "steps": step,
        "batch": args.batch,
        "seed": args.seed,
        "minutes": args.minutes,
        "torch": torch.__version__,
        "history": history,
        "command": " ".join(sys.argv),
    }
    with open(os.path.splitext(args.output)[0] + "_training.json", "w") as f:
        json.dump(log, f, indent=1)
    print(f"train_dcgan: {step} steps; wrote {args.output} ({os.path.getsize(args.output)} bytes)")


if __name__ == "__main__":
    main()
