"""Building a submission's lab: a copy of the suite without solutions (the tree), the student's files
placed in it, the compiler on them in the sandbox (with its dependency output), then the linker in the
sandbox making libsubmission.so, which exports the lab's interface and nothing else.

The compile command is the grading build's own for the lab's skeleton library (compile_commands.json,
target grader_submission_labNN), with the tree in place of the repository: the student's kernels are
compiled exactly as `make lab` compiles them.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .process import Completed, run_logged
from .sandbox import Limits, Sandbox

# What of the repository a student's code may see: the labs' given files and common/.
TREE_FOLDERS = ("common", "labs")
BUILD_LIMITS = Limits(processes=512, file_bytes=2 << 30, data_bytes=16 << 30, cpu_seconds=1800)


@dataclass(frozen=True)
class LabTargets:
    """What the trusted grading build made for one lab (grade-build/grader/labNN/)."""

    number: str
    folder: str
    directory: Path  # referee, runner, the skeleton's libsubmission.so

    @property
    def referee(self) -> Path:
        return self.directory / "referee"

    @property
    def runner(self) -> Path:
        return self.directory / "runner"

    @property
    def skeleton_library(self) -> Path:
        return self.directory / "libsubmission.so"


def lab_targets(build: Path, number: str, folder: str) -> LabTargets:
    return LabTargets(number, folder, build / "grader" / f"lab{number}")


def stage_tree(repo: Path, tree: Path) -> None:
    """A fresh copy of common/ and labs/ (regular files only: no link leads back into the
    repository, and solutions/ is not there)."""
    if tree.exists():
        shutil.rmtree(tree)
    for folder in TREE_FOLDERS:
        for path in sorted((repo / folder).rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            target = tree / path.relative_to(repo)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def place_files(tree: Path, folder: str, files: dict[str, bytes]) -> None:
    """The student's files into the tree's lab folder, replacing the skeleton's."""
    for name, data in files.items():
        if "/" in name or name.startswith("."):
            raise ValueError(f"not a file name of a lab folder: {name!r}")
        target = tree / "labs" / folder / name
        if target.is_symlink():
            target.unlink()
        target.write_bytes(data)


@dataclass
class CompileCommand:
    """The grading build's compile command of a lab's kernels.cu, as a list, with where the repository
    and its view appear in it."""

    argv: list[str]
    source: str
    output_index: int
    repo: Path
    suite_view: Path

    def for_tree(
        self, tree: Path, source: Path, output: Path, depfile: Path, assembler_depfile: Path | None = None
    ) -> list[str]:
        """The same command on `source` in `tree`, writing `output` and the dependency file (and the
        assembler's: every file the host assembler read, which an `.incbin` or `.include` in inline
        asm adds to the object without the preprocessor seeing it)."""
        argv = list(self.argv)
        argv[self.output_index] = str(output)
        result = []
        skip = 0
        for i, arg in enumerate(argv):
            if skip:
                skip -= 1
                continue
            if arg in ("-MD", "-MMD"):
                continue
            if arg in ("-MF", "-MT", "-MQ"):
                skip = 1
                continue
            if arg == self.source:
                result.append(str(source))
                continue
            result.append(self._retarget(arg, tree))
        result += ["-MD", "-MF", str(depfile)]
        if assembler_depfile is not None:
            result.append(f"-Xcompiler=-Xassembler,--MD,-Xassembler,{assembler_depfile}")
        return result

    def _retarget(self, arg: str, tree: Path) -> str:
        for prefix in ("-I", "-isystem="):
            if arg.startswith(prefix):
                path = Path(arg[len(prefix) :])
                return prefix + str(self._in_tree(path, tree))
        return arg

    def _in_tree(self, path: Path, tree: Path) -> Path:
        for root in (self.suite_view, self.repo):
            try:
                return tree / path.relative_to(root)
            except ValueError:
                continue
        return path

    def include_roots(self) -> list[Path]:
        """The folders outside the repository the command reads headers from (-isystem, -I)."""
        roots = []
        for i, arg in enumerate(self.argv):
            value = None
            if arg.startswith("-isystem="):
                value = arg[len("-isystem=") :]
            elif arg == "-isystem" and i + 1 < len(self.argv):
                value = self.argv[i + 1]
            elif arg.startswith("-I") and len(arg) > 2:
                value = arg[2:]
            if value:
                path = Path(value)
                if not (path.is_relative_to(self.repo) or path.is_relative_to(self.suite_view)):
                    roots.append(path)
        return roots


