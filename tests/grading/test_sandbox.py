"""The sandbox student code runs in (scripts/grading/sandbox.py): no network, read-only but the report
folder, a private /tmp; and the report's line when the node does not allow it."""
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))

from grading import sandbox  # noqa: E402


class SandboxTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.reports = Path(self.tmp.name) / "report"
        self.reports.mkdir()
        self.box = sandbox.make_sandbox([self.reports], readable=[REPO])
        if not self.box.prefix:
            self.skipTest(f"this machine does not allow it: {self.box.note}")

    def tearDown(self):
        self.tmp.cleanup()

    def run_inside(self, script: str) -> subprocess.CompletedProcess:
        return subprocess.run(self.box.wrap([sys.executable, "-c", script]), capture_output=True, text=True,
                              timeout=60)

    def test_only_the_report_folder_is_writable(self):
        done = self.run_inside(f"open({str(self.reports / 'ok.txt')!r}, 'w').write('x')")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue((self.reports / "ok.txt").exists())
        done = self.run_inside(f"open({str(REPO / 'planted.txt')!r}, 'w').write('x')")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("Read-only file system", done.stderr)
        self.assertFalse((REPO / "planted.txt").exists())

    def test_the_suite_stays_visible_under_a_private_tmp(self):
        # A checkout (and its grading build) under /tmp must not vanish behind the private /tmp.
        with tempfile.TemporaryDirectory(dir="/tmp") as folder:
            suite = Path(folder) / "suite"
            suite.mkdir()
            (suite / "marker.txt").write_text("here")
            box = sandbox.make_sandbox([self.reports], readable=[suite])
            done = subprocess.run(box.wrap(["cat", str(suite / "marker.txt")]), capture_output=True, text=True,
                                  timeout=60)
            self.assertEqual((done.returncode, done.stdout), (0, "here"), done.stderr)
            done = subprocess.run(box.wrap(["touch", str(suite / "new.txt")]), capture_output=True, text=True,
                                  timeout=60)
            self.assertNotEqual(done.returncode, 0)
            self.assertIn("Read-only file system", done.stderr)

    def test_tmp_is_private(self):
        marker = Path("/tmp") / f"sandbox-test-{Path(self.tmp.name).name}"
        done = self.run_inside(f"open({str(marker)!r}, 'w').write('x')")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertFalse(marker.exists(), "a file written to /tmp inside the sandbox appeared outside")

    def test_no_network(self):
        # Whatever listens on this machine's loopback, the sandbox has its own, empty network.
        done = self.run_inside("import socket\ns = socket.socket()\ns.settimeout(5)\n"
                               "s.connect(('127.0.0.1', 9))")
        self.assertNotEqual(done.returncode, 0)
        self.assertRegex(done.stderr, "Connection refused|Network is unreachable|timed out")


class NoSandboxTest(unittest.TestCase):
    def test_the_report_says_when_there_is_none(self):
        with mock.patch.object(shutil, "which", return_value=None):
            box = sandbox.make_sandbox([Path("/tmp")])
        self.assertEqual(box.prefix, ())
        self.assertIn("not sandboxed: bubblewrap (bwrap) is not installed", box.note)
        self.assertEqual(box.wrap(["x"]), ["x"])
        self.assertIn("--no-sandbox", sandbox.make_sandbox([], wanted=False).note)


if __name__ == "__main__":
    unittest.main()
