"""The Makefile's commands as the README and the instructors' guide write them, on any machine: the
Makefile runs in a copy of the suite's front (the Makefile, labs/ linked) whose scripts are stubs that
record what make passed them, and a stub scripts/gpu-present says whether a GPU is there.

- `make grade SUBMISSION=dir` and `make grade-class CLASS=dir` without LABS pass the grader an empty
  --labs (every lab), which the grader's own parser takes as every lab; with LABS=05,06,07, those.
- `make gpu-check` without a GPU stops at once with the suite's one no-GPU line and a non-zero exit,
  before scripts/gpu-check; scripts/gpu-check run directly stops the same way, before any build."""
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from cudalabs.labs import lab_numbers  # PYTHONPATH=python (tests/CMakeLists.txt)

REPO = Path(__file__).resolve().parents[2]
HAVE_GRADER = (REPO / "scripts" / "grade").exists()  # a student release has none

# A stub records its name and arguments, one per line after the name, in $RECORD/<name>.args.
STUB = """#!/usr/bin/env bash
for argument in "$@"; do printf '%s\\n' "$argument"; done > "$RECORD/$(basename "$0").args"
"""


class FrontDoor:
    """A folder where the Makefile runs with stub scripts; `gpu` says what scripts/gpu-present
    answers."""

    def __init__(self, root: Path, gpu: bool):
        self.root = root
        self.record = root / "record"
        self.record.mkdir()
        shutil.copy(REPO / "Makefile", root / "Makefile")
        (root / "labs").symlink_to(REPO / "labs")
        (root / "solutions" / "00_roofline").mkdir(parents=True)  # the Makefile's HAVE_SOLUTIONS
        scripts = root / "scripts"
        scripts.mkdir()
        for name in ("setup", "grade", "grade-class", "gpu-check"):
            (scripts / name).write_text(STUB)
        (scripts / "gpu-present").write_text(f"#!/usr/bin/env bash\nexit {0 if gpu else 1}\n")
        for script in scripts.iterdir():
            script.chmod(0o755)

    def make(self, *arguments):
        environment = {k: v for k, v in os.environ.items() if k not in ("LABS", "MAKEFLAGS", "MFLAGS")}
        environment["RECORD"] = str(self.record)
        return subprocess.run(
            ["make", "--no-print-directory", *arguments],
            cwd=self.root,
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def arguments(self, script):
        path = self.record / f"{script}.args"
        return path.read_text().split("\n")[:-1] if path.exists() else None


def option(arguments, name):
    """The value after `name` in a recorded argument list."""
    assert name in arguments, f"{name} not in {arguments}"
    return arguments[arguments.index(name) + 1]


@unittest.skipUnless(HAVE_GRADER, "a student release has no grader")
class GradeTargets(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.front = FrontDoor(Path(self.tmp.name), gpu=True)
        self.submission = Path(self.tmp.name) / "class" / "alice" / "labs"
        self.submission.mkdir(parents=True)

    def chosen(self, labs_argument):
        """The lab numbers the grader's own parser makes of a --labs value (ValueError if refused)."""
        from cudalabs.grading import submission  # PYTHONPATH=python (tests/CMakeLists.txt)

        return [lab.number for lab in submission.select_labs(submission.suite_labs(REPO), labs_argument)]

    def every_lab(self):
        return lab_numbers(REPO)

    def test_grade_without_labs_grades_every_lab(self):
        done = self.front.make("grade", f"SUBMISSION={self.submission}")
        self.assertEqual(done.returncode, 0, done.stderr)
        arguments = self.front.arguments("grade")
        self.assertEqual(option(arguments, "--submission"), str(self.submission))
        self.assertEqual(option(arguments, "--labs"), "")
        self.assertEqual(self.chosen(option(arguments, "--labs")), self.every_lab())

    def test_grade_with_labs_passes_them_as_given(self):
        done = self.front.make("grade", f"SUBMISSION={self.submission}", "LABS=05,06,07")
        self.assertEqual(done.returncode, 0, done.stderr)
        arguments = self.front.arguments("grade")
        self.assertEqual(option(arguments, "--labs"), "05,06,07")
        self.assertEqual(self.chosen("05,06,07"), ["05", "06", "07"])

    def test_grade_class_without_labs_grades_every_lab(self):
        done = self.front.make("grade-class", f"CLASS={self.submission.parent.parent}")
        self.assertEqual(done.returncode, 0, done.stderr)
        arguments = self.front.arguments("grade-class")
        self.assertEqual(option(arguments, "--class"), str(self.submission.parent.parent))
        self.assertEqual(option(arguments, "--labs"), "")
        self.assertEqual(self.chosen(option(arguments, "--labs")), self.every_lab())

    def test_grade_class_with_labs_and_regrade(self):
        done = self.front.make("grade-class", f"CLASS={self.submission.parent.parent}", "LABS=05,06", "REGRADE=1")
        self.assertEqual(done.returncode, 0, done.stderr)
        arguments = self.front.arguments("grade-class")
        self.assertEqual(option(arguments, "--labs"), "05,06")
        self.assertIn("--regrade", arguments)

    def test_the_makefile_list_of_labs_is_not_the_users(self):
        # The Makefile's own list of lab folders must not be what an instructor's LABS becomes.
        text = (REPO / "Makefile").read_text()
        self.assertNotRegex(text, r"(?m)^LABS\s*:?=\s*\$\(")


class GpuCheckTarget(unittest.TestCase):
    def front(self, gpu):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        return FrontDoor(Path(tmp.name), gpu=gpu)

    def test_make_gpu_check_without_a_gpu_stops_in_one_line(self):
        front = self.front(gpu=False)
        done = front.make("gpu-check")
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertEqual(done.stdout, "")
        lines = done.stderr.splitlines()
        self.assertEqual(len(lines), 1, done.stderr)
        self.assertIn("no CUDA GPU available: make gpu-check needs one", lines[0])
        self.assertIsNone(front.arguments("gpu-check"), "scripts/gpu-check ran without a GPU")

    def test_make_gpu_check_with_a_gpu_runs_the_script(self):
        front = self.front(gpu=True)
        done = front.make("gpu-check")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(front.arguments("gpu-check"), [])

    def test_the_script_without_a_gpu_stops_before_building(self):
        front = self.front(gpu=False)
        script = front.root / "scripts" / "gpu-check"
        shutil.copy(REPO / "scripts" / "gpu-check", script)
        environment = dict(os.environ, BUILD_DIR="build-gpu", OUT=str(front.root / "out"))
        done = subprocess.run(
            [str(script)], cwd=front.root, env=environment, capture_output=True, text=True, timeout=60
        )
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertEqual(done.stdout, "")
        self.assertEqual(done.stderr.splitlines(), [done.stderr.strip()], done.stderr)
        self.assertRegex(done.stderr, r"^gpu-check: no CUDA GPU available")
        self.assertEqual(
            sorted(p.name for p in front.root.iterdir()), ["Makefile", "labs", "record", "scripts", "solutions"]
        )


if __name__ == "__main__":
    unittest.main()
