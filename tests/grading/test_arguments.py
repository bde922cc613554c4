"""The grading commands' arguments (cudalabs.grading.arguments) on the CPU: every bad value is refused
before anything runs with one line naming the argument and the value, and exit status 2; good ones
resolve to the rubric, labs and folders the grader will use. Then the entry points themselves
(scripts/grade, scripts/grade-class): the same line on stderr, prefixed with the command's name."""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from cudalabs.grading import arguments
from cudalabs.grading.refusal import BAD_ARGUMENTS, Refusal
from cudalabs.paths import REPO, RUBRIC


class ArgumentsCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        self.submission = self.root / "labs"
        (self.submission / "01_naive_gemm").mkdir(parents=True)
        self.klass = self.root / "class"
        (self.klass / "alice" / "01_naive_gemm").mkdir(parents=True)

    def tearDown(self):
        self.tmp.cleanup()

    def assertRefused(self, request, argv: list[str], *words: str) -> None:
        with self.assertRaises(Refusal, msg=argv) as caught:
            request(argv)
        message = str(caught.exception)
        self.assertEqual(caught.exception.code, BAD_ARGUMENTS, (argv, message))
        self.assertEqual(len(message.splitlines()), 1, message)
        for word in words:
            self.assertIn(word, message, argv)


class GradeArgumentsTest(ArgumentsCase):
    def grade(self, *argv: str) -> list[str]:
        return ["--submission", str(self.submission), *argv]

    def test_each_bad_value_is_named_with_its_argument(self):
        cases = [
            (self.grade("--seed", "abc"), "--seed", "'abc'"),
            (self.grade("--seed", "-1"), "--seed", "'-1'"),
            (self.grade("--seed", "1" * 20), "--seed"),  # more than CUDALABS_SEED holds
            (self.grade("--time-limit", "0"), "--time-limit", "0.0"),
            (self.grade("--time-limit", "-5"), "--time-limit", "-5.0"),
            (self.grade("--time-limit", "86401"), "--time-limit", "86401.0"),
            (["--submission", str(self.root / "missing")], "SUBMISSION", str(self.root / "missing")),
            (self.grade("--labs", "42"), "LABS", "'42'"),
            (self.grade("--labs", "01,x"), "LABS", "'x'"),
            (self.grade("--rubric", str(self.root / "none.json")), "rubric", "none.json", "cannot be read"),
            (self.grade("--time-limit", "x"), "--time-limit", "'x'"),  # argparse's own, in one line too
            (self.grade("--bogus", "1"), "--bogus"),
        ]
        for argv, *words in cases:
            self.assertRefused(arguments.grade_request, argv, *words)

    def test_a_rubric_that_does_not_load_or_lacks_the_lab_is_refused(self):
        broken = self.root / "broken.json"
        broken.write_text("{not json")
        self.assertRefused(arguments.grade_request, self.grade("--rubric", str(broken)), str(broken), "not JSON")
        # The suite's rubric without lab 01 (its test lists beside it, as the rubric names them).
        data = json.loads(RUBRIC.read_text())
        del data["labs"]["01"]
        partial = self.root / "policy" / "rubric.json"
        partial.parent.mkdir()
        partial.write_text(json.dumps(data))
        (partial.parent / "tests").symlink_to(RUBRIC.parent / "tests")
        self.assertRefused(
            arguments.grade_request, self.grade("--rubric", str(partial), "--labs", "01"), "no entry for lab 01"
        )
        others = arguments.grade_request(self.grade("--rubric", str(partial), "--labs", "2"))
        self.assertEqual([lab.number for lab in others.labs], ["02"])  # the control: a lab it has

    def test_good_arguments_resolve_to_the_suites_rubric_and_folders(self):
        request = arguments.grade_request(self.grade("--labs", "1,02", "--seed", "7", "--time-limit", "60"))
        self.assertEqual(request.rubric.path, RUBRIC)
        self.assertEqual([lab.number for lab in request.labs], ["01", "02"])
        self.assertEqual(request.submission_dir, self.submission.resolve())
        self.assertEqual(request.out, (REPO / "build" / "grade" / "labs").resolve())
        self.assertEqual(request.build, (REPO / "build" / "grade-build").resolve())
        self.assertEqual(request.prediction_rule.file, "predictions.md")
        self.assertEqual((request.args.seed, request.args.time_limit), ("7", 60.0))


class ClassArgumentsTest(ArgumentsCase):
    def klass_(self, *argv: str) -> list[str]:
        return ["--class", str(self.klass), *argv]

    def test_each_bad_value_is_named_with_its_argument(self):
        cases = [
            ([], "give CLASS=dir"),
            (["--class", str(self.root / "missing")], "CLASS", str(self.root / "missing")),
            (["--roster", str(self.root / "none.csv")], "ROSTER"),
            (self.klass_("--student-timeout", "0"), "--student-timeout", "0.0"),
            (self.klass_("--student-timeout", str(7 * 86400 + 1)), "--student-timeout", "604801.0"),
            (self.klass_("--similarity-threshold", "0"), "--similarity-threshold", "0"),
            (self.klass_("--similarity-threshold", "101"), "--similarity-threshold", "101"),
            (self.klass_("--gpus", "0,,1"), "--gpus", "'0,,1'"),
            (self.klass_("--gpus", "zero"), "--gpus", "'zero'"),
            (self.klass_("--chunk", "3/2"), "--chunk", "'3/2'"),
            (self.klass_("--labs", "42"), "LABS", "'42'"),
            (self.klass_("--rubric", str(self.root / "none.json")), "--rubric", "none.json"),
            (self.klass_("--student-timeout", "1h"), "--student-timeout", "'1h'"),
            (self.klass_("--similarity-threshold", "50.5"), "--similarity-threshold", "'50.5'"),
        ]
        for argv, *words in cases:
            self.assertRefused(arguments.class_request, argv, *words)

    def test_good_arguments_resolve_to_the_students_and_the_share(self):
        (self.klass / "bob" / "01_naive_gemm").mkdir(parents=True)
        request = arguments.class_request(self.klass_("--labs", "01", "--chunk", "2/2", "--out", str(self.root / "o")))
        self.assertEqual([s.id for s in request.students], ["alice", "bob"])
        self.assertEqual([s.id for s in request.chosen], ["bob"])
        self.assertEqual((request.name, request.out), ("class", (self.root / "o").resolve()))
        self.assertEqual(request.args.rubric, str(RUBRIC))


class EntryPointTest(ArgumentsCase):
    """The thin scripts: the refusal is the one line on stderr, named for the command, and the exit status."""

    def run_script(self, script: str, *argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(REPO / "scripts" / script), *argv], capture_output=True, text=True, timeout=120
        )

    def test_a_refusal_is_one_line_and_exit_2(self):
        for script, argv, line in [
            ("grade", ["--submission", str(self.submission), "--seed", "x"], "grade: --seed: 'x' is not"),
            ("grade-class", ["--class", str(self.klass), "--gpus", "a"], "grade-class: --gpus: 'a' is not"),
            ("grade", ["--time-limit", "x"], "grade: argument --time-limit: invalid float value: 'x'"),
        ]:
            done = self.run_script(script, *argv)
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertEqual(done.stdout, "")
            self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
            self.assertTrue(done.stderr.startswith(line), done.stderr)


if __name__ == "__main__":
    unittest.main()
