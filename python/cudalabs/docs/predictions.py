"""Predictions kept open: a handout asks for a prediction ("Predict first") before it measures, so no
measured figure of the lab may stand where the student reads it before predicting. Every placeholder that
reads a measurement of the handout's own lab (or of a later one) lies inside a fold whose summary says
"open after you have filled in Predict first"; a lab's walkthrough, which measures throughout, is a page
of its own on the site. A figure of an earlier lab is the student's own past result and may stand open.

  python3 -m cudalabs.docs.predictions REPO      one line per measured figure left open, exit 1 if any

The rule reads the sources (docs/handouts/, the progression table, the site's main page): what a
placeholder measures is known from its kind and its arguments, before any record is read, so the check
needs no data and no build.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

FOLD_SUMMARY = "open after you have filled in Predict first"
FOLD_OPEN = "<details>\n<summary>{what}: " + FOLD_SUMMARY + "</summary>\n"

# Placeholder kinds that show no measurement: constants and quotations, the lab switch, the hours, the code's
# diff, the edition, a command that runs the solution, the rubric's tables, a record's provenance, a
# measurement not made yet, the course's map.
NOT_MEASURED = {
    "const",
    "quote",
    "lab",
    "effort",
    "diff",
    "edition",
    "edition_commands",
    "solution_run",  # a command line in the instructors' edition, "compare with Measured" in the release
    "rubric_points",
    "rubric_total",
    "rubric_labs",
    "technique_rules",
    "lab_effort",
    "read_more_lists",
    "bad_input_tests",
    "run_of",
    "record_note",
    "pending",
    "course_map",  # the main README's table, itself checked as the progression table
    "semester_plan",
}
# Pictures drawn from the code's constants alone (diagrams.py), which measure nothing.
DRAWN_FROM_CODE = {
    "lab02_tiles.svg",
    "lab05_tiles.svg",
    "lab07_tiles.svg",
    "lab06_pipeline.svg",
    "lab09_taps.svg",
    "lab10_mpi_flow.svg",
    "lab11_layouts.svg",
    "lab11_warpgroups.svg",
    "lab13_tile_loop.svg",
}
# Records of how the lab was set up, not of what its kernels do (lab 09's training of its weights).
SETUP_RECORDS = {"dcgan/fashion_mnist_training.json"}
# The kinds that read one fixed lab's records, whatever page they stand on.
FIXED_LAB = {
    "ceiling": "00",
    "coarsening": "08",
    "coarsening_factor": "08",
    "coarsening_speedup": "08",
    "multigpu": "10",
    "tuning": "09",
}
PLACEHOLDER = re.compile(r"\{\{([^}]+)\}\}")
LAB_IN_NAME = re.compile(r"lab(\d\d)")


def labs_read(kind: str, arg: str, current: str) -> set[str]:
    """The labs whose measurements one placeholder shows (empty: it shows none)."""
    if kind in NOT_MEASURED:
        return set()
    if kind == "plot":
        if arg in DRAWN_FROM_CODE:
            return set()
        named = LAB_IN_NAME.search(arg)
        return {named.group(1) if named else current}
    if kind in FIXED_LAB:
        return {FIXED_LAB[kind]}
    if kind.startswith("fastest"):
        return {arg}
    if kind in ("record", "json", "sass"):
        if arg.split(":")[0] in SETUP_RECORDS:
            return set()
        named = LAB_IN_NAME.search(arg.split(":")[0])
        return {named.group(1) if named else current}
    if kind == "calc":
        labs = set()
        for term in re.findall(r"\b\w+\(([^()]*)\)", arg):
            target = term.split(",")[0]
            explicit = re.search(r"#(\d\d)", target) or LAB_IN_NAME.search(target.partition("&")[2])
            if "trace_" in arg and LAB_IN_NAME.search(target):
                explicit = LAB_IN_NAME.search(target)
            labs.add(explicit.group(1) if explicit else current)
        return labs
    return {current}


def folds(lines: list[str]) -> list[bool]:
    """Per line: whether it lies inside a prediction fold (a <details> whose summary is FOLD_SUMMARY's)."""
    inside, depth, out = [], 0, []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("<details"):
            summary = stripped + (lines[index + 1] if index + 1 < len(lines) else "")
            inside.append(FOLD_SUMMARY.lower() in summary.lower())
            depth += 1
        out.append(any(inside))
        if stripped == "</details>" and inside:
            inside.pop()
            depth -= 1
    return out


def open_answers(text: str, lab: str) -> list[tuple[int, str]]:
    """(line number, placeholder) of every measurement of `lab` or a later lab that stands outside a
    prediction fold."""
    lines = text.split("\n")
    folded = folds(lines)
    current, found = lab, []
    for number, line in enumerate(lines, start=1):
        for match in PLACEHOLDER.finditer(line):
            kind, _, arg = match.group(1).partition(":")
            if kind == "lab":
                current = arg
                continue
            if folded[number - 1]:  # placeholders in code blocks are filled in too: only a fold hides them
                continue
            if any(read >= lab for read in labs_read(kind, arg, current)):
                found.append((number, match.group(0)))
    return found


def pages(repo: Path) -> list[tuple[str, str, str]]:
    """The sources a student may read before predicting, each as (name, text, the lab it belongs to): every
    handout, the main README's progression table (from every lab.json) and the site's main page (lab 00:
    they come before every lab)."""
    from cudalabs.docs import handouts

    listed = [
        (path.relative_to(repo).as_posix(), path.read_text(), path.name[:2])
        for path in sorted((repo / "docs" / "handouts").glob("[0-9][0-9]_*.md"))
    ]
    listed.append(("the progression table (labs/NN_name/lab.json)", handouts.progression_table(repo), "00"))
    mainpage = repo / "docs" / "pages" / "mainpage.md"
    if mainpage.exists():
        listed.append((mainpage.relative_to(repo).as_posix(), mainpage.read_text(), "00"))
    return listed


def problems(repo: Path) -> list[str]:
    return [
        f"{name}:{line}: {placeholder} shows a measurement of the lab before the student "
        f"predicts: put it inside a fold (<summary>...: {FOLD_SUMMARY}</summary>)"
        for name, text, lab in pages(repo)
        for line, placeholder in open_answers(text, lab)
    ]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    found = problems(Path(argv[1]).resolve())
    for problem in found:
        print(f"predictions: {problem}", file=sys.stderr)
    if not found:
        print(f"predictions: {len(pages(Path(argv[1])))} pages, every measured answer behind its prediction")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
