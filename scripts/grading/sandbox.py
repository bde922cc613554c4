"""Where the node allows it, student code runs inside bubblewrap: no network, every folder read-only
(the suite, the grader, the home folders) but the report folder it writes its results to, and a private
/tmp. Where it cannot (no bwrap, or unprivileged namespaces refused), grading goes on unsandboxed and
the report says so.
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Sandbox:
    prefix: tuple[str, ...] = field(default_factory=tuple)  # put before a student program's command line
    note: str = ""  # one line for the report

    def wrap(self, command: list[str]) -> list[str]:
        return [*self.prefix, *command]


def make_sandbox(writable: list[Path], readable: list[Path] = (), wanted: bool = True) -> Sandbox:
    """A bubblewrap prefix that leaves only `writable` folders writable, tried once; an empty prefix
    with the reason when the node does not allow it. `readable` are the folders student code is run
    from (the suite, the grading build): the private /tmp would hide one that lies under /tmp, so
    those are mounted again, read-only, on top of it."""
    if not wanted:
        return Sandbox((), "not sandboxed: --no-sandbox")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Sandbox((), "not sandboxed: bubblewrap (bwrap) is not installed (scripts/setup grading)")
    prefix = [bwrap, "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
              "--unshare-net", "--die-with-parent", "--new-session"]
    tmp = Path("/tmp").resolve()
    for folder in readable:
        if Path(folder).resolve().is_relative_to(tmp):
            prefix += ["--ro-bind", str(folder), str(folder)]
    for folder in writable:
        prefix += ["--bind", str(folder), str(folder)]
    try:
        probe = subprocess.run([*prefix, "true"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return Sandbox((), f"not sandboxed: bwrap did not start ({error})")
    if probe.returncode != 0:
        reason = next((line for line in probe.stderr.splitlines() if line.strip()), f"exit {probe.returncode}")
        return Sandbox((), f"not sandboxed: bwrap cannot run here ({reason.strip()})")
    return Sandbox(tuple(prefix), "sandboxed: bubblewrap, no network, everything read-only but the report "
                                  "folder, a private /tmp")
