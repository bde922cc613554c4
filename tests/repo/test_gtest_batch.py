"""cmake/gtest_batch.py: where no GPU is present a GPU program's tests run in one process, and each test's
ctest entry prints the result written for it. On a planted program (gtest_batch_planted.cpp: a test that
passes, one that skips, one that fails, parameterized names, and on demand a crash): each result says what
its test did, and a test the crash cut off fails rather than passing or vanishing.

  CUDALABS_PLANTED_GTEST=BUILD/tests/gtest_batch_planted PYTHONPATH=python python3 -m unittest test_gtest_batch
"""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from cudalabs.testing import skipped

REPO = Path(__file__).resolve().parents[2]
BATCH = REPO / "cmake" / "gtest_batch.py"
PLANTED = os.environ.get("CUDALABS_PLANTED_GTEST", "")


def batch(results: Path, **environment):
    return subprocess.run(
        [sys.executable, str(BATCH), PLANTED, str(results), "60"],
        capture_output=True,
        text=True,
        env={**os.environ, **environment},
    )


def result_in(results: Path, test: str) -> str:
    return (results / (test.replace("%", "%25").replace("/", "%2F") + ".txt")).read_text()


@unittest.skipUnless(PLANTED, "CUDALABS_PLANTED_GTEST names no program (ctest sets it)")
class GtestBatchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory()
        cls.addClassCleanup(cls.scratch.cleanup)
        cls.folder = Path(cls.scratch.name)
        cls.results = cls.folder / "results"
        cls.results.mkdir()
        (cls.results / "Planted.Stale.txt").write_text("[       OK ] Planted.Stale\n")
        cls.done = batch(cls.results)

    def result(self, test):
        return result_in(self.results, test)

    def test_the_run_passes_when_the_program_ran_to_its_end(self):
        self.assertEqual(self.done.returncode, 0, self.done.stdout + self.done.stderr)

    def test_each_result_says_what_its_test_did(self):
        self.assertIn("[       OK ] Planted.Passes", self.result("Planted.Passes"))
        failed = self.result("Planted.Fails")
        self.assertIn("[  FAILED  ] Planted.Fails", failed)
        self.assertIn("planted failure", failed)
        self.assertNotIn("[       OK ]", failed)
        skip = self.result("Planted.Skips")
        self.assertIn("[  SKIPPED ] Planted.Skips", skip)
        self.assertNotIn("[       OK ]", skip)

    def test_a_skip_keeps_its_reason_for_make_tests_summary(self):
        self.assertEqual(skipped.reason_of(self.result("Planted.Skips"), "none"), "no CUDA GPU available (planted)")

    def test_parameterized_names_get_files_of_their_own(self):
        for index in (0, 1):
            self.assertIn(f"[       OK ] Few/Sizes.Positive/{index}", self.result(f"Few/Sizes.Positive/{index}"))

    def test_no_result_of_an_earlier_run_is_left(self):
        self.assertFalse((self.results / "Planted.Stale.txt").exists())

    def test_a_test_the_program_never_finished_fails(self):
        results = self.folder / "crash-results"
        done = batch(results, CUDALABS_PLANT_CRASH="1")
        self.assertNotEqual(done.returncode, 0)
        for test in ("Planted.CrashesWhenAsked", "Planted.Passes"):  # gtest writes its report at the end: none
            text = result_in(results, test)
            self.assertIn("[  FAILED  ]", text)
            self.assertIn("no result", text)
            self.assertIn(f"--gtest_filter={test}", text)


if __name__ == "__main__":
    unittest.main()
