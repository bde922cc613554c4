"""The runner's own confinement, inside the sandbox: Landlock rules that the trusted launcher
`confine` (grader/confine/) puts on the runner's process before any of the student's code runs. The
student's library is linked into the runner, so its static initialisers run before the runner's
main(); the rules are put on first and pass through execve, and the kernel enforces them on every
system call, so they hold however the code reaches the kernel: a named function, a function found
by address, or a system call instruction of its own.

What the runner's process may do, and why:
- write only beneath the sandbox's private /tmp and /dev (device nodes, /dev/shm) and its own
  /proc/self (the CUDA driver writes its threads' names there): never in the
  scratch folder, where the tools that watch the runner (compute-sanitizer, Nsight Compute, which
  are its parents and not under the rules) write their reports, nor anywhere else;
- read only what it needs: the runner folder, the files it links (its ELF closure, from ldd), the
  GPU driver's libraries, the watching tool's own folder, /proc, /sys, /dev and /etc. No library it
  does not link is there to be loaded, cuBLAS and cuDNN among them, however its code finds dlopen;
- execute nothing but the runner (and its ELF interpreter);
- a process under the rules cannot ptrace, or read or write the memory of, a process outside them.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .process import run_logged
from .sandbox import Sandbox

LAUNCHER = "confine"  # its name in the grading build's grader/ folder and in every runner folder
ALWAYS_READABLE = ("/proc", "/sys", "/dev", "/etc")  # the loader's cache, the driver's device facts
# The sandbox's own: a private tmpfs each, the device nodes, and the process's own /proc entries (the
# CUDA driver names its threads there; confine executes the runner in its own process, so /proc/self
# is the runner's).
WRITABLE = ("/tmp", "/dev", "/proc/self")
# The driver's libraries, found beside libcuda.so.1: CUDA's runtime loads them by name (the JIT
# compiler among them).
_DRIVER_PREFIXES = ("libcuda.so", "libcudadebugger.so", "libnvidia-")
_LDD_PATH = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x[0-9a-f]+\)")


def under_writable(path: Path) -> str | None:
    """The folder the runner may write that holds `path` (seen from inside the sandbox, where a bound
    folder keeps its path), or None. A scratch folder there would be the runner's to write."""
    real = Path(path).resolve()
    return next((w for w in WRITABLE if real == Path(w) or real.is_relative_to(w)), None)


# Where scratch folders go when the grading build lies where the runner may write (a checkout under
# /tmp): folders the sandbox neither shows whole nor lets the runner write, tried in this order after
# $CUDALABS_SCRATCH.
SCRATCH_FALLBACKS = ("/var/tmp",)


def scratch_parent(preferred: Path) -> Path:
    """The folder to make the sandboxed steps' scratch folders in: `preferred` (the grading build),
    unless the runner may write there, then a folder of this user's under the first writable one of
    $CUDALABS_SCRATCH, /var/tmp and ~/.cache that the runner may not write. A tool's report in a
    scratch folder the runner could write would be within its reach; where the suite was cloned is
    the user's choice, not a reason to refuse."""
    preferred = Path(preferred)
    if under_writable(preferred) is None:
        return preferred
    candidates = [os.environ.get("CUDALABS_SCRATCH", ""), *SCRATCH_FALLBACKS, str(Path.home() / ".cache")]
    for candidate in filter(None, candidates):
        folder = Path(candidate) / f"cuda-labs-scratch-{os.getuid()}"
        if under_writable(folder) is not None:
            continue
        try:
            folder.mkdir(mode=0o755, parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK | os.X_OK) and folder.stat().st_uid == os.getuid():
            return folder
    raise ValueError(
        f"no folder for the grader's scratch: {preferred} lies under {under_writable(preferred)}, which the runner "
        "may write, and neither $CUDALABS_SCRATCH, /var/tmp nor ~/.cache can take it (set CUDALABS_SCRATCH to a "
        "folder of yours outside /tmp)"
    )


def launcher_in(build: Path) -> Path:
    """The launcher the grading build made."""
    return build / "grader" / LAUNCHER


def unavailable(sandbox: Sandbox, build: Path, log: Path) -> str | None:
    """Why the runner cannot be confined on this node (the kernel enforces no Landlock, or the
    launcher is missing), or None when it can: the grader then refuses to grade."""
    launcher = launcher_in(build)
    if not launcher.is_file():
        return f"the grading build has no {LAUNCHER} launcher ({launcher})"
    sandbox.prepare_readable(launcher.parent)
    done = run_logged(sandbox.command([str(launcher), "--probe"], reads=[launcher]), log, 60)
    if done.returncode != 0:
        lines = [line for line in done.output().splitlines() if line.startswith("confine:")]
        return lines[0] if lines else f"{LAUNCHER} --probe exited with {done.returncode}"
    return None


