"""One number per claim: a lab's pages (its handout, its walkthrough, its answer key) quote each timing of a
variant at a problem on a device, its time, rate or share of cuBLAS, from one record only. Two runs of the
same kernel differ by a few percent, so a claim drawn from two records reads as two answers to one question
(`best` at 4096^3 as 97.0 %, 99.8 % and 100.8 % on one page).

  python3 -m cudalabs.docs.claims REPO      one line per claim drawn from two records, exit 1 if any

A claim is one variant's time, rate or share of cuBLAS at a problem on a device, measured on one commit of
the code: (lab, device, variant, problem, commit), drawn from the records under results/ (a record under
history/ is an earlier version of the code, quoted as such). A figure computed from several (a ratio of two
variants in one run) is a relation, not one variant's claim. The placeholders name
their record (render.py: {{ms:V}} and
{{pct:V}} read results/labNN, calc's &RECORD another, {{results}} and {{sweep}} every entry of theirs). The
problem a placeholder leaves out is the record's default (labdata.Results.default_problem).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from cudalabs.paths import answer_key
from cudalabs.records import labdata

PLACEHOLDER = re.compile(r"\{\{([^}]+)\}\}")
TIMING_TERMS = re.compile(r"\b(ms|gflops|pct|counter)\(([^()]*)\)")


class Claims:
    """The claims of one group of pages, each with the records it is drawn from."""

    def __init__(self, data_dir: Path, device: str = labdata.DEFAULT_DEVICE):
        self.data_dir, self.device = Path(data_dir), device
        self.records: dict[str, labdata.Results | None] = {}
        self.drawn: dict[tuple, dict[str, list[str]]] = {}  # claim -> record -> where

    def results(self, record: str, device: str) -> labdata.Results | None:
        key = f"{record}_{device}"
        if key not in self.records:
            path = self.data_dir / f"{key}.json"
            self.records[key] = labdata.Results(path) if path.exists() else None
        return self.records[key]

    def add(self, lab, device, variant, problem, record, where):
        if record.startswith("history/"):
            return  # an earlier version of the code, quoted as such: a claim about that version alone
        results = self.results(record, device)
        if results is None:
            return
        problem = problem or results.default_problem()
        commit = results.context.get("git_commit", "")[:7]
        claim = (lab, device, "cuBLAS" if variant.startswith("cublas") else variant, problem, commit)
        self.drawn.setdefault(claim, {}).setdefault(record, []).append(where)

    def add_record(self, record, lab, device, where):
        results = self.results(record, device)
        if results is None:
            return
        for entry in results.medians:
            problem = entry["run_name"].split("/")[-1]
            self.add(lab, device, results.variant_of(entry["run_name"]), problem, record, where)

    def read(self, text: str, lab: str, name: str) -> None:
        """Adds the claims of one page's source."""
        current = lab
        for number, line in enumerate(text.split("\n"), start=1):
            where = f"{name}:{number}"
            for match in PLACEHOLDER.finditer(line):
                kind, _, arg = match.group(1).partition(":")
                if kind == "lab":
                    current = arg
                elif kind in ("ms", "gflops", "pct"):
                    variant, _, problem = arg.partition("@")
                    self.add(current, self.device, variant, problem, f"results/lab{current}", where)
                elif kind == "calc":
                    terms = TIMING_TERMS.findall(arg.rpartition(":")[0])
                    if len(re.findall(r"\b\w+\(", arg)) > 1:
                        continue  # a relation of several figures (a ratio within a run): not one variant's claim
                    for _, term in terms:
                        target = term.split(",")[0].strip()
                        target, _, record = target.partition("&")
                        target, _, device = target.partition("!")
                        target, _, of_lab = target.partition("#")
                        variant, _, problem = target.partition("@")
                        of_lab = of_lab or current
                        if record.endswith(".txt"):
                            continue  # a driver's log: a record of its own kind, no entries to compare
                        self.add(
                            of_lab, device or self.device, variant, problem, record or f"results/lab{of_lab}", where
                        )
                elif kind == "results":
                    self.add_record(arg or f"results/lab{current}", current, self.device, where)
                elif kind == "sweep":
                    self.add_record(f"results/lab{current}_sweep", current, self.device, where)

    def conflicts(self) -> list[str]:
        out = []
        for (lab, device, variant, problem, commit), records in sorted(self.drawn.items()):
            if len(records) > 1:
                listed = "; ".join(f"{record} ({', '.join(places[:3])})" for record, places in sorted(records.items()))
                out.append(
                    f"lab {lab}, {variant} at {problem} on {device} (commit {commit}): drawn from {len(records)} "
                    f"records: {listed}"
                )
        return out


def lab_pages(repo: Path) -> dict[str, list[Path]]:
    """Lab -> the sources of its pages: the handout, the walkthrough and the answer key."""
    groups = {}
    for handout in sorted((repo / "docs" / "handouts").glob("[0-9][0-9]_*.md")):
        number = handout.name[:2]
        groups[number] = [
            path
            for path in (
                handout,
                repo / "docs" / "walkthroughs" / f"lab{number}.md",
                repo / answer_key(handout.stem),
            )
            if path.exists()
        ]
    return groups


def problems(repo: Path, device: str = labdata.DEFAULT_DEVICE) -> list[str]:
    found = []
    for lab, paths in lab_pages(repo).items():
        claims = Claims(repo / "docs" / "data", device)
        for path in paths:
            claims.read(path.read_text(), lab, str(path.relative_to(repo)))
        found += claims.conflicts()
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    found = problems(Path(argv[1]).resolve())
    for problem in found:
        print(f"claims: {problem}", file=sys.stderr)
    if not found:
        print("claims: every timing a lab's pages quote comes from one record")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
