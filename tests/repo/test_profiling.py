"""scripts/profile_compare.py (make profile's side-by-side table) on a recorded profile, and
scripts/profile's refusal of a bad lab number; no GPU needed."""
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from cudalabs.records import profile_compare

REPO = Path(__file__).resolve().parents[2]

RECORDED = REPO / "docs" / "data" / "profiles" / "lab05_nvidia-h100-80gb-hbm3.csv"


class ProfileCompareTest(unittest.TestCase):
    def test_key_metrics_in_the_handouts_units(self):
        profile = profile_compare.read_profile(RECORDED)
        self.assertEqual(list(profile)[:2], ["rt_1d", "rt_2d"])
        rt_2d = profile["rt_2d"]
        self.assertEqual(profile_compare.key_value(rt_2d, "launch__registers_per_thread", None), 125)
        time_ms = profile_compare.key_value(rt_2d, "gpu__time_duration.sum", 1e-6)
        self.assertGreater(time_ms, 0.1)  # ncu records ns; the table is in ms
        self.assertLess(time_ms, 100.0)
        sectors = profile_compare.key_value(
            rt_2d,
            ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
            None,
        )
        self.assertGreater(sectors, 1.0)

    def test_side_by_side_and_missing_files(self):
        done = subprocess.run(
            [sys.executable, str(REPO / "scripts" / "profile_compare.py"), str(RECORDED), str(RECORDED)],
            capture_output=True,
            text=True,
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        line = next(row for row in done.stdout.splitlines() if "registers / thread" in row and "125" in row)
        self.assertEqual(line.split()[-2:], ["125", "125"])
        done = subprocess.run(
            [sys.executable, str(REPO / "scripts" / "profile_compare.py"), "/nonexistent.csv"],
            capture_output=True,
            text=True,
        )
        self.assertEqual(done.returncode, 2)
        self.assertIn("'/nonexistent.csv' is not a file", done.stderr)

    def test_profile_refuses_a_bad_lab_number(self):
        with tempfile.TemporaryDirectory() as folder:
            done = subprocess.run(
                [str(REPO / "scripts" / "profile"), folder, "5", f"{folder}/x.csv"], capture_output=True, text=True
            )
        self.assertEqual(done.returncode, 2)
        self.assertIn("LAB_NUMBER '5' is not two digits", done.stderr)


if __name__ == "__main__":
    unittest.main()