@dataclass(frozen=True)
class Confinement:
    """The launcher and what it lets one runner folder's runner read."""

    launcher: Path
    reads: tuple[str, ...]
    sandbox: Sandbox
    log: Path  # where the ldd runs that found the reads are logged

    def prefix(self, tool: list[str] | None = None) -> list[str]:
        """The launcher's argv up to the runner's path; `tool`: the program watching the runner,
        whose own folder (its injected libraries) and their libraries the runner must read."""
        argv = [str(self.launcher)]
        extra = tool_reads(self.sandbox, tool[0], self.log) if tool else ()
        for path in dict.fromkeys((*self.reads, *extra)):
            argv += ["--read", path]
        for path in WRITABLE:
            argv += ["--write", path]
        return argv + ["--"]


_runner_reads: dict[str, tuple[str, ...]] = {}


def for_runner(sandbox: Sandbox, build: Path, folder: Path, log: Path) -> Confinement:
    """The confinement of the runner in `folder` (runner + libsubmission.so): the launcher is copied
    beside it, and its reads are the folder, the files the runner links and the driver's."""
    launcher = folder / LAUNCHER
    if not launcher.is_file():
        shutil.copy2(launcher_in(build), launcher)
        sandbox.prepare_readable(folder)
    key = str(folder.resolve())
    if key not in _runner_reads:
        driver = driver_files()
        linked = linked_files(sandbox, [folder / "runner", *driver], log, reads=[folder])
        _runner_reads[key] = tuple(dict.fromkeys([str(folder), *ALWAYS_READABLE, *linked, *map(str, driver)]))
    return Confinement(launcher, _runner_reads[key], sandbox, log)


def linked_files(sandbox: Sandbox, files: list[Path], log: Path, reads: list[Path] = ()) -> list[str]:
    """Every file the loader maps for `files` (ldd, in the sandbox: the runner's library is the
    student's), as ldd names them."""
    if not files:
        return []
    done = run_logged(sandbox.command(["ldd", *map(str, files)], reads=list(reads)), log, 120)
    found = []
    for line in done.output().splitlines():
        match = _LDD_PATH.search(line)
        if match:
            found.append(match.group(1))
    return list(dict.fromkeys(found))


def driver_files() -> list[Path]:
    """The GPU driver's libraries: every libcuda.so*, libcudadebugger.so* and libnvidia-* file in the
    folders where the loader finds libcuda.so.1 (its cache, LD_LIBRARY_PATH). None without a driver."""
    folders = []
    ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
    try:
        cache = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        cache = ""
    for line in cache.splitlines():
        if line.strip().startswith("libcuda.so.1 ") and "=>" in line:
            folders.append(Path(line.split("=>", 1)[1].strip()).parent)
    for entry in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        if entry and (Path(entry) / "libcuda.so.1").exists():
            folders.append(Path(entry))
    files = []
    for folder in dict.fromkeys(folders):
        files += sorted(p for p in folder.iterdir() if p.name.startswith(_DRIVER_PREFIXES) and p.exists())
    return files


def tool_folder(program: str) -> Path | None:
    """The folder a watching tool is installed in (compute-sanitizer's, Nsight Compute's): its
    libraries are injected into the runner. None for a program of the system's, and never a folder
    that holds CUDA's libraries (a toolkit's root)."""
    found = shutil.which(program) if "/" not in program else program
    if found is None:
        return None
    real = Path(found).resolve()
    folder = real.parent
    if folder.name == "bin":  # a launcher in CUDA's bin/: the tool is installed beside it, or in /opt
        if real.name == "ncu":  # where CUDA's ncu script looks: the newest version found
            found = [*folder.parent.glob("nsight-compute-*"), *Path(NSIGHT_COMPUTE_PACKAGES).glob("*")]
        else:
            found = list(folder.parent.glob(f"{real.name}*"))
        installed = sorted((p for p in found if p.is_dir()), key=_version)
        folder = installed[-1] if installed else None
    if folder is None or str(folder) in ("/usr/bin", "/bin", "/usr/sbin", "/sbin"):
        return None
    if any((folder / name).is_dir() for name in ("lib64", "lib", "targets")):
        return None
    return folder


NSIGHT_COMPUTE_PACKAGES = "/opt/nvidia/nsight-compute"  # where its .deb and .rpm packages install it


def _version(folder: Path) -> tuple[int, ...]:
    """nsight-compute-2025.3.1 or 2025.3.1 -> (2025, 3, 1)."""
    return tuple(int(n) for n in re.findall(r"\d+", folder.name))


_tool_reads: dict[str, tuple[str, ...]] = {}


def tool_reads(sandbox: Sandbox, program: str, log: Path) -> tuple[str, ...]:
    """What a watching tool's injected libraries need: the tool's folder, and the system libraries
    its own libraries link (outside a `host` folder: the tool's user interface is not injected)."""
    if program not in _tool_reads:
        folder = tool_folder(program)
        if folder is None:
            _tool_reads[program] = ()
        else:
            libraries = [
                p
                for p in sorted(folder.rglob("*.so*"))
                if p.is_file() and not p.is_symlink() and "host" not in p.relative_to(folder).parts
            ]
            linked = linked_files(sandbox, libraries, log, reads=[folder])
            _tool_reads[program] = tuple(dict.fromkeys([str(folder), *linked]))
    return _tool_reads[program]
