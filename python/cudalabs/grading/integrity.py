"""Integrity from the compiler and the linker, not from reading the source as text.

- What a translation unit includes is what the compiler says it read (its dependency output): each
  file must be the lab's given headers, a common/ header the lab allows, or a system or CUDA header.
  However a directive is spelled (a path through the lab folder, a backslash-newline, a digraph, a
  macro), the compiler resolves it, and the file it resolved to is what is checked. The tree holds no
  solutions/, so a solution cannot be read at all.
- What the object calls is what the linker would have to find (its undefined symbols, from nm): each
  must be on the lab's allowlist (the CUDA runtime's launch and memory calls, the C++ runtime, the
  suite's helpers the lab's headers declare). However a name is spelled in the source (token pasting,
  a macro), the object names the real symbol. Nothing else is linked into the runner anyway: it holds
  no cuBLAS, no test code.
- What the object defines: the lab's interface must be there; a strong definition of a name the
  runner defines is an attempt to replace the suite's code (the link makes it local in any case).
- What the object holds comes from the source and the files the compiler reported: the host
  assembler's own dependency output (as --MD) lists every file it read, and each must be one the
  compiler's output lists too (and so judged above) or the compile's own intermediate in the
  sandbox's private /tmp. An `.incbin` or `.include` in inline asm, which pulls a file into the
  object without the preprocessor seeing it, is caught whatever file it names and however the
  directive is spelled (a macro of the assembler, a string built by the preprocessor).
- The object's host code makes no system call of its own (no syscall instruction, from objdump): a
  call into the kernel can only go through an allowed library function.

Each violation scores the lab 0 and the report names the file or the symbol.
"""
from __future__ import annotations

import fnmatch
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from .process import run_logged
from .sandbox import Limits, Sandbox

TOOL_LIMITS = Limits(processes=64, file_bytes=256 << 20, data_bytes=4 << 30, cpu_seconds=300)


@dataclass(frozen=True)
class Violation:
    rule: str  # the rule, in words
    item: str  # the file or the symbol

    def __str__(self) -> str:
        return f"{self.rule}: {self.item}"


@dataclass(frozen=True)
class Rules:
    """One lab's rules (from the rubric)."""

    includes: tuple[str, ...]  # globs, relative to the tree: "labs/{folder}/*", "common/gemm_device.cuh"
    symbols: dict[str, tuple[str, ...]]  # what they are for -> globs on demangled names
    # globs on the full path of any file read, the toolchain's too: a header-only library that does
    # what the lab teaches (CUB's reductions and scans) leaves no symbol for the linker's check
    denied: tuple[str, ...] = ()
    # globs, relative to the CUDA toolkit's include folder, of the toolkit's headers the lab may read
    # (an allowlist: the runtime's own, and what the lab's lesson needs, never a header library that
    # would do the lesson: CUB, Thrust, cooperative groups' reduce and scan, libcu++'s algorithms,
    # WMMA outside lab 11); empty: the toolkit's headers are not checked
    toolchain: tuple[str, ...] = ()

    def allows_symbol(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, pattern) for patterns in self.symbols.values() for pattern in patterns)


def parse_depfile(text: str) -> list[str]:
    """The prerequisites of a make-style dependency file (the compiler's -MD output)."""
    text = text.replace("\\\n", " ")
    paths: list[str] = []
    for line in text.splitlines():
        if ":" not in line:
            continue
        target, _, prerequisites = line.partition(": ")
        if not prerequisites and line.rstrip().endswith(":"):
            continue  # a phony target of -MP
        # Escaped spaces stay in a name.
        for token in re.findall(r"(?:\\ |[^\s])+", prerequisites):
            paths.append(token.replace("\\ ", " "))
    return paths


