#!/usr/bin/env python3
"""The reliability page's bad-input table (cudalabs.docs.reliability) lists every command-line test of
tests/cli/CliTests.cmake that expects one line on stderr, each with a command, an exit code and the line.

    reliability_table_test.py REPO
"""
import pathlib
import re
import sys

from cudalabs.docs import reliability  # PYTHONPATH=python (tests/cli/CliTests.cmake)


def expected_names(source):
    """Found without the page's parser: the helper calls, and each add_test block naming EXPECT_STDERR."""
    source = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    names = {f"cli.{n}" for n in re.findall(r"cudalabs_add_(?:cli|script|mpi)_test\((\w+)", source) if n != "name"}
    for block in source.split("add_test(NAME")[1:]:
        block = block.split("set_tests_properties")[0]
        name = block.split()[0].strip('"')
        if "EXPECT_STDERR" in block and name.startswith("cli.") and "${name}" not in name:
            names.add(name.replace("${program}", "<program>"))
    return names


def main():
    repo = pathlib.Path(sys.argv[1])
    rows = reliability.cli_tests(repo)
    failures = []
    listed = [name for name, _, _, _ in rows]
    expected = expected_names((repo / "tests" / "cli" / "CliTests.cmake").read_text())
    for name in sorted(expected - set(listed)):
        failures.append(f"{name}: not in the reliability table")
    for name, command, exit_code, line in rows:
        if (
            not command.strip()
            or not exit_code.isdigit()
            or exit_code == "0"
            or not line.strip()
            or "${" in command + line
        ):
            failures.append(f"{name}: incomplete row ({command!r}, exit {exit_code!r}, {line!r})")
    if len(listed) != len(set(listed)):
        failures.append("a test is listed twice")
    for failure in failures:
        print("FAIL:", failure)
    print(f"reliability table: {len(rows)} rows, {len(expected)} bad-input tests, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