def compile_command(build: Path, repo: Path, number: str, folder: str) -> CompileCommand:
    """The grading build's command for grader_submission_labNN's kernels.cu."""
    entries = json.loads((build / "compile_commands.json").read_text())
    source = str(repo / "labs" / folder / "kernels.cu")
    for entry in entries:
        command = entry.get("command") or " ".join(shlex.quote(a) for a in entry["arguments"])
        if entry.get("file") == source and f"grader_submission_lab{number}" in command:
            argv = shlex.split(command)
            if "-o" not in argv:
                break
            cwd = Path(entry["directory"])
            output_index = argv.index("-o") + 1
            argv = [a if not (a.startswith("grader/") or a.startswith("CMakeFiles/")) else str(cwd / a) for a in argv]
            return CompileCommand(argv, source, output_index, repo.resolve(), (build / "suite-view"))
    raise RuntimeError(
        f"the grading build has no compile command for lab {number}'s library "
        f"(grader_submission_lab{number}): reconfigure {build}"
    )


@dataclass
class BuildResult:
    ok: bool
    step: str  # "compile" or "link"
    log: Path
    timed_out: bool = False
    object: Path | None = None
    depfile: Path | None = None
    assembler_depfile: Path | None = None
    library: Path | None = None
    details: list[str] = field(default_factory=list)


def compiler_errors(log: str, tree: Path | None = None, limit: int = 12) -> list[str]:
    """The lines of a build log that state an error, with the tree's paths made relative to it."""
    if tree is not None:
        log = log.replace(str(tree) + "/labs/", "").replace(str(tree) + "/", "")
    lines = [line.strip() for line in log.splitlines() if re.search(r"\berror\b", line, re.IGNORECASE)]
    return lines[:limit]


def split_compile(command: CompileCommand) -> list[str]:
    """nvcc's device-code optimization on several threads (--split-compile): one translation unit of many
    kernels (lab 07's: 58 of them, a two-minute build) builds in a fraction of the time, with the same
    machine code (every kernel's SASS of lab 07's solution identical byte for byte, with and without).
    Threads: the CPUs this process may use, at most 16; none for a compiler that is not nvcc."""
    if Path(command.argv[0]).name != "nvcc":
        return []
    return [f"--split-compile={max(1, min(16, len(os.sched_getaffinity(0))))}"]


def compile_kernels(
    sandbox: Sandbox,
    command: CompileCommand,
    tree: Path,
    folder: str,
    out: Path,
    log: Path,
    time_limit_s: float,
    extra_reads: list[Path] = (),
) -> BuildResult:
    """nvcc on the tree's labs/<folder>/kernels.cu, in the sandbox: reads the tree and the
    toolchain, writes only `out`: the object, the compiler's dependency output (kernels.d) and the
    host assembler's (kernels.as.d)."""
    sandbox.prepare_writable(out)
    source = tree / "labs" / folder / "kernels.cu"
    obj, depfile, assembler_depfile = out / "kernels.o", out / "kernels.d", out / "kernels.as.d"
    argv = command.for_tree(tree, source, obj, depfile, assembler_depfile) + split_compile(command)
    reads = [tree, *[root for root in command.include_roots() if root.exists()], *extra_reads]
    done = run_logged(
        sandbox.command(argv, reads=reads, writes=[out], workdir=out, limits=BUILD_LIMITS), log, time_limit_s
    )
    ok = done.returncode == 0 and obj.is_file() and depfile.is_file()
    details = [] if ok else compiler_errors(done.output(), tree)
    return BuildResult(
        ok,
        "compile",
        log,
        done.timed_out,
        obj if ok else None,
        depfile if ok else None,
        assembler_depfile if ok else None,
        details=details,
    )


def version_script(interface: list[str]) -> str:
    """The linker's version script that exports the lab's interface (demangled C++ names) and makes
    every other symbol of the library local."""
    names = "\n".join(f'      "{name}";' for name in interface)
    return '{\n  global:\n    extern "C++" {\n' + names + "\n    };\n  local: *;\n};\n"


def link_library(
    sandbox: Sandbox,
    obj: Path,
    interface: list[str],
    cuda_lib: Path,
    out: Path,
    log: Path,
    time_limit_s: float,
    host_compiler: str = "g++",
) -> BuildResult:
    """libsubmission.so from the object, in the sandbox: the interface exported, everything else
    local (-Bsymbolic: the library's own calls stay inside it)."""
    script = out / "interface.map"
    script.write_text(version_script(interface))
    library = out / "libsubmission.so"
    argv = [
        host_compiler,
        "-shared",
        "-o",
        str(library),
        str(obj),
        f"-Wl,--version-script={script}",
        "-Wl,-Bsymbolic",
        f"-L{cuda_lib}",
        "-lcudart",
        f"-Wl,-rpath,{cuda_lib}",
    ]
    sandbox.prepare_writable(out)
    done: Completed = run_logged(
        sandbox.command(argv, reads=[obj.parent, cuda_lib], writes=[out], workdir=out, limits=BUILD_LIMITS),
        log,
        time_limit_s,
    )
    ok = done.returncode == 0 and library.is_file()
    return BuildResult(
        ok,
        "link",
        log,
        done.timed_out,
        library=library if ok else None,
        details=[] if ok else compiler_errors(done.output()),
    )
