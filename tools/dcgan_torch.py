"""The DCGAN generator of lab 09 as a torch.nn model, and the suite's weights and latent files.

The model computes exactly what common/dcgan_model.h documents, so that it can serve as an
independent reference for the CUDA kernels:

- linear 100 -> 8192, read as a 4 x 4 x 512 image in H x W x C order (TensorFlow's layout), then
  permuted to PyTorch's N x C x H x W;
- each transposed convolution is ConvTranspose2d(kernel 5, stride 2, padding 1) followed by dropping
  the last row and column: torch computes out[x] = sum in[i] * w[r] over x = 2 i - 1 + r, which is
  the suite's in[(x + 1 - r) / 2] * filter[r], on a (2H + 1)-wide output whose extra row is the
  'SAME' convention's missing one;
- filters: suite [R][S][K][C]  <->  torch [C][K][R][S] (permute 3, 2, 0, 1 and back);
- batch norm in inference form with the stored statistics, epsilon 1e-5.
"""
import struct

import numpy as np
import torch
from torch import nn

LATENT = 100
CHANNELS = [512, 256, 128, 64, 3]
EPSILON = 1e-5
WEIGHTS_MAGIC = b"CLDCGANW"
LATENTS_MAGIC = b"CLDCGANZ"
FLOAT32, FLOAT16 = 1, 2


def tensor_table():
    """(name, shape) of every tensor, in file order: the same list as dcgan::generator_tensors()."""
    table = [("linear.weight", (LATENT, 4 * 4 * 512)), ("linear.bias", (4 * 4 * 512,))]

    def batch_norm(prefix, channels):
        return [(f"{prefix}.{part}", (channels,)) for part in ("scale", "offset", "mean", "variance")]

    table += batch_norm("bn0", 512)
    for layer in range(1, 5):
        k, c = CHANNELS[layer], CHANNELS[layer - 1]
        table += [(f"tconv{layer}.filter", (5, 5, k, c)), (f"tconv{layer}.bias", (k,))]
        if layer < 4:
            table += batch_norm(f"bn{layer}", k)
    return table


class SameTransposedConv(nn.Module):
    """5 x 5, stride 2, 'SAME' transposed convolution: output exactly twice the input."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.ConvTranspose2d(in_channels, out_channels, 5, stride=2, padding=1)

    def forward(self, x):
        return self.conv(x)[:, :, :-1, :-1]


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(LATENT, 4 * 4 * 512)
        self.norms = nn.ModuleList([nn.BatchNorm2d(c, eps=EPSILON) for c in CHANNELS[:4]])
        self.tconvs = nn.ModuleList([SameTransposedConv(CHANNELS[i], CHANNELS[i + 1]) for i in range(4)])

    def forward(self, z):
        x = self.linear(z).view(-1, 4, 4, 512).permute(0, 3, 1, 2)
        x = torch.relu(self.norms[0](x))
        for layer in range(4):
            x = self.tconvs[layer](x)
            x = torch.relu(self.norms[layer + 1](x)) if layer < 3 else torch.tanh(x)
        return x  # N x 3 x 64 x 64

    def init_dcgan(self):
        """DCGAN's initialisation: weights from N(0, 0.02), batch-norm scales from N(1, 0.02)."""
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.ConvTranspose2d)):
                nn.init.normal_(module.weight, 0.0, 0.02)
                nn.init.zeros_(module.bias)
            elif isinstance(module, nn.BatchNorm2d):
                nn.init.normal_(module.weight, 1.0, 0.02)
                nn.init.zeros_(module.bias)


def to_tensors(model):
    """The model's parameters as {name: numpy float32 array in the suite's layout}."""
    out = {
        "linear.weight": model.linear.weight.detach().t(),
        "linear.bias": model.linear.bias.detach(),
    }
    for index, norm in enumerate(model.norms):
        out[f"bn{index}.scale"] = norm.weight.detach()
        out[f"bn{index}.offset"] = norm.bias.detach()
        out[f"bn{index}.mean"] = norm.running_mean.detach()
        out[f"bn{index}.variance"] = norm.running_var.detach()
    for index, tconv in enumerate(model.tconvs, start=1):
        out[f"tconv{index}.filter"] = tconv.conv.weight.detach().permute(2, 3, 1, 0)
        out[f"tconv{index}.bias"] = tconv.conv.bias.detach()
    return {name: value.float().cpu().contiguous().numpy() for name, value in out.items()}


