#!/usr/bin/env python3
"""The bench's tables against this GPU's ceilings measured in the same call: the generators against
PyTorch's best at each precision, each layer against its floor, PyTorch's configurations.

Usage (from the repository's root, the package on the path):
  PYTHONPATH=python python3 tables.py CALL_DIR COMMIT > CALL_DIR/bench/tables.md
CALL_DIR holds bench/lab11_dcgan_nvidia-h200.json, lab00/lab00_nvidia-h200.json and
lab11_ceiling.txt; they are laid out in a scratch docs/data as python/cudalabs/docs reads it.
"""
import pathlib
import shutil
import sys
import tempfile

from cudalabs.docs import dcgan_tables

DEVICE = "nvidia-h200"


def main(call, commit):
    call = pathlib.Path(call)
    with tempfile.TemporaryDirectory() as scratch:
        data = pathlib.Path(scratch)
        (data / "results").mkdir()
        (data / "logs").mkdir()
        shutil.copy(call / "bench" / f"lab11_dcgan_{DEVICE}.json", data / "results")
        shutil.copy(call / "lab00" / f"lab00_{DEVICE}.json", data / "results")
        ceiling = (call / "lab11_ceiling.txt").read_text()
        date = dcgan_tables.Record.load(data / "results" / f"lab00_{DEVICE}.json").context["date"][:10]
        (data / "logs" / f"lab11_ceiling_{DEVICE}.txt").write_text(f"# H200 ({DEVICE}), {date}, commit {commit}\n" + ceiling)
        text = "\n\n".join(
            [
                dcgan_tables.tensor_cores(data, DEVICE),
                dcgan_tables.tensor_core_layers(data, DEVICE, "5248"),
                dcgan_tables.pytorch_configs(data, DEVICE),
            ]
        )
    print(text.replace(f"docs/data/logs/lab11_ceiling_{DEVICE}.txt", f"this record's {call.name}/lab11_ceiling.txt"))


if __name__ == "__main__":
    main(*sys.argv[1:])
