"""Running a command with a time limit, its output captured to a log file.

Each command gets its own process group, so that a time limit kills the whole tree (compute-sanitizer
and the program under it, or a compiler and its children), not just the first process. A group is
asked to end (SIGTERM) before it is killed: a grader run as a command (grade-class runs scripts/grade)
then ends its own commands' groups, which a SIGKILL of its group alone would leave running. A grader
that is itself told to stop (a time limit, Ctrl-C) ends the groups it started the same way
(end_children_on_signals), so that no grading keeps a GPU busy after its grader is gone.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

# Seconds a group has to end after SIGTERM before it is killed: time for a nested grader to end its
# own commands the same way. A grader gives its commands half its own grace (CUDALABS_GRACE_S, which
# they inherit), so an inner grader has ended its commands before the outer one kills it.
GRACE_S = 10.0
_grace_s = GRACE_S

_live: dict[int, subprocess.Popen] = {}  # process group -> its leader, for every running command
_live_lock = threading.RLock()  # reentrant: the signal handler may interrupt its own thread's holder
_stopping = False
# The thread between starting a command and registering it in _live, and a stop signal that arrived
# there: the handler runs in the main thread, so when that thread is the one starting, the handler
# leaves the stop to it (else the new command, not yet in _live, would outlive the grader).
_starting_thread: int | None = None
_pending_signal: int | None = None


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


def _signal_group(group: int, sig: int) -> None:
    try:
        os.killpg(group, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _end_groups(processes: list[subprocess.Popen], grace_s: float) -> None:
    """SIGTERM to each group, up to grace_s for their leaders to exit, then SIGKILL to each group
    (what is left of it, a leader's children included)."""
    for process in processes:
        _signal_group(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(process.poll() is None for process in processes):
        time.sleep(0.05)
    for process in processes:
        _signal_group(process.pid, signal.SIGKILL)


def run_logged(
    command: list[str], log: Path, time_limit_s: float, env: dict | None = None, cwd: Path | None = None
) -> Completed:
    """Runs command with stdout and stderr into log; ends its process group after time_limit_s, and
    anything the command left running in its group when it exits."""
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with open(log, "wb") as sink:
        sink.write(("$ " + " ".join(command) + "\n").encode())
        sink.flush()
        with _live_lock:
            if _stopping:
                raise RuntimeError("the grader is stopping: no new command is started")
            process = _start_registered(command, sink, env, cwd)
        try:
            returncode = process.wait(timeout=time_limit_s)
        except subprocess.TimeoutExpired:
            _end_groups([process], _grace_s)
            process.wait()
            returncode = None
        finally:
            _signal_group(process.pid, signal.SIGKILL)  # what the command left behind
            with _live_lock:
                _live.pop(process.pid, None)
    return Completed(command, returncode, time.monotonic() - started, log)


def _start_registered(command, sink, env, cwd) -> subprocess.Popen:
    """Starts command in its own group and registers it in _live (the caller holds _live_lock); a stop
    signal that arrives in between is carried out once it is registered."""
    global _starting_thread
    _starting_thread = threading.get_ident()
    try:
        process = subprocess.Popen(
            command, stdout=sink, stderr=subprocess.STDOUT, env=env, cwd=cwd, start_new_session=True
        )
        _live[process.pid] = process
        return process
    finally:
        _starting_thread = None
        if _pending_signal is not None:
            _stop(_pending_signal, None)  # ends every registered group, this one included; exits


def _stop(signum: int, _frame) -> None:
    global _stopping, _pending_signal
    _stopping = True
    if _starting_thread == threading.get_ident():
        _pending_signal = signum  # carried out by _start_registered once the command is registered
        return
    # The lock waits out a command another thread is starting (then registered), not one for ever.
    held = _live_lock.acquire(timeout=_grace_s)
    try:
        _end_groups(list(_live.values()), _grace_s)
    finally:
        if held:
            _live_lock.release()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(128 + signum)


def end_children_on_signals() -> None:
    """SIGTERM, SIGINT or SIGHUP to this process ends every command it runs (their whole groups),
    then exits with 128 + the signal's number. For a grader's main module."""
    global _grace_s
    try:
        _grace_s = max(0.5, float(os.environ.get("CUDALABS_GRACE_S", GRACE_S)))
    except ValueError:
        _grace_s = GRACE_S
    os.environ["CUDALABS_GRACE_S"] = str(_grace_s / 2)  # for the graders it runs
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _stop)
