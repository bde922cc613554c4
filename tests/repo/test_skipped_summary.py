"""make test's last lines (cudalabs.testing.skipped): one line per reason tests were skipped, read from
ctest's JUnit report, whatever kind of test skipped."""
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from cudalabs.testing import skipped

REPO = Path(__file__).resolve().parents[2]

GTEST_NO_GPU = """Running main() from gmock_main.cc
Note: Google Test filter = Copy.Aligned
[==========] Running 1 test from 1 test suite.
[ RUN      ] Copy.Aligned
tests/support/gpu_test.h:14: Skipped
no CUDA GPU available: no NVIDIA driver is installed (libcuda.so.1 cannot be loaded)

[  SKIPPED ] Copy.Aligned (0 ms)
[==========] 1 test from 1 test suite ran. (0 ms total)
"""


def case(name, output, skip_message=None):
    skip = f'<skipped message="{skip_message}"/>' if skip_message else ""
    status = "notrun" if skip_message else "run"
    return (
        f'<testcase name="{name}" classname="{name}" status="{status}">{skip}'
        f"<system-out>{output}</system-out></testcase>"
    )


def report(*cases):
    return '<?xml version="1.0"?><testsuite name="x" tests="1">' + "".join(cases) + "</testsuite>"


class SkippedSummaryTest(unittest.TestCase):
    def summary(self, xml):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "junit.xml"
            path.write_text(xml)
            return skipped.summary_lines(skipped.skipped_reasons(path))

    def test_one_line_per_reason_most_first(self):
        lines = self.summary(
            report(
                *[case(f"gpu{i}", GTEST_NO_GPU, "SKIP_REGULAR_EXPRESSION_MATCHED") for i in range(1203)],
                case(
                    "rt_1d",
                    "x.cpp:64: Skipped\nrt_1d: not implemented yet\n[  SKIPPED ]",
                    "SKIP_REGULAR_EXPRESSION_MATCHED",
                ),
                case(
                    "rt_2d",
                    "x.cpp:64: Skipped\nrt_2d: not implemented yet\n[  SKIPPED ]",
                    "SKIP_REGULAR_EXPRESSION_MATCHED",
                ),
                case("selftest", "grader self-test: no CUDA GPU, nothing to grade\n", "SKIP_RETURN_CODE=77"),
                case("passed", "[       OK ] A.b (0 ms)\n"),
            )
        )
        self.assertEqual(
            lines,
            [
                "1,203 skipped: no CUDA GPU available: no NVIDIA driver is installed (libcuda.so.1 cannot be loaded)",
                "2 skipped: not implemented yet",
                "1 skipped: grader self-test: no CUDA GPU, nothing to grade",
            ],
        )

    def test_a_skip_without_output_falls_back_to_ctests_word(self):
        self.assertEqual(
            self.summary(report(case("silent", "", "SKIP_RETURN_CODE=77"))), ["1 skipped: SKIP_RETURN_CODE=77"]
        )

    def test_nothing_skipped_prints_nothing(self):
        self.assertEqual(self.summary(report(case("passed", "ok"))), [])

    def test_the_command_line(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "junit.xml"
            path.write_text(report(case("gpu", GTEST_NO_GPU, "SKIP_REGULAR_EXPRESSION_MATCHED")))
            done = subprocess.run(
                [sys.executable, "-m", "cudalabs.testing.skipped", str(path)],
                capture_output=True,
                text=True,
                env={"PYTHONPATH": str(REPO / "python")},
            )
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertTrue(done.stdout.startswith("1 skipped: no CUDA GPU available"))
            missing = subprocess.run(
                [sys.executable, "-m", "cudalabs.testing.skipped", str(path) + ".none"],
                capture_output=True,
                text=True,
                env={"PYTHONPATH": str(REPO / "python")},
            )
            self.assertEqual(missing.returncode, 2)
            self.assertEqual(len(missing.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
