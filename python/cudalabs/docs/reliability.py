"""The bad-input tests of the command lines, read from tests/cli/CliTests.cmake, as a markdown table
for the reliability page: one line per test with the command and the one line it must print."""
import pathlib
import re

CALL = re.compile(r"cudalabs_add_(cli|script|mpi)_test\((.*?)\)\s*$", re.S | re.M)
# A test written out with add_test: its name, then ExpectOutput.cmake's -D settings up to -P.
DIRECT = re.compile(r'add_test\(NAME\s+"?cli\.([^"\s]+)"?\s+COMMAND\s+\$\{CMAKE_COMMAND\}(.*?)\s-P\s', re.S)


def _arguments(text):
    """CMake arguments: quoted strings kept whole, the rest split on whitespace."""
    return [a[1:-1] if a.startswith('"') else a for a in re.findall(r'"(?:[^"\\]|\\.)*"|\S+', text)]


def _readable(regex):
    text = regex.lstrip("^").replace("\\\\(", "(").replace("\\\\)", ")").replace("\\(", "(").replace("\\)", ")")
    return text.replace(".*", " ... ")


def _program(text):
    """$<TARGET_FILE:lab00> -> lab00, ${program} -> <program>."""
    text = re.sub(r"\$<TARGET_FILE:([^>]+)>", r"\1", text)
    text = text.replace("${grade_script}", "scripts/grade").replace("${PROJECT_SOURCE_DIR}", ".")
    return re.sub(r"\$\{(\w+)\}", r"<\1>", text)


def cli_tests(repo):
    """(test name, command, exit code, expected first line) for every command-line test that expects
    one line on stderr: the cudalabs_add_{cli,script,mpi}_test calls and the tests written out."""
    source = (pathlib.Path(repo) / "tests" / "cli" / "CliTests.cmake").read_text()
    source = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    rows = []
    for kind, body in CALL.findall(source):
        args = _arguments(body)
        if len(args) < 4 or args[0] in ("name",):
            continue  # the function definitions themselves
        name, exit_code, regex, program, rest = args[0], args[1], args[2], args[3], args[4:]
        if kind == "mpi":  # program is the rank count
            program = f"mpirun -np {program} dcgan_mpi"
        program = "scripts/grade" if program == "${grade_script}" else program
        rows.append((f"cli.{name}", _program(" ".join([program] + rest)), exit_code, _readable(regex)))
    for name, body in DIRECT.findall(source):
        if "${name}" in name:
            continue  # the helper functions' own add_test
        settings = dict(a[2:].split("=", 1) for a in _arguments(body) if a.startswith("-D") and "=" in a)
        if "EXPECT_STDERR" not in settings:
            continue  # a test of normal output (--list, --help)
        command = _program(settings.get("COMMAND", "")).replace("|", " ")
        rows.append(
            (f"cli.{_program(name)}", command, settings.get("EXPECT_EXIT", "?"), _readable(settings["EXPECT_STDERR"]))
        )
    return rows


def table(repo):
    rows = cli_tests(repo)
    lines = ["| test | command | exit | the one line it prints |", "| --- | --- | --- | --- |"]
    lines += [f"| `{n}` | `{c}` | {e} | {m.replace('|', '/')} |" for n, c, e, m in rows]
    return "\n".join(lines)
