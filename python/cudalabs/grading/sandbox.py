"""The boundary around the student's code: every step that runs it (the compiler on its source, the
linker on its object, the runner that makes its calls, the tools that watch the runner) runs as a
command this module wraps.

What the wrapper gives, and why each part is there:
- bubblewrap (bwrap): new user, PID, network, IPC and UTS namespaces; every capability dropped and
  no new privileges (bwrap sets PR_SET_NO_NEW_PRIVS). The PID namespace ends with its first
  process: nothing the step started outlives it, and nothing outside it can be seen or signalled.
- A file system of read-only binds: the toolchain and system folders, the folders the step reads,
  and one scratch folder it writes. Home folders, the repository, the grading build's other labs
  and the report folder are not there at all. /tmp is private. The GPU's device nodes are bound
  only for steps that use the GPU.
- As root, the step first becomes an unprivileged user of its own (setpriv), so that a process
  limit counts its processes alone and no capability of the user namespace maps to root's.
- Limits (prlimit): processes, file size, address space for data, CPU time, open files, no core
  files. The wall-clock limit is the caller's (process.run_logged kills the step's process group).

Where a node cannot give this (no bwrap, user namespaces refused), make_sandbox says why, and the
grader refuses to grade unless the instructor passes --unsandboxed, which puts "not sandboxed" on
every report.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

# The uids a root grader's steps run as (no account of the system uses them): one per grader
# process, so that one submission's processes never count against another's limit.
SANDBOX_UIDS = range(64100, 64356)
_held_uid_lock = None
_held_uid = 0


def _sandbox_uid() -> int:
    """A uid of SANDBOX_UIDS no other grader on this machine holds, held until this process ends."""
    import fcntl

    global _held_uid_lock, _held_uid
    if _held_uid_lock is not None:
        return _held_uid
    folder = Path(tempfile.gettempdir()) / "cudalabs-sandbox-uids"
    folder.mkdir(mode=0o700, exist_ok=True)
    for uid in SANDBOX_UIDS:
        lock = open(folder / f"{uid}.lock", "w")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            continue
        _held_uid_lock, _held_uid = lock, uid
        return uid
    raise RuntimeError(f"every sandbox uid ({SANDBOX_UIDS.start}-{SANDBOX_UIDS.stop - 1}) is held by a running grader")


# Folders a toolchain or a CUDA program reads, bound read-only where they exist. /etc holds the
# loader's cache and the name-service configuration; what in it is private stays unreadable to the
# sandbox's unprivileged user.
_SYSTEM_FOLDERS = ("/usr", "/etc", "/opt", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/sys")
_GPU_DEVICE_PATTERNS = ("nvidia*", "nvidia-caps", "dri")


@dataclass(frozen=True)
class Limits:
    """What one step may use. Memory is RLIMIT_DATA (heap and private writable maps); a CUDA context
    reserves address space without touching it, which RLIMIT_AS would count, so that is left alone."""

    processes: int = 256
    file_bytes: int = 4 << 30
    data_bytes: int = 32 << 30
    cpu_seconds: int = 3600
    open_files: int = 4096


@dataclass(frozen=True)
class Sandbox:
    """Wraps commands; `enabled` False wraps nothing (the instructor's --unsandboxed)."""

    enabled: bool
    note: str  # one line for every report
    bwrap: str = ""
    setpriv: str = ""
    prlimit: str = ""
    uid: int | None = None  # the user a root grader's steps become; None when not root
    cuda_folders: tuple[str, ...] = ()
    extra_env: dict = field(default_factory=dict)

    def command(
        self,
        argv: list[str],
        *,
        reads: list[Path] = (),
        writes: list[Path] = (),
        gpu: bool = False,
        workdir: Path | None = None,
        limits: Limits = Limits(),
        env: dict | None = None,
    ) -> list[str]:
        """`argv` as the step runs it: inside the sandbox, seeing `reads` read-only and `writes`
        writable (at their own paths), the GPU when `gpu`, starting in `workdir`."""
        if not self.enabled:
            return list(argv)
        prefix: list[str] = []
        if self.uid is not None:
            prefix += [self.setpriv, f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups", "--"]
        processes = limits.processes if self.uid is not None else _processes_of_this_user() + limits.processes
        prefix += [
            self.prlimit,
            f"--nproc={processes}",
            f"--fsize={limits.file_bytes}",
            f"--data={limits.data_bytes}",
            f"--cpu={limits.cpu_seconds}",
            f"--nofile={limits.open_files}",
            "--core=0",
            "--",
        ]
        box = [
            self.bwrap,
            "--unshare-user",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--uid",
            str(self.uid if self.uid is not None else os.getuid()),
            "--gid",
            str(self.uid if self.uid is not None else os.getgid()),
        ]
        for folder in _SYSTEM_FOLDERS:
            if os.path.lexists(folder):
                box += (
                    ["--symlink", os.readlink(folder), folder]
                    if os.path.islink(folder)
                    else ["--ro-bind", folder, folder]
                )
        for folder in self.cuda_folders:
            box += ["--ro-bind-try", folder, folder]
        box += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
        if gpu:
            for device in gpu_devices():
                box += ["--dev-bind", device, device]
        for path in _outside_system(reads):
            box += ["--ro-bind", str(path), str(path)]
        for path in writes:
            box += ["--bind", str(path), str(path)]
        box += ["--clearenv"]
        for name, value in {**_base_environment(), **self.extra_env, **(env or {})}.items():
            box += ["--setenv", name, str(value)]
        if workdir is not None:
            box += ["--chdir", str(workdir)]
        return prefix + box + ["--"] + list(argv)

    def system_folders(self) -> list[Path]:
        """The folders every step sees read-only besides what it is given: the toolchain's and the
        system's (so a header a compile read outside its tree can only be one of theirs)."""
        folders = [Path(f).resolve() for f in _SYSTEM_FOLDERS if os.path.isdir(f) and f != "/sys"]
        return folders + [Path(f).resolve() for f in self.cuda_folders if os.path.isdir(f)]

    def prepare_writable(self, folder: Path) -> None:
        """Makes `folder` (and what is in it) the sandbox user's, so its steps can write there."""
        folder.mkdir(parents=True, exist_ok=True)
        if self.enabled and self.uid is not None:
            for path in [folder, *folder.rglob("*")]:
                if not path.is_symlink():
                    os.chown(path, self.uid, self.uid)

    def prepare_readable(self, folder: Path) -> None:
        """Lets the sandbox user read `folder`: every folder on the way to it searchable, what is in
        it readable (the grader's own files stay as they are otherwise)."""
        if not (self.enabled and self.uid is not None):
            return
        for parent in [folder, *folder.parents]:
            mode = parent.stat().st_mode
            if not mode & 0o001:
                os.chmod(parent, mode | 0o001)
        for path in [folder, *folder.rglob("*")]:
            if path.is_symlink():
                continue
            mode = path.stat().st_mode
            os.chmod(path, mode | (0o005 if path.is_dir() else 0o004) | (0o001 if mode & 0o100 else 0))


def _outside_system(paths) -> list[Path]:
    """The folders to bind beyond the system's: each resolved (a bind through a link cannot be made
    in the read-only system), those already under a bound system folder left out."""
    roots = [Path(f).resolve() for f in _SYSTEM_FOLDERS if os.path.isdir(f)]
    out = []
    for path in paths:
        real = Path(path).resolve()
        if not any(real == root or real.is_relative_to(root) for root in roots) and real not in out:
            out.append(real)
    return out


def _processes_of_this_user() -> int:
    """How many processes this user has now: a non-root user's process limit counts them all."""
    uid = os.getuid()
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += 1
            except OSError:
                continue
    return count


def _base_environment() -> dict:
    path = "/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    env = {"PATH": os.environ.get("PATH", path), "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
    for name in ("CUDA_VISIBLE_DEVICES", "CUDA_HOME", "LD_LIBRARY_PATH", "NVIDIA_VISIBLE_DEVICES"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def gpu_devices() -> list[str]:
    """The device nodes a CUDA program opens: /dev/nvidia0.., nvidiactl, nvidia-uvm(-tools), the
    capability nodes."""
    found = []
    for pattern in _GPU_DEVICE_PATTERNS:
        found += sorted(str(p) for p in Path("/dev").glob(pattern))
    return found


def _cuda_folders() -> tuple[str, ...]:
    """Where the CUDA toolkit and driver libraries live beyond /usr: bound read-only."""
    folders = set()
    for tool in ("nvcc", "ncu", "compute-sanitizer"):
        found = shutil.which(tool)
        if found:
            real = Path(found).resolve()
            folders.add(str(real.parent.parent))
    for name in ("/usr/local/cuda", "/usr/local/nvidia", "/opt/nvidia"):
        if os.path.exists(name):
            folders.add(str(Path(name).resolve()))
    return tuple(sorted(folders))


def _extra_folders() -> tuple[str, ...]:
    """An offline bundle's tools (.deps, scripts/setup --bundle) outside /usr."""
    deps = os.environ.get("CUDALABS_DEPS")
    return (str(Path(deps).resolve()),) if deps and os.path.isdir(deps) else ()


def visible_folders() -> list[Path]:
    """The folders every sandboxed step sees whole, read-only: the system's, the toolchain's and an
    offline bundle's."""
    names = [f for f in _SYSTEM_FOLDERS if f != "/sys"] + list(_cuda_folders() + _extra_folders())
    return [Path(f).resolve() for f in names if os.path.isdir(f)]


def exposed(paths, folders=None) -> list[tuple[Path, Path]]:
    """(path, the visible folder holding it) for each of `paths` that a sandboxed step could read: the
    suite with its solutions, the grading build, the reports and the class's submissions must lie
    outside every folder the sandbox shows whole, or student code could read them."""
    folders = visible_folders() if folders is None else [Path(f).resolve() for f in folders]
    found = []
    for path in paths:
        real = Path(path).resolve()
        holder = next((f for f in folders if real == f or real.is_relative_to(f)), None)
        if holder is not None:
            found.append((real, holder))
    return found


def make_sandbox(wanted: bool = True) -> Sandbox:
    """The sandbox this node gives, tried once; when it gives none, Sandbox(enabled=False) with the
    reason in `note` (the caller refuses to go on unless sandboxing was declined on purpose)."""
    if not wanted:
        return Sandbox(False, "not sandboxed: the instructor passed --unsandboxed")
    tools = {name: shutil.which(name) for name in ("bwrap", "setpriv", "prlimit")}
    missing = [name for name, path in tools.items() if path is None]
    if missing:
        return Sandbox(
            False, "not sandboxed: " + ", ".join(missing) + " not found (scripts/setup grading installs bubblewrap)"
        )
    uid = _sandbox_uid() if os.geteuid() == 0 else None
    sandbox = Sandbox(
        True, "", tools["bwrap"], tools["setpriv"], tools["prlimit"], uid, _cuda_folders() + _extra_folders()
    )
    try:
        probe = subprocess.run(sandbox.command(["/bin/sh", "-c", "exit 0"]), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return Sandbox(False, f"not sandboxed: bwrap did not start ({error})")
    if probe.returncode != 0:
        reason = next((line for line in probe.stderr.splitlines() if line.strip()), f"exit {probe.returncode}")
        return Sandbox(False, f"not sandboxed: bwrap cannot run here ({reason.strip()})")
    who = f"user {uid}" if uid is not None else "the grader's user"
    note = (
        f"sandboxed: bubblewrap as {who}, new user, PID, network and IPC namespaces, no capabilities, "
        "read-only system, one scratch folder, limits on processes, memory, file size and CPU time; the runner "
        "under Landlock (it writes only its private /tmp, reads only what it links, executes nothing else)"
    )
    return Sandbox(True, note, tools["bwrap"], tools["setpriv"], tools["prlimit"], uid, sandbox.cuda_folders)


def copy_out(source: Path, destination: Path, max_bytes: int = 64 << 20) -> list[str]:
    """Copies the regular files of a scratch folder into the grader's own folder, never following a
    link (a link, a device or a FIFO is skipped and named) and never writing through one (the
    destination's files are opened new, O_NOFOLLOW). Returns what was skipped."""
    skipped = []
    destination.mkdir(parents=True, exist_ok=True)
    for root, dirs, files in os.walk(source, followlinks=False):
        relative = Path(root).relative_to(source)
        for name in dirs:
            if (Path(root) / name).is_symlink():
                skipped.append(str(relative / name))
        for name in files:
            path = Path(root) / name
            target = destination / relative / name
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                skipped.append(str(relative / name))
                continue
            with os.fdopen(fd, "rb") as stream:
                if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                    skipped.append(str(relative / name))
                    continue
                data = stream.read(max_bytes)
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_symlink() or target.exists():
                target.unlink()
            out = os.open(
                target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644
            )  # new, never through a link
            with os.fdopen(out, "wb") as stream:
                stream.write(data)
    return skipped
