"""Runs every test of one GoogleTest program in one process and writes each test's result to a file of
its own, which that test's ctest entry prints (cmake/GTestAddDiscovered.cmake). Used where no GPU is
present: a GPU program's tests then skip, and starting the program once per test (it loads cuBLAS)
would cost far more than the tests do. Each test still passes, fails or is skipped on its own result.

  python3 gtest_batch.py PROGRAM RESULTS_DIR TIMEOUT_SECONDS
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path


def listed_tests(listing: str) -> list[str]:
    """The names --gtest_list_tests prints, as Suite.test (parameter comments dropped)."""
    names, suite = [], ""
    for line in listing.splitlines():
        line = line.split("  #")[0].rstrip()
        if line and not line.startswith(" ") and line.endswith("."):
            suite = line[:-1]
        elif line.startswith("  ") and suite and " " not in line.strip():
            names.append(f"{suite}.{line.strip()}")
    return names


def result_file(results: Path, test: str) -> Path:
    """The file of one test's result: its name with '%' and '/' (parameterized tests) escaped, as the
    CMake side escapes it."""
    return results / (test.replace("%", "%25").replace("/", "%2F") + ".txt")


def result_text(case: ElementTree.Element | None, test: str, program: str, status: int) -> str:
    alone = f"run it alone: {program} --gtest_filter={test}"
    if case is None:
        return (f"[  FAILED  ] {test}: no result: {program} stopped (exit status {status}) before this test "
                f"finished, with its others in one process (output.txt beside this file); {alone}\n")
    seconds = case.get("time", "0")
    skipped, failures = case.find("skipped"), case.findall("failure")
    if failures:
        messages = "\n".join(f.get("message", "") for f in failures)
        return f"[ RUN      ] {test}\n{messages}\n[  FAILED  ] {test} ({seconds} s; {alone})\n"
    if skipped is not None:
        where, _, reason = skipped.get("message", "").partition("\n")
        return f"[ RUN      ] {test}\n{where}: Skipped\n{reason}\n[  SKIPPED ] {test} ({seconds} s)\n"
    return f"[ RUN      ] {test}\n[       OK ] {test} ({seconds} s, with its program's other tests in one process)\n"


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print("usage: python3 gtest_batch.py PROGRAM RESULTS_DIR TIMEOUT_SECONDS", file=sys.stderr)
        return 2
    program, results, timeout = argv[1], Path(argv[2]), float(argv[3])
    shutil.rmtree(results, ignore_errors=True)  # never a result of an earlier run
    results.mkdir(parents=True)
    listing = subprocess.run([program, "--gtest_list_tests"], capture_output=True, text=True, timeout=60)
    tests = listed_tests(listing.stdout)
    report = results / "all.xml"
    try:
        run = subprocess.run([program, f"--gtest_output=xml:{report}"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, errors="replace", timeout=timeout)
        status, output = run.returncode, run.stdout
    except subprocess.TimeoutExpired as expired:
        status, output = f"timed out after {timeout:g} s", (expired.stdout or b"").decode(errors="replace")
    (results / "output.txt").write_text(output)
    cases = {}
    if report.is_file():
        for case in ElementTree.parse(report).getroot().iter("testcase"):
            cases[f"{case.get('classname')}.{case.get('name')}"] = case
    for test in tests:
        result_file(results, test).write_text(result_text(cases.get(test), test, program, status))
    print(f"{program}: {len(tests)} tests in one process, exit status {status}; "
          f"{len(cases)} results in {results}")
    if not report.is_file():
        print(output[-4000:])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
