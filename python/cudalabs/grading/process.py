"""Running a command with a time limit, its output captured to a log file.

Each command gets its own process group, so that a time limit kills the whole tree (compute-sanitizer
and the program under it, or a compiler and its children), not just the first process.
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Completed:
    command: list[str]
    returncode: int | None  # None when the time limit was reached
    seconds: float
    log: Path

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    @property
    def signal_name(self) -> str | None:
        """The signal that killed the process ('SIGSEGV'), or None if it exited by itself."""
        if self.returncode is None or self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def run_logged(
    command: list[str], log: Path, time_limit_s: float, env: dict | None = None, cwd: Path | None = None
) -> Completed:
    """Runs command with stdout and stderr into log; kills its process group after time_limit_s."""
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with open(log, "wb") as sink:
        sink.write(("$ " + " ".join(command) + "\n").encode())
        sink.flush()
        process = subprocess.Popen(
            command, stdout=sink, stderr=subprocess.STDOUT, env=env, cwd=cwd, start_new_session=True
        )
        try:
            returncode = process.wait(timeout=time_limit_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            returncode = None
    return Completed(command, returncode, time.monotonic() - started, log)
