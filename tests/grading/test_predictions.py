"""CPU tests of the predictions a student hands in (cudalabs.grading.predictions): the rubric's entry, the
file collected into the report folder, the points for handing it in, and the lab's score and reports
carrying it. Run by ctest as part of grader.units."""
from __future__ import annotations

import json
import os
import tempfile
import unittest
from pathlib import Path

from cudalabs.grading import predictions, reports
from cudalabs.grading.gtest import TestOutcome
from cudalabs.grading.lab_run import LabRun
from cudalabs.grading.scoring import LabScore, VariantScore
from cudalabs.grading.submission import Lab, suite_labs
from cudalabs.paths import REPO, RUBRIC

TABLE = "| variant | registers per thread |\n| --- | --- |\n| rt_2d | about 120 |\n"


class RuleTest(unittest.TestCase):
    def test_the_suite_rubric_gives_points_for_handing_in(self):
        rule = predictions.read_rule(RUBRIC)
        self.assertEqual(rule.file, "predictions.md")
        self.assertGreater(rule.points, 0)

    def test_a_malformed_entry_is_refused_naming_its_key(self):
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "rubric.json"
            for entry, key in (
                ({"points": -1}, "predictions.points"),
                ({"points": "one"}, "predictions.points"),
                ({"file": "../x.md"}, "predictions.file"),
                ({"file": "predictions.txt"}, "predictions.file"),
                ({"points": 1, "bonus": 2}, "predictions ="),
                ([1], "predictions ="),
            ):
                path.write_text(json.dumps({"labs": {}, "predictions": entry}))
                with self.subTest(entry=entry), self.assertRaisesRegex(ValueError, key):
                    predictions.read_rule(path)
            path.write_text(json.dumps({"labs": {}}))
            self.assertEqual(predictions.read_rule(path).points, 0)


class CollectTest(unittest.TestCase):
    LAB = Lab("05", "05_register_tiling")
    RULE = predictions.Rule("predictions.md", 2.0)

    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        root = Path(self.scratch.name)
        self.submission, self.out = root / "alice", root / "report"
        (self.submission / self.LAB.folder).mkdir(parents=True)

    def tearDown(self):
        self.scratch.cleanup()

    def hand_in(self, text: str) -> Path:
        path = self.submission / self.LAB.folder / "predictions.md"
        path.write_text(text)
        return path

    def test_handed_in_predictions_are_collected_and_earn_the_points(self):
        self.hand_in(TABLE)
        score = predictions.collect(self.submission, self.LAB, self.out, self.RULE)
        self.assertEqual((score.name, score.state, score.points, score.max_points), ("predictions.md", "passed", 2, 2))
        self.assertEqual((self.out / "lab05_predictions.md").read_text(), TABLE)
        self.assertIn("solutions/05_register_tiling/answers.md", score.note)

    def test_missing_or_empty_predictions_earn_nothing(self):
        score = predictions.collect(self.submission, self.LAB, self.out, self.RULE)
        self.assertEqual((score.state, score.points, score.max_points), ("not handed in", 0, 2))
        self.assertIn("05_register_tiling/predictions.md", score.note)
        self.hand_in(" \n\t\n")
        self.assertEqual(predictions.collect(self.submission, self.LAB, self.out, self.RULE).points, 0)
        self.assertFalse((self.out / "lab05_predictions.md").exists())

    def test_a_link_or_an_oversized_file_is_not_read(self):
        elsewhere = Path(self.scratch.name) / "answers.md"
        elsewhere.write_text(TABLE)
        os.symlink(elsewhere, self.submission / self.LAB.folder / "predictions.md")
        self.assertEqual(predictions.collect(self.submission, self.LAB, self.out, self.RULE).points, 0)
        (self.submission / self.LAB.folder / "predictions.md").unlink()
        self.hand_in("x" * (2 << 20))
        self.assertEqual(predictions.collect(self.submission, self.LAB, self.out, self.RULE).points, 0)

    def test_a_lab_that_scored_zero_keeps_the_file_but_not_the_points(self):
        self.hand_in(TABLE)
        score = predictions.collect(self.submission, self.LAB, self.out, self.RULE, lab_scored_zero=True)
        self.assertEqual((score.state, score.points), ("lab scored 0", 0))
        self.assertTrue((self.out / "lab05_predictions.md").exists())

    def test_the_lab_score_and_its_reports_carry_the_predictions(self):
        self.hand_in(TABLE)
        kernel = VariantScore(
            "rt_2d", "passed", [TestOutcome("Grading.rt_2d.odd", "passed", "")], correctness=6, correctness_max=6
        )
        run = LabRun("05", self.LAB.folder)
        lab = LabScore(run, [kernel], [], [])
        lab.variants.append(predictions.collect(self.submission, self.LAB, self.out, self.RULE))
        self.assertEqual((lab.points, lab.max_points), (8, 8))
        header = reports.Header("alice", "2030-01-01", "GPU", "abc1234", "1", str(RUBRIC))
        written = reports.write_reports(self.out, header, [lab])
        markdown = next(path for path in written if path.name == "grade-report.md").read_text()
        self.assertIn("predictions.md", markdown)
        self.assertEqual(json.loads((self.out / "grade-report.json").read_text())["points"], 8)

    def test_every_lab_of_the_suite_has_a_folder_to_hand_them_in(self):
        self.assertTrue(suite_labs(REPO))
        for lab in suite_labs(REPO):
            self.assertTrue((REPO / "labs" / lab.folder).is_dir())


if __name__ == "__main__":
    unittest.main()
