"""The sandbox every step of a student's code runs in (cudalabs.grading.sandbox), shown claim by claim
on this machine: a hostile program run inside it cannot remount "/", cannot see or signal a process
outside, cannot outlive its step, cannot write outside its scratch folder or through a link the
grader later copies, has no network and no capability, and meets its process and file limits."""
import os
import shutil
import subprocess
import tempfile
import time
import unittest
from pathlib import Path
from unittest import mock

from cudalabs.grading import sandbox
from cudalabs.grading.sandbox import Limits

PYTHON = "/usr/bin/python3"  # the system's: the sandbox binds /usr, not a user's own Python


class SandboxTest(unittest.TestCase):
    def setUp(self):
        self.box = sandbox.make_sandbox()
        if not self.box.enabled:
            self.skipTest(f"this machine does not allow it: {self.box.note}")
        self.tmp = tempfile.TemporaryDirectory()
        os.chmod(self.tmp.name, 0o755)
        self.scratch = Path(self.tmp.name) / "scratch"
        self.box.prepare_writable(self.scratch)
        self.outside = Path(self.tmp.name) / "outside"
        self.outside.mkdir()

    def tearDown(self):
        self.tmp.cleanup()

    def run_inside(self, script: str, limits: Limits = Limits(), timeout: float = 60) -> subprocess.CompletedProcess:
        command = self.box.command([PYTHON, "-c", script], writes=[self.scratch], workdir=self.scratch, limits=limits)
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)

    def test_cannot_remount_root_writable(self):
        done = self.run_inside(
            "import subprocess, sys\n"
            "r = subprocess.run(['mount', '-o', 'remount,rw', '/'], capture_output=True)\n"
            "open('/usr/planted', 'w')"
        )
        self.assertNotEqual(done.returncode, 0)
        self.assertFalse(Path("/usr/planted").exists())
        self.assertRegex(done.stderr, "Read-only file system|Permission denied")

    def test_has_no_capability_and_no_root(self):
        done = self.run_inside(
            "import os\nprint(os.getuid())\n"
            "print([l for l in open('/proc/self/status') if l.startswith(('CapEff', 'NoNewPrivs'))])"
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertNotEqual(done.stdout.splitlines()[0], "0")
        self.assertIn("CapEff:\\t0000000000000000", done.stdout)
        self.assertIn("NoNewPrivs:\\t1", done.stdout)

    def test_cannot_see_or_signal_a_process_outside(self):
        outside = subprocess.Popen(["sleep", "60"])
        try:
            done = self.run_inside(f"import os\nos.kill({outside.pid}, 9)")
            self.assertNotEqual(done.returncode, 0)
            self.assertIn("ProcessLookupError", done.stderr)
            self.assertIsNone(outside.poll(), "the process outside the sandbox was killed")
            listing = self.run_inside("import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))")
            self.assertNotIn(str(outside.pid) + ",", listing.stdout + ",")
        finally:
            outside.kill()
            outside.wait()

    def test_cannot_outlive_its_step(self):
        marker = "cudalabs-sandbox-outlive-" + str(os.getpid())
        done = self.run_inside(
            "import subprocess\n"
            f"subprocess.Popen(['setsid', 'sh', '-c', 'exec -a {marker} sleep 300'], start_new_session=True)\n"
            "print('started')"
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        deadline = time.time() + 10
        while time.time() < deadline:
            alive = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
            if not alive:
                break
            time.sleep(0.2)
        self.assertEqual(alive, [], "a process the step started is still running after the step ended")

    def test_writes_only_its_scratch_folder(self):
        done = self.run_inside(
            "open('kept.txt', 'w').write('x')\n" f"open({str(self.outside / 'planted.txt')!r}, 'w').write('x')"
        )
        self.assertNotEqual(done.returncode, 0)
        self.assertTrue((self.scratch / "kept.txt").exists())
        self.assertFalse((self.outside / "planted.txt").exists())
        home = Path.home()
        self.assertFalse(
            self.run_inside(f"import os\nprint(os.listdir({str(home)!r}))").returncode == 0 and any(home.iterdir()),
            "the grader's home folder is visible in the sandbox",
        )

    def test_the_grader_never_writes_through_a_planted_link(self):
        victim = self.outside / "grade-report.json"
        victim.write_text("the grader's own file")
        done = self.run_inside(
            f"import os\nos.symlink({str(victim)!r}, 'results.json')\n"
            f"os.symlink({str(self.outside)!r}, 'folder')\nopen('real.txt', 'w').write('data')"
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        copied = Path(self.tmp.name) / "copied"
        copied.mkdir()
        (copied / "real.txt").symlink_to(victim)  # a link where a copied file goes: replaced, not followed
        skipped = sandbox.copy_out(self.scratch, copied)
        self.assertEqual(victim.read_text(), "the grader's own file")
        self.assertIn("results.json", skipped)
        self.assertIn("folder", skipped)
        self.assertFalse((copied / "real.txt").is_symlink())
        self.assertEqual((copied / "real.txt").read_text(), "data")
        self.assertFalse((copied / "results.json").exists())

    def test_has_no_network(self):
        done = self.run_inside("import socket\ns = socket.socket()\ns.settimeout(5)\ns.connect(('1.1.1.1', 80))")
        self.assertNotEqual(done.returncode, 0)
        self.assertRegex(done.stderr, "Network is unreachable|timed out|refused")

    def test_process_limit_holds(self):
        done = self.run_inside(
            "import os, time\ncount = 0\n"
            "try:\n    for _ in range(200):\n        if os.fork() == 0:\n            time.sleep(20)\n"
            "            os._exit(0)\n        count += 1\nexcept OSError:\n    print('refused at', count)\n",
            limits=Limits(processes=24),
            timeout=120,
        )
        self.assertIn("refused at", done.stdout, done.stderr)
        self.assertLess(int(done.stdout.split()[-1]), 24)

    def test_file_size_limit_holds(self):
        done = self.run_inside(
            "f = open('big', 'wb')\nfor _ in range(64):\n    f.write(b'x' * (1 << 20))\n",
            limits=Limits(file_bytes=8 << 20),
        )
        self.assertNotEqual(done.returncode, 0)
        self.assertLessEqual((self.scratch / "big").stat().st_size, 8 << 20)

    def test_memory_limit_holds(self):
        done = self.run_inside("data = bytearray(1 << 30)\nprint(len(data))", limits=Limits(data_bytes=256 << 20))
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("MemoryError", done.stderr)

    def test_wall_clock_limit_ends_the_whole_step(self):
        from cudalabs.grading.process import run_logged

        log = Path(self.tmp.name) / "slow.log"
        started = time.time()
        done = run_logged(
            self.box.command([PYTHON, "-c", "import time\ntime.sleep(120)"], writes=[self.scratch]), log, 3
        )
        self.assertTrue(done.timed_out)
        self.assertLess(time.time() - started, 30)


class ExposedTest(unittest.TestCase):
    """What every sandboxed step sees whole must hold nothing of the grader's (scripts/grade refuses)."""

    def test_a_path_under_a_folder_every_step_sees_is_named_with_that_folder(self):
        folders = sandbox.visible_folders()
        self.assertIn(Path("/usr").resolve(), folders)
        self.assertEqual(sandbox.exposed(["/usr/share/course"]), [(Path("/usr/share/course"), Path("/usr").resolve())])
        with tempfile.TemporaryDirectory() as private:  # /tmp is the sandbox's own, never the host's
            self.assertEqual(sandbox.exposed([private]), [])

    def test_a_link_is_judged_by_where_it_leads(self):
        with tempfile.TemporaryDirectory() as folder:
            link = Path(folder) / "course"
            link.symlink_to("/opt")
            self.assertEqual(sandbox.exposed([link / "class"], folders=["/opt"]), [(Path("/opt/class"), Path("/opt"))])

    def test_grade_refuses_a_submission_the_sandbox_would_show_before_it_needs_a_gpu(self):
        repo = Path(__file__).resolve().parents[2]
        env = dict(os.environ, PYTHONPATH=str(repo / "python"))
        done = subprocess.run(
            [str(repo / "scripts" / "grade"), "--submission", "/usr/share", "--labs", "00"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertEqual(len(lines), 1, done.stderr)
        self.assertIn("/usr/share lies under /usr, which every sandboxed step sees", lines[0])


class NoSandboxTest(unittest.TestCase):
    def test_the_report_says_why_when_there_is_none(self):
        with mock.patch.object(shutil, "which", return_value=None):
            box = sandbox.make_sandbox()
        self.assertFalse(box.enabled)
        self.assertIn("bwrap", box.note)
        self.assertEqual(box.command(["x"]), ["x"])
        self.assertIn("--unsandboxed", sandbox.make_sandbox(wanted=False).note)


if __name__ == "__main__":
    unittest.main()