def check_dependencies(
    depfile: Path, tree: Path, folder: str, rules: Rules, system_roots: list[Path]
) -> list[Violation]:
    """Every file the compiler read: none the lab denies, and in the tree and allowed by the lab's
    globs, or under the toolchain's and system's folders (the only others the sandboxed compile can
    see)."""
    violations = []
    tree = tree.resolve()
    allowed = [pattern.replace("{folder}", folder) for pattern in rules.includes]
    roots = [root.resolve() for root in system_roots]
    toolkits = cuda_include_roots(roots)
    for name in parse_depfile(depfile.read_text(errors="replace")):
        path = Path(name)
        resolved = path.resolve() if path.exists() else path
        toolkit = next((root for root in toolkits if resolved.is_relative_to(root)), None)
        if any(fnmatch.fnmatchcase(str(resolved), pattern) for pattern in rules.denied):
            violations.append(Violation(f"includes a library lab {folder[:2]} teaches to do without", str(resolved)))
        elif toolkit is not None and rules.toolchain:
            relative = str(resolved.relative_to(toolkit))
            if not any(fnmatch.fnmatchcase(relative, pattern) for pattern in rules.toolchain):
                violations.append(
                    Violation(f"includes a CUDA header lab {folder[:2]} does not allow (only those it lists)", relative)
                )
        elif resolved.is_relative_to(tree):
            relative = str(resolved.relative_to(tree))
            if relative == f"labs/{folder}/kernels.cu" or any(fnmatch.fnmatchcase(relative, p) for p in allowed):
                continue
            violations.append(Violation(f"includes a file lab {folder[:2]} does not allow", relative))
        elif any(resolved.is_relative_to(root) for root in roots):
            continue
        else:
            violations.append(
                Violation("includes a file outside the suite and the toolchain's and system's folders", str(resolved))
            )
    return violations


_GENERIC_INCLUDE_FOLDERS = (Path("/usr/include"), Path("/usr/local/include"))


def cuda_include_roots(roots: list[Path]) -> list[Path]:
    """The CUDA toolkit's include folders among `roots` (those holding cuda_runtime.h), resolved, and
    the one beside the nvcc on the path; a system's generic include folder is never one (a toolkit
    installed into /usr/include is checked by the lab's denied globs alone)."""
    found = []
    nvcc = shutil.which("nvcc")
    candidates = list(roots) + ([Path(nvcc).resolve().parent.parent / "include"] if nvcc else [])
    for root in candidates:
        if (root / "cuda_runtime.h").is_file():
            resolved = root.resolve()
            if resolved not in found and resolved not in [g.resolve() for g in _GENERIC_INCLUDE_FOLDERS]:
                found.append(resolved)
    return found


def _prerequisites(text: str) -> list[str]:
    """Every name after the first target of a dependency file, whatever the lines: a name may hold a
    newline (an assembler's `.file` name is the source's own text), so no line is skipped."""
    text = text.replace("\\\n", " ")
    _, colon, rest = text.partition(":")
    if not colon:
        return []
    return [token.replace("\\ ", " ") for token in re.findall(r"(?:\\ |[^\s])+", rest)]


def check_assembler_inputs(
    assembler_depfile: Path | None, compiler_depfile: Path, workdir: Path, private_tmp: Path = Path("/tmp")
) -> list[Violation]:
    """Every file the host assembler read (its dependency output) is one the compiler read, or the
    compile's own intermediate: a file directly in the sandbox's private /tmp (nvcc's and the host
    compiler's temporary files; nothing else is there), or a bare name that is no file of the
    compile's folder (the `.file` name of nvcc's intermediate, which the assembler lists but does not
    read). Anything else entered the object through an assembler directive the preprocessor never
    saw."""
    if assembler_depfile is None or not assembler_depfile.is_file():
        return [Violation("the host assembler's dependency output is missing", str(assembler_depfile))]
    read = set()
    for name in parse_depfile(compiler_depfile.read_text(errors="replace")):
        path = Path(name) if Path(name).is_absolute() else workdir / name
        read.add(path.resolve() if path.exists() else Path(os.path.normpath(path)))
    violations = []
    for name in _prerequisites(assembler_depfile.read_text(errors="replace")):
        path = Path(name) if Path(name).is_absolute() else workdir / name
        if Path(os.path.normpath(path)).parent == private_tmp:
            continue
        if "/" not in name and not os.path.lexists(path):
            continue
        resolved = path.resolve() if path.exists() else Path(os.path.normpath(path))
        if resolved in read:
            continue
        violations.append(
            Violation("puts into its object a file the compiler did not read (an assembler directive)", name)
        )
    return violations


