#!/usr/bin/env python3
"""A program refuses a bad value in one line that starts with its own name: its first numeric option
given a word exits 2 with one line on stderr, `NAME: --flag: invalid value 'abc' ...`.

The option is read from the program's --help: the first shown as `--flag N` or `--flag X`, the value
names common/cli.h's add_integer_flag and add_number_flag give (every numeric option goes through
them, so one stands for all; each run loads the CUDA libraries, which is what a test here costs). A
help that shows none fails: the check would test nothing (ctest: cli.<program>.bad_value).

    bad_value_check.py NAME [LAUNCHER...] PROGRAM
"""
import re
import subprocess
import sys

# CLI11's help: "  --size N  Sets M = N = K ...", "  --m N=4096  Rows ...", "  --n,--count N=...", "  --factor N ...".
NUMERIC_OPTION = re.compile(r"^\s+(-[^\s]+) (N|X)(=|\s|$)")
WORD = "abc"


def numeric_options(help_text):
    options = []
    for line in help_text.splitlines():
        match = NUMERIC_OPTION.match(line)
        if match:
            # "-m,--rows" or "--n,--count": the error line names the long name given last.
            names = [name for name in match.group(1).split(",") if name.startswith("--")]
            if names:
                options.append(names[-1])
    return options


def run(command):
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    name, command = sys.argv[1], sys.argv[2:]
    shown = run(command + ["--help"])
    if shown.returncode != 0:
        print(f"FAIL: --help exited {shown.returncode}\n{shown.stdout}{shown.stderr}")
        return 1
    options = numeric_options(shown.stdout)
    if not options:
        print(f"FAIL: the help of {name} shows no option with a value N or X:\n{shown.stdout}")
        return 1
    failures = 0
    for option in options[:1]:
        done = run(command + [option, WORD])
        expected = re.compile(rf"^{re.escape(name)}: {re.escape(option)}: invalid value '{WORD}'")
        lines = done.stderr.splitlines()
        if done.returncode != 2 or len(lines) != 1 or not expected.match(lines[0]):
            print(
                f"FAIL: {option} {WORD}: exit {done.returncode}, stderr:\n{done.stderr}(expected exit 2 and one line "
                f"matching '{expected.pattern}')"
            )
            failures += 1
        else:
            print(f"ok: {option} {WORD} -> {lines[0]}")
    print(f"{name}: {options[0]} of {len(options)} numeric options, {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
