"""scripts/profile_compare.py (make profile's side-by-side table) on a recorded profile, scripts/profile's
refusal of a bad lab number and its CSV from a stand-in ncu, and the raw-page reader they share; no GPU
needed."""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from cudalabs.records import ncu_page, profile_compare

REPO = Path(__file__).resolve().parents[2]

RECORDED = REPO / "docs" / "data" / "profiles" / "lab05_nvidia-h100-80gb-hbm3.csv"
# ncu's raw page as it arrives: the program's output before it and between its lines, a torn row.
PAGE = (
    "lab05: checking...\n"
    '"ID","Kernel Name","gpu__time_duration.sum"\n'
    '"","","ns"\n'
    '"0","lab05::tiled","1,024"\n'
    "  rt_1d: PASS\n"
    '"1","lab05::rt_1d","512"\n'
    '"2","lab05::torn"\n'
)


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

    def test_profile_writes_each_variant_s_kernels_from_ncu_s_page(self):
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            (root / "bin").mkdir()
            (root / "build" / "labs").mkdir(parents=True)
            driver = root / "build" / "labs" / "lab05"
            driver.write_text('#!/bin/sh\n[ "$1" = --list ] && printf "tiled\\tone\\nrt_1d\\ttwo\\n"\nexit 0\n')
            (root / "page.txt").write_text(PAGE)
            ncu = root / "bin" / "ncu"
            ncu.write_text(f"#!/bin/sh\ncat '{root / 'page.txt'}'\n")
            for program in (driver, ncu):
                program.chmod(0o755)
            env = {**os.environ, "PATH": f"{root / 'bin'}:{os.environ['PATH']}"}
            done = subprocess.run(
                [str(REPO / "scripts" / "profile"), str(root / "build"), "05", str(root / "out.csv")],
                capture_output=True,
                text=True,
                env=env,
            )
            self.assertEqual(done.returncode, 0, done.stderr)
            lines = (root / "out.csv").read_text().splitlines()
        self.assertEqual(lines[:2], ["variant,ID,Kernel Name,gpu__time_duration.sum", ",,,ns"])
        self.assertEqual(
            [line.split(",")[0] for line in lines[2:]], ["tiled", "tiled", "rt_1d", "rt_1d", "cublas", "cublas"]
        )

    def test_the_raw_page_skips_the_program_s_lines_and_torn_rows(self):
        header, units, rows = ncu_page.raw_page(PAGE)
        self.assertEqual(header, ["ID", "Kernel Name", "gpu__time_duration.sum"])
        self.assertEqual(units, ["", "", "ns"])
        self.assertEqual([row[1] for row in rows], ["lab05::tiled", "lab05::rt_1d"])
        self.assertEqual(ncu_page.kernels(PAGE)[1]["gpu__time_duration.sum"], "512")
        self.assertEqual(ncu_page.raw_page("no page here\n"), ([], [], []))


if __name__ == "__main__":
    unittest.main()
