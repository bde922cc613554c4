"""Every figure in the docs' prose comes from a record: the check that fails on one that does not.

A figure-like number (a number with a unit: ms, GFLOP/s, GB, %, x, ...; a decimal; a number with
thousands separators; a count out of a count, "38 of 38") in a handout source (docs/handouts/; the labs'
README.md files are rendered from them), walkthrough, answer key or page (its source under
docs/page_sources/ where it has one) must come from a placeholder of
the generator ({{ms:...}}, {{calc:...}}, {{metric:...}}, ...: cudalabs.docs.generate), or be marked as
a figure quoted from a source ({{quote:...}}) or a constant ({{const:...}}). Code spans and blocks,
headings' anchors and link targets are not prose.

  python3 -m cudalabs.docs.check_numbers REPO      one line per unbacked number, exit 1 when there is one

Pages whose figures are still written by hand are listed in python/cudalabs/docs/numbers_pending.txt while
they are converted: their count is reported, not failed, and a listed page that has become clean must be
taken off the list (the check fails until it is), so the list only shrinks.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from cudalabs.docs import handouts
from cudalabs.paths import answer_key

UNITS = (
    r"ms|µs|us|ns|s|GFLOP/s|TFLOP/s|GB/s|TB/s|GB|MB|KB|KiB|MiB|GiB|TiB|%|images/s|FLOP/byte|"
    r"FLOP per byte|cycles|GHz|MHz|bytes|B|million|billion"
)
UNIT = r"(?:\s?(?:" + UNITS + r")|x)(?![\w/])"  # "2.4x" is a ratio; "32 x 32" is a shape
FIGURE = re.compile(
    r"(?<![\w.$#@/\\-])"  # not inside a word, a path, a version or a flag
    r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?"  # 1,234 or 1,234.5
    r"|\d+\.\d+"  # 2.5
    r"|\d+(?=" + UNIT + r"))"  # 12 ms, 40 %, 3x
    r"(?:" + UNIT + r")?"
)
# A count out of a count ("322 of 322", "38 of 38 shapes") states a result as surely as a figure with a unit.
COUNT_OF = re.compile(r"(?<![\w.$#@/\\-])\d{2,}(?:,\d{3})* of \d{2,}(?:,\d{3})*\b")
PLACEHOLDER = re.compile(r"\{\{[^}]*\}\}")
CODE_SPAN = re.compile(r"`[^`]*`")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
ANCHOR = re.compile(r"\{#[\w-]+\}")
SECTION = re.compile(r"§\s?\d+(?:\.\d+)*|\beqs?\.\s?\d+(?:-\d+)?|\b[Tt]ables? \d+(?:\.\d+)?|\bv\d+(?:\.\d+)+")


def sources(repo: Path) -> list[Path]:
    return (
        sorted(repo.glob("docs/handouts/*.md"))
        + sorted(repo.glob("docs/walkthroughs/*.md"))
        + sorted(repo.glob(answer_key("[0-9][0-9]_*").as_posix()))
        + sorted(source for source in handouts.site_pages(repo).values())
    )


# An integer number of bytes (4 bytes, 48 KiB, 1 GiB) is a size the code or the hardware fixes, not a
# measurement; a measured size has decimals (32.9 GB) and is checked.
SIZE = re.compile(r"^\d+\s?(?:bytes|B|KB|MB|GB|KiB|MiB|GiB|TiB)$")


def unbacked(text: str) -> list[tuple[int, str]]:
    """(line number, figure) of every figure-like number in prose that no placeholder gives."""
    found, fenced = [], False
    for number, line in enumerate(text.splitlines(), start=1):
        # Code blocks, and raw HTML for the site (\htmlonly: markup and scripts, not prose).
        if line.lstrip().startswith(("```", "~~~", "\\htmlonly", "\\endhtmlonly")):
            fenced = not fenced
            continue
        if fenced or line.startswith("    ") and not line.lstrip().startswith(("-", "|", "*")):
            continue
        prose = line
        for pattern in (PLACEHOLDER, CODE_SPAN, LINK_TARGET, ANCHOR, SECTION):
            prose = pattern.sub(" ", prose)
        found += [(number, match.group(0).strip()) for match in COUNT_OF.finditer(prose)]
        prose = COUNT_OF.sub(" ", prose)
        found += [
            (number, match.group(0).strip())
            for match in FIGURE.finditer(prose)
            if not SIZE.match(match.group(0).strip())
        ]
    return found


def pending(repo: Path) -> set[str]:
    listing = repo / "python" / "cudalabs" / "docs" / "numbers_pending.txt"
    if not listing.exists():
        return set()
    return {line.strip() for line in listing.read_text().splitlines() if line.strip() and not line.startswith("#")}


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: python3 -m cudalabs.docs.check_numbers REPO", file=sys.stderr)
        return 2
    repo = Path(sys.argv[1]).resolve()
    waiting = pending(repo)
    failures, waiting_counts = [], {}
    for path in sources(repo):
        name = str(path.relative_to(repo))
        found = unbacked(path.read_text())
        if name in waiting:
            waiting_counts[name] = len(found)
            if not found:
                failures.append(
                    f"{name} has no hand-written figure left: take it off python/cudalabs/docs/numbers_pending.txt"
                )
            continue
        failures += [
            f"no record backs {name}:{line}: '{figure}' (use a placeholder, or mark it "
            f"{{{{quote:...}}}} or {{{{const:...}}}})"
            for line, figure in found
        ]
    for failure in failures:
        print(f"check_numbers: {failure}")
    left = sum(waiting_counts.values())
    print(
        f"check_numbers: {len(sources(repo)) - len(waiting_counts)} pages checked, "
        f"{len(failures)} problems; {len(waiting_counts)} pages still being converted ({left} figures by hand)"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
