"""The bad-input tests of the command lines, read from tests/cli/CliTests.cmake, as a markdown table
for the reliability page: one line per test with the command and the one line it must print."""
import pathlib
import re

CALL = re.compile(r"cudalabs_add_(cli|script)_test\((.*?)\)\s*$", re.S | re.M)


def _arguments(text):
    """CMake arguments: quoted strings kept whole, the rest split on whitespace."""
    return [a[1:-1] if a.startswith('"') else a for a in re.findall(r'"(?:[^"\\]|\\.)*"|\S+', text)]


def _readable(regex):
    text = regex.lstrip("^").replace("\\\\(", "(").replace("\\\\)", ")").replace("\\(", "(").replace("\\)", ")")
    return text.replace(".*", " ... ")


def cli_tests(repo):
    """(test name, command, exit code, expected first line) for every cudalabs_add_*_test call."""
    source = (pathlib.Path(repo) / "tests" / "cli" / "CliTests.cmake").read_text()
    source = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    rows = []
    for kind, body in CALL.findall(source):
        args = _arguments(body)
        if len(args) < 4 or args[0] in ("name",):
            continue  # the function definitions themselves
        name, exit_code, regex, program, rest = args[0], args[1], args[2], args[3], args[4:]
        program = "scripts/grade" if program == "${grade_script}" else program
        rows.append((f"cli.{name}", " ".join([program] + rest), exit_code, _readable(regex)))
    return rows


def table(repo):
    rows = cli_tests(repo)
    lines = ["| test | command | exit | the one line it prints |", "| --- | --- | --- | --- |"]
    lines += [f"| `{n}` | `{c}` | {e} | {m.replace('|', '/')} |" for n, c, e, m in rows]
    return "\n".join(lines)