@dataclass
class SymbolTable:
    undefined: list[str]
    strong: list[str]  # defined, global, not weak (T D B R G S)
    weak: list[str]


def _nm_lines(sandbox: Sandbox, obj: Path, flags: list[str], log: Path) -> list[str]:
    done = run_logged(sandbox.command(["nm", "-C", *flags, str(obj)], reads=[obj.parent], limits=TOOL_LIMITS), log, 120)
    if done.returncode != 0:
        raise RuntimeError(f"nm failed on {obj.name} (see {log.name})")
    return done.output().splitlines()[1:]  # the first line is the command


def read_symbols(sandbox: Sandbox, obj: Path, log_dir: Path) -> SymbolTable:
    """The object's undefined and global symbols, demangled, from nm (run in the sandbox: its input
    is the student's)."""
    table = SymbolTable([], [], [])
    for line in _nm_lines(sandbox, obj, ["-u"], log_dir / "nm-undefined.log"):
        line = line.strip()
        if line.startswith(("U ", "w ", "v ")):
            table.undefined.append(line[2:].strip())
    for line in _nm_lines(sandbox, obj, ["--defined-only", "-g"], log_dir / "nm-defined.log"):
        match = re.match(r"^[0-9a-fA-F]+\s+(\S)\s+(.*)$", line)
        if not match:
            continue
        kind, name = match.groups()
        (table.weak if kind in "VWvwu" else table.strong).append(name)
    return table


def check_symbols(table: SymbolTable, rules: Rules, interface: list[str], suite_names: set[str]) -> list[Violation]:
    violations = []
    defined = set(table.strong) | set(table.weak)
    for name in interface:
        if name not in defined:
            violations.append(Violation("does not define what the lab's interface declares", name))
    for name in sorted(set(table.undefined)):
        if not rules.allows_symbol(name):
            violations.append(Violation("calls what the lab does not allow", name))
    for name in sorted(set(table.strong) - set(interface)):
        if name in suite_names:
            violations.append(Violation("defines a name of the suite's own code", name))
    return violations


_SYSCALL = re.compile(r"\t(syscall|sysenter|int\s+\$0x80)\b")


def check_no_system_calls(sandbox: Sandbox, obj: Path, log: Path) -> list[Violation]:
    """The host code of the object, disassembled: no instruction that enters the kernel."""
    done = run_logged(
        sandbox.command(["objdump", "-d", "--no-show-raw-insn", str(obj)], reads=[obj.parent], limits=TOOL_LIMITS),
        log,
        300,
    )
    if done.returncode != 0:
        raise RuntimeError(f"objdump failed on {obj.name} (see {log.name})")
    found = sorted({match.group(1) for match in _SYSCALL.finditer(done.output())})
    return [
        Violation("makes a system call of its own (an instruction in its host code)", instruction)
        for instruction in found
    ]


def suite_names_of(sandbox: Sandbox, binary: Path, log: Path) -> set[str]:
    """Every name the runner (the suite's side of the student's process) defines."""
    done = run_logged(
        sandbox.command(["nm", "-C", "--defined-only", str(binary)], reads=[binary.parent], limits=TOOL_LIMITS),
        log,
        120,
    )
    names = set()
    for line in done.output().splitlines()[1:]:
        match = re.match(r"^[0-9a-fA-F]+\s+\S\s+(.*)$", line)
        if match:
            names.add(match.group(1))
    return names


def interface_of(sandbox: Sandbox, skeleton_library: Path, log: Path) -> list[str]:
    """The lab's interface: what the skeleton's library exports (its own functions, not the C++
    runtime's weak ones)."""
    done = run_logged(
        sandbox.command(
            ["nm", "-C", "-D", "--defined-only", str(skeleton_library)],
            reads=[skeleton_library.parent],
            limits=TOOL_LIMITS,
        ),
        log,
        120,
    )
    names = []
    for line in done.output().splitlines()[1:]:
        match = re.match(r"^[0-9a-fA-F]+\s+([TDBR])\s+(.*)$", line)
        if match and re.match(r"^lab\d\d::", match.group(2)) and "(anonymous namespace)" not in match.group(2):
            names.append(match.group(2))
    if not names:
        raise RuntimeError(f"the grading build's {skeleton_library} exports no lab interface")
    return names
