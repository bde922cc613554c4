"""The runner's confinement (cudalabs.grading.confinement, grader/confine/), claim by claim on this
machine: a program started the way the grader starts a runner, inside the sandbox and under a tool
that writes its report in the scratch folder, tries each way out and reports what the kernel let it
do. It names the functions it calls, as test code may; the plants of by_address.py show the same
for code that names nothing (test_runner.py, and the GPU self-test)."""
import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock
from pathlib import Path

from cudalabs.grading import confinement, sandbox
from cudalabs.grading.referee import RunnerSpec

from grading_build import grading_build

PROBE = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void said(const char* what, int ok) { printf("%s: %s\n", what, ok ? "done" : "refused"); }
static int opens(const char* path, int flags) {
  int fd = open(path, flags, 0644);
  if (fd >= 0) close(fd);
  return fd >= 0;
}

int main(int argc, char** argv) {
  char memory[64], command[64], environment[64];
  snprintf(memory, sizeof memory, "/proc/%d/mem", (int)getppid());
  snprintf(command, sizeof command, "/proc/%d/cmdline", (int)getppid());
  snprintf(environment, sizeof environment, "/proc/%d/environ", (int)getppid());
  said("write the report", opens("tool.log", O_WRONLY | O_APPEND));
  said("truncate the report", truncate("tool.log", 0) == 0);
  said("remove the report", unlink("tool.log") == 0);
  said("rename the report", rename("tool.log", "tool.old") == 0);
  said("create a file in the scratch folder", opens("planted", O_WRONLY | O_CREAT));
  said("write through an inherited descriptor", write(7, "forged\n", 7) == 7);
  said("load a library it does not link", argc > 1 && dlopen(argv[1], RTLD_NOW) != NULL);
  said("read a system file it does not need", opens("/usr/bin/env", O_RDONLY));
  said("signal the tool", kill(getppid(), SIGCONT) == 0);
  said("open the tool's memory", opens(memory, O_RDWR));
  said("read the tool's command line", opens(command, O_RDONLY));
  said("read the tool's environment", opens(environment, O_RDONLY));
  said("read another process's status", opens("/proc/1/status", O_RDONLY));
  pid_t child = fork();
  if (child == 0) {
    execl("/bin/true", "true", (char*)NULL);
    _exit(42);
  }
  int status = 0;
  waitpid(child, &status, 0);
  said("execute another program", WIFEXITED(status) && WEXITSTATUS(status) == 0);
  said("write its private /tmp", opens("/tmp/scratch-of-its-own", O_WRONLY | O_CREAT));
  said("write /dev/null", opens("/dev/null", O_WRONLY));
  said("read its own folder", opens(argv[0], O_RDONLY));
  said("read /proc", opens("/proc/self/status", O_RDONLY));
  said("read the system's facts in /proc",
       opens("/proc/meminfo", O_RDONLY) && opens("/proc/sys/kernel/pid_max", O_RDONLY));
  said("name its thread in /proc/self", opens("/proc/thread-self/comm", O_WRONLY));
  return 0;
}
"""

REFUSED = [
    "write the report",
    "truncate the report",
    "remove the report",
    "rename the report",
    "create a file in the scratch folder",
    "write through an inherited descriptor",
    "load a library it does not link",
    "read a system file it does not need",
    "open the tool's memory",
    "read the tool's command line",
    "read the tool's environment",
    "read another process's status",
    "execute another program",
]
DONE = [
    "write its private /tmp",
    "write /dev/null",
    "read its own folder",
    "read /proc",
    "read the system's facts in /proc",
    "name its thread in /proc/self",
]


def _unlinked_library() -> str | None:
    """A shared library of this system that the probe does not link: cuBLAS where it is installed."""
    cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    for name in ("libcublas.so", "libz.so.1", "libm.so.6"):
        if any(line.strip().startswith(name) for line in cache.splitlines()):
            return name
    return None


class ScratchParentTest(unittest.TestCase):
    """Where the scratch folders go: the grading build, unless the runner may write there (a checkout
    under /tmp, which make test must pass in), then a folder outside what the runner may write."""

    def test_a_build_the_runner_cannot_write_keeps_its_scratch(self):
        # A folder outside what the runner may write, wherever this checkout is: scratch_parent's own.
        with tempfile.TemporaryDirectory(dir=confinement.scratch_parent(grading_build())) as build:
            self.assertIsNone(confinement.under_writable(Path(build)))
            self.assertEqual(confinement.scratch_parent(Path(build)), Path(build))

    def test_a_build_under_tmp_gets_a_scratch_folder_elsewhere(self):
        with tempfile.TemporaryDirectory(dir="/tmp") as build:
            parent = confinement.scratch_parent(Path(build) / "build")
            self.assertIsNone(confinement.under_writable(parent), parent)
            self.assertTrue(os.access(parent, os.W_OK))
            self.assertEqual(parent.stat().st_uid, os.getuid())

    def test_cudalabs_scratch_comes_first_unless_the_runner_may_write_it(self):
        outside = confinement.scratch_parent(grading_build())
        with tempfile.TemporaryDirectory(dir="/tmp") as build, tempfile.TemporaryDirectory(dir=outside) as mine:
            with mock.patch.dict(os.environ, {"CUDALABS_SCRATCH": mine}):
                self.assertEqual(confinement.scratch_parent(Path(build)).parent, Path(mine))
            with mock.patch.dict(os.environ, {"CUDALABS_SCRATCH": build}):
                self.assertNotEqual(confinement.scratch_parent(Path(build)).parent, Path(build))

    def test_no_folder_left_is_one_clear_error(self):
        with tempfile.TemporaryDirectory(dir="/tmp") as build, mock.patch.object(
            confinement, "SCRATCH_FALLBACKS", ()
        ), mock.patch.dict(os.environ, {"CUDALABS_SCRATCH": "", "HOME": "/proc/no-home"}):
            with self.assertRaisesRegex(ValueError, "set CUDALABS_SCRATCH"):
                confinement.scratch_parent(Path(build))


class ConfinementTest(unittest.TestCase):
    def setUp(self):
        self.box = sandbox.make_sandbox()
        if not self.box.enabled:
            self.skipTest(f"this machine does not allow it: {self.box.note}")
        self.build = grading_build()
        if not confinement.launcher_in(self.build).is_file():
            self.skipTest(f"the launcher is not built in {self.build} (target grader_confine)")
        # Not where the runner may write (a build under /tmp): scratch_parent chooses.
        self.tmp = tempfile.TemporaryDirectory(dir=confinement.scratch_parent(self.build))
        os.chmod(self.tmp.name, 0o755)
        root = Path(self.tmp.name)
        why = confinement.unavailable(self.box, self.build, root / "probe.log")
        if why is not None:
            self.skipTest(why)
        self.folder, self.scratch = root / "run", root / "scratch"
        self.folder.mkdir()
        (root / "probe.c").write_text(PROBE)
        subprocess.run(["gcc", "-O1", "-o", str(self.folder / "runner"), str(root / "probe.c")], check=True)
        self.box.prepare_readable(self.folder)
        self.box.prepare_writable(self.scratch)
        self.log = root / "confinement.log"

    def tearDown(self):
        self.tmp.cleanup()

    def run_probe(self) -> tuple[dict[str, str], subprocess.CompletedProcess]:
        # A stand-in tool: writes its report, keeps a descriptor on it open for the child (as a tool
        # that forgot close-on-exec would), runs the runner, and adds a line after it.
        tool = ["/bin/sh", "-c", 'echo "tool report" > tool.log; exec 7>>tool.log; "$@"; echo "tool after" >&7', "tool"]
        spec = RunnerSpec(
            self.folder, self.scratch, confinement.for_runner(self.box, self.build, self.folder, self.log)
        )
        argv = spec.command(self.box, tool)
        library = _unlinked_library() or "libnothing.so"
        done = subprocess.run(argv + [library], capture_output=True, text=True, timeout=120)
        said = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line)
        return said, done

    def test_the_runner_cannot_touch_the_tools_report_or_leave_its_folders(self):
        said, done = self.run_probe()
        self.assertEqual(done.returncode, 0, done.stderr)
        for what in REFUSED:
            self.assertEqual(said.get(what), "refused", f"{what}: {said}")
        for what in DONE:
            self.assertEqual(said.get(what), "done", f"{what}: {said}")
        self.assertEqual((self.scratch / "tool.log").read_text(), "tool report\ntool after\n")
        self.assertFalse((self.scratch / "planted").exists())

    def test_signals_outside_are_refused_where_the_kernel_scopes_them(self):
        abi = subprocess.run(
            self.box.command([str(confinement.launcher_in(self.build)), "--probe"], reads=[self.build / "grader"]),
            capture_output=True,
            text=True,
        ).stdout
        if int(abi.split()[-1]) < 6:
            self.skipTest(f"this kernel's Landlock ({abi.strip()}) does not scope signals")
        said, _ = self.run_probe()
        self.assertEqual(said.get("signal the tool"), "refused", said)

    def test_a_scratch_folder_the_runner_may_write_is_refused(self):
        spec = RunnerSpec(
            self.folder, Path("/tmp/scratch"), confinement.for_runner(self.box, self.build, self.folder, self.log)
        )
        with self.assertRaisesRegex(ValueError, "lies under /tmp"):
            spec.command(self.box)

    def test_the_reads_are_the_runners_closure_not_the_system(self):
        reads = confinement.for_runner(self.box, self.build, self.folder, self.log).reads
        libc = [r for r in reads if "libc.so" in r]
        self.assertTrue(libc, reads)
        for folder in ("/usr", "/usr/lib", "/lib", "/usr/local", "/opt", "/usr/local/cuda"):
            self.assertNotIn(folder, reads)
        self.assertFalse([r for r in reads if "cublas" in r or "cudnn" in r], reads)

    def test_a_watching_tools_folder_is_never_a_toolkits_root(self):
        root = Path(self.tmp.name) / "cuda"
        (root / "bin").mkdir(parents=True)
        (root / "lib64").mkdir()
        (root / "compute-sanitizer").mkdir()
        for tool in (root / "bin" / "ncu", root / "compute-sanitizer" / "compute-sanitizer"):
            tool.write_text("#!/bin/sh\n")
            tool.chmod(0o755)
        self.assertIsNone(confinement.tool_folder(str(root / "bin" / "ncu")))  # no nsight-compute* beside it
        self.assertEqual(
            confinement.tool_folder(str(root / "compute-sanitizer" / "compute-sanitizer")), root / "compute-sanitizer"
        )
        for version in ("2099.10.0", "2099.9.1"):
            (root / f"nsight-compute-{version}").mkdir()
        self.assertEqual(confinement.tool_folder(str(root / "bin" / "ncu")), root / "nsight-compute-2099.10.0")
        shutil.rmtree(root / "compute-sanitizer")
        (root / "bin" / "compute-sanitizer").write_text("#!/bin/sh\n")
        self.assertIsNone(confinement.tool_folder(str(root / "bin" / "compute-sanitizer")))

    def test_the_launcher_refuses_bad_arguments_in_one_line(self):
        launcher = str(confinement.launcher_in(self.build))
        for argv, message in (
            ([launcher, "--read"], "unknown argument '--read'"),
            ([launcher, "--read", "relative", "--", "/bin/true"], "'relative' is not an absolute path"),
            ([launcher, "--frobnicate", "x"], "unknown argument '--frobnicate'"),
            ([launcher, "--read", "/etc"], "no program after '--'"),
        ):
            done = subprocess.run(argv, capture_output=True, text=True)
            self.assertEqual(done.returncode, 2, argv)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertIn(message, done.stderr)


if __name__ == "__main__":
    unittest.main()