def from_tensors(tensors, device="cpu"):
    """A Generator in eval mode holding `tensors` (suite layout, as read_weights returns)."""
    model = Generator()
    with torch.no_grad():
        t = {name: torch.from_numpy(np.ascontiguousarray(value)) for name, value in tensors.items()}
        model.linear.weight.copy_(t["linear.weight"].t())
        model.linear.bias.copy_(t["linear.bias"])
        for index, norm in enumerate(model.norms):
            norm.weight.copy_(t[f"bn{index}.scale"])
            norm.bias.copy_(t[f"bn{index}.offset"])
            norm.running_mean.copy_(t[f"bn{index}.mean"])
            norm.running_var.copy_(t[f"bn{index}.variance"])
        for index, tconv in enumerate(model.tconvs, start=1):
            tconv.conv.weight.copy_(t[f"tconv{index}.filter"].permute(3, 2, 0, 1))
            tconv.conv.bias.copy_(t[f"tconv{index}.bias"])
    return model.to(device).eval()


def write_weights(path, tensors, precision=FLOAT32):
    table = tensor_table()
    dtype = "<f4" if precision == FLOAT32 else "<f2"
    with open(path, "wb") as f:
        f.write(WEIGHTS_MAGIC + struct.pack("<3I", 1, precision, len(table)))
        for name, shape in table:
            f.write(struct.pack("<I", len(name)) + name.encode("ascii"))
            f.write(struct.pack(f"<{len(shape) + 1}I", len(shape), *shape))
        for name, shape in table:
            value = np.asarray(tensors[name], dtype=np.float32)
            assert value.shape == shape, f"{name}: shape {value.shape}, expected {shape}"
            f.write(value.astype(dtype).tobytes())


def read_weights(path):
    with open(path, "rb") as f:
        assert f.read(8) == WEIGHTS_MAGIC, f"{path}: not a weights file"
        version, precision, count = struct.unpack("<3I", f.read(12))
        assert version == 1 and precision in (FLOAT32, FLOAT16), f"{path}: version {version} type {precision}"
        shapes = []
        for _ in range(count):
            (length,) = struct.unpack("<I", f.read(4))
            name = f.read(length).decode("ascii")
            (rank,) = struct.unpack("<I", f.read(4))
            shapes.append((name, struct.unpack(f"<{rank}I", f.read(4 * rank))))
        data = np.frombuffer(f.read(), "<f4" if precision == FLOAT32 else "<f2").astype(np.float32)
    tensors, offset = {}, 0
    for name, shape in shapes:
        size = int(np.prod(shape))
        tensors[name] = data[offset : offset + size].reshape(shape)
        offset += size
    assert offset == data.size, f"{path}: {data.size - offset} extra elements"
    return tensors


def write_latents(path, z):
    z = np.asarray(z, dtype=np.float32)
    with open(path, "wb") as f:
        f.write(LATENTS_MAGIC + struct.pack("<3I", 1, z.shape[0], LATENT) + z.astype("<f4").tobytes())


def read_latents(path):
    with open(path, "rb") as f:
        assert f.read(8) == LATENTS_MAGIC, f"{path}: not a latent file"
        version, count, dim = struct.unpack("<3I", f.read(12))
        assert version == 1 and dim == LATENT
        return np.frombuffer(f.read(), "<f4").reshape(count, LATENT).copy()


def read_images(path):
    """The raw output of `dcgan --raw`: header 'CLDCGANI', u32 version, u32 count, u32 64, u32 64,
    u32 3, then count x 64 x 64 x 3 float32 (H x W x C per image)."""
    with open(path, "rb") as f:
        assert f.read(8) == b"CLDCGANI", f"{path}: not an image file"
        version, count, height, width, channels = struct.unpack("<5I", f.read(20))
        return np.frombuffer(f.read(), "<f4").reshape(count, height, width, channels).copy()
