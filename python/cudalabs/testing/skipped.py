"""Why tests were skipped: one line per reason, read from ctest's JUnit report (ctest --output-junit).

ctest marks a test skipped and says no more ("***Skipped"); the reason is in the test's own output: the
line after GoogleTest's "Skipped" (GTEST_SKIP() << reason), or the last line a skipped program printed.
A variant's own name before the reason ("rt_2d: not implemented yet") is left out, so that one reason
is one line however many variants share it.

  python3 -m cudalabs.testing.skipped JUNIT_XML
"""
from __future__ import annotations

import collections
import re
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

GTEST_SKIP = re.compile(r": Skipped\n(?P<reason>[^\n]+)")
NAMED = re.compile(r"^[A-Za-z_][\w.\-]*: (?P<rest>.+)$")
NOISE = re.compile(r"^(\[[ =A-Z-]+\]|Running main\(\)|Note: |OK \(|Ran \d+ test|-{10,})")


def reason_of(output: str, fallback: str) -> str:
    """The reason a skipped test gave in its output."""
    match = GTEST_SKIP.search(output)
    if match:
        reason = match.group("reason").strip()
    else:
        lines = [line.strip() for line in output.splitlines() if line.strip() and not NOISE.match(line.strip())]
        reason = lines[-1] if lines else fallback
    named = NAMED.match(reason)
    return named.group("rest") if named else reason


def skipped_reasons(junit: Path) -> collections.Counter:
    """How many tests were skipped for each reason."""
    reasons = collections.Counter()
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        skipped = case.find("skipped")
        if skipped is None:
            continue
        output = case.findtext("system-out") or ""
        reasons[reason_of(output, skipped.get("message", "no reason given"))] += 1
    return reasons


def summary_lines(reasons: collections.Counter) -> list[str]:
    return [f"{count:,} skipped: {reason}" for reason, count in sorted(reasons.items(), key=lambda r: (-r[1], r[0]))]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python3 -m cudalabs.testing.skipped JUNIT_XML", file=sys.stderr)
        return 2
    junit = Path(argv[1])
    if not junit.is_file():
        print(f"skipped: no ctest report at {junit}", file=sys.stderr)
        return 2
    for line in summary_lines(skipped_reasons(junit)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
