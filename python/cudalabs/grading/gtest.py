"""GoogleTest results: the XML report of a grading binary, or its console output when it died before
writing one."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

NOT_IMPLEMENTED = "not implemented yet"


@dataclass
class TestOutcome:
    name: str  # "Suite.Test", as --gtest_filter spells it
    status: str  # passed | failed | not_implemented | skipped
    message: str = ""
    seconds: float = 0.0

    @property
    def case(self) -> str:
        """The part after the suite: the shape for GEMM grading tests ('odd_17x33x65'). Suites may hold
        dots ('Grading.tiled'), test names do not."""
        return self.name.rsplit(".", 1)[-1]


_WHERE = re.compile(r"^\S+:\d+$")  # "tests/labs/lab10_grading_test.cpp:135", GoogleTest's location line


def finding(text: str, width: int | None = None) -> str:
    """The line of a GoogleTest message that says what the check found. GoogleTest starts a failure
    with its location and the failed assertion ("Expected equality of these values: ...") and ends it
    with the test's own streamed message, so the last line that is not a bare location is the one;
    `width` shortens it."""
    lines = [row.strip() for row in text.splitlines() if row.strip() and not _WHERE.match(row.strip())]
    line = lines[-1] if lines else ""
    return line if width is None or len(line) <= width else line[: width - 3] + "..."


def parse_xml(path: Path) -> list[TestOutcome]:
    """Every test that ran, from --gtest_output=xml:PATH."""
    root = ElementTree.parse(path).getroot()
    outcomes = []
    for case in root.iter("testcase"):
        if case.get("status") == "notrun":
            continue
        name = f"{case.get('classname')}.{case.get('name')}"
        seconds = float(case.get("time", "0") or 0)
        failures = case.findall("failure") + case.findall("error")
        skipped = case.find("skipped")
        if failures:
            text = "\n".join((f.get("message") or f.text or "") for f in failures)
            outcomes.append(TestOutcome(name, "failed", text.strip(), seconds))
        elif skipped is not None or case.get("result") == "skipped":
            text = (
                (skipped.get("message") if skipped is not None else "")
                or (skipped.text if skipped is not None else "")
                or ""
            )
            status = "not_implemented" if NOT_IMPLEMENTED in text else "skipped"
            outcomes.append(TestOutcome(name, status, finding(text), seconds))
        else:
            outcomes.append(TestOutcome(name, "passed", "", seconds))
    return outcomes


_RUN = re.compile(r"^\[ RUN      \] (\S+)")
_DONE = re.compile(r"^\[ +(OK|FAILED|SKIPPED) +\] (\S+)")


def test_running_at_exit(console: str) -> str | None:
    """The test that had started and not finished when the output stopped (a crash or a hang)."""
    running = None
    for line in console.splitlines():
        if match := _RUN.match(line):
            running = match.group(1)
        elif (match := _DONE.match(line)) and match.group(2) == running:
            running = None
    return running


def list_tests(listing: str) -> list[str]:
    """Full names from --gtest_list_tests output ('Suite.' lines, then indented test names)."""
    names, suite = [], None
    for line in listing.splitlines():
        if not line.strip() or line.startswith("Running main()"):
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        elif suite is not None:
            names.append(suite + line.split("#")[0].strip())
    return names
