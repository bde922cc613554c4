"""Lab 13's steps past the ladder as lab13_attention_steps records them (solutions/13_attention/
attention_steps_main.cpp, --output FILE): one entry a row and problem (`row`, `improves`, `problem`, `check`,
`gflops`, `registers`, `blocks_per_sm`, the medians of interleaved rounds), and PyTorch's SDPA timed in the
same run in a record of its own beside it (`pytorch_<backend>/<problem>` medians, `pytorch_best` the fastest).

The pair is named by a rule: results/lab13_attention_steps[_TAG]_<device>.json is timed beside
results/lab13_steps[_TAG]_pytorch_<device>.json (docs/data/README.md lists both of each run).
Every figure is the run's own: a row's rate over SDPA's in the same run, never across runs.
"""
from __future__ import annotations

import json
import pathlib
import re

from cudalabs.records.labdata import markdown_table

STEPS_STEM = "lab13_attention_steps"
SDPA_BACKENDS = {"flash": "FlashAttention-2", "efficient": "memory-efficient", "cudnn": "cuDNN", "math": "math"}
GOAL = 0.90  # issue 55: each Hopper step at 0.90 of SDPA's best backend, the mma.sync core at 0.90 of flash


def pytorch_record_of(record: str) -> str:
    """results/lab13_attention_steps_ws -> results/lab13_steps_ws_pytorch (the SDPA record of the same run)."""
    folder, _, name = record.rpartition("/")
    if not name.startswith(STEPS_STEM):
        raise KeyError(f"attention steps: {record} is not a {STEPS_STEM} record")
    tag = name[len(STEPS_STEM) :]
    return f"{folder + '/' if folder else ''}lab13_steps{tag}_pytorch"


def problem_heading(problem: str) -> str:
    """b4h16s4096d128_causal -> "s4096 causal" (the batch, heads and head_dim are the table's caption)."""
    match = re.fullmatch(r"b\d+h\d+s(\d+)d\d+(_causal)?", problem)
    if not match:
        raise KeyError(f"attention steps: '{problem}' is not an attention problem")
    return f"s{match[1]}" + (" causal" if match[2] else "")


class StepsRun:
    """One run of lab13_attention_steps and PyTorch's SDPA beside it."""

    def __init__(self, data_dir: pathlib.Path | str, record: str, device: str):
        data = pathlib.Path(data_dir)
        self.record = record
        self.path = data / f"{record}_{device}.json"
        self.pytorch_path = data / f"{pytorch_record_of(record)}_{device}.json"
        for path in (self.path, self.pytorch_path):
            if not path.exists():
                raise KeyError(f"attention steps: no record {path}")
        steps = json.loads(self.path.read_text())
        self.context = steps["context"]
        self.entries = {(b["row"], b["problem"]): b for b in steps["benchmarks"]}
        self.rows = list(dict.fromkeys(b["row"] for b in steps["benchmarks"]))
        self.problems = list(dict.fromkeys(b["problem"] for b in steps["benchmarks"]))
        pytorch = json.loads(self.pytorch_path.read_text())
        self.sdpa = {
            tuple(b["run_name"].removeprefix("pytorch_").split("/", 1)): float(b["gflops"])
            for b in pytorch["benchmarks"]
            if b.get("aggregate_name", "median") == "median" and "gflops" in b
        }

    def entry(self, row: str, problem: str) -> dict:
        entry = self.entries.get((row, problem))
        if entry is None:
            raise KeyError(f"{self.path.name}: no row {row} at {problem}")
        if entry["check"] != "PASS":
            raise KeyError(f"{self.path.name}: {row} at {problem} did not pass its check ({entry['check']})")
        return entry

    def gflops(self, row: str, problem: str) -> float:
        """A row's GFLOP/s; sdpa_BACKEND (sdpa_best: the fastest) is PyTorch's of the same run."""
        if row.startswith("sdpa_"):
            key = (row.removeprefix("sdpa_"), problem)
            if key not in self.sdpa:
                raise KeyError(f"{self.pytorch_path.name}: no {row} at {problem}")
            return self.sdpa[key]
        return float(self.entry(row, problem)["gflops"])

    def ratio(self, row: str, problem: str, backend: str = "best") -> float:
        """A row's rate over SDPA's `backend` (best: its fastest) in the same run."""
        return self.gflops(row, problem) / self.gflops(f"sdpa_{backend}", problem)

    def improved(self, row: str, problem: str) -> float:
        """A row's rate over the row it improves, in the same run."""
        improves = self.entry(row, problem)["improves"]
        if not improves:
            raise KeyError(f"{self.path.name}: {row} improves no row (a rung of the ladder)")
        return self.gflops(row, problem) / self.gflops(improves, problem)

    def best_backend(self, problem: str) -> str:
        best = self.gflops("sdpa_best", problem)
        return next(name for key, name in SDPA_BACKENDS.items() if self.sdpa.get((key, problem)) == best)

    def note(self) -> str:
        c = self.context
        command = re.sub(r"<outside>/(?:\S*/)?", "", c["command"])
        # Records from before --settle-ms timed each row straight after the one before it.
        settled = (
            f", each row and each SDPA backend run untimed for {c['settle_ms']} ms before its measurements"
            if c.get("settle_ms")
            else ""
        )
        return (
            f"_{c['device']}, {c['date'][:10]}, commit {c['git_commit'][:7]}, `{command}`; PyTorch's SDPA in the "
            f"same run (`docs/data/{self.pytorch_path.parent.name}/{self.pytorch_path.name}`); every row checked "
            f"first, medians of {c['repetitions']} interleaved rounds{settled}._"
        )

    def table(self) -> str:
        """A row per step, a column per problem: TFLOP/s and, in brackets, the rate over SDPA's best backend in
        the same run, in bold where it meets the goal; SDPA's best backend last."""

        def cell(row, problem):
            if (row, problem) not in self.entries:
                return "-"
            ratio = self.ratio(row, problem)
            text = f"{ratio:.2f}" if ratio >= GOAL or round(ratio, 2) < GOAL else f"{ratio:.3f}"
            return f"{self.gflops(row, problem) / 1000:.0f} ({f'**{text}**' if ratio >= GOAL else text})"

        def improves(row):
            name = next(b["improves"] for (r, _), b in self.entries.items() if r == row)
            return f"`{name}`" if name else "-"

        rows = [[f"`{row}`", improves(row)] + [cell(row, p) for p in self.problems] for row in self.rows]
        rows.append(
            ["SDPA's best", "-"]
            + [f"{self.gflops('sdpa_best', p) / 1000:.0f} ({self.best_backend(p)})" for p in self.problems]
        )
        return markdown_table(["step", "improves"] + [problem_heading(p) for p in self.problems], rows)
