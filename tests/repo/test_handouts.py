"""The handouts make the student predict: each has a blank "Predict first" table before its measured
results, and its answer key (the predictions and an answer per question) lives only in docs/answers/.
And they read well wherever a student opens them: each labs/NN_name/README.md is rendered from its source
(docs/handouts/NN_name.md) and the records, holds no placeholder, and is current (make handouts)."""
import re
import unittest
from pathlib import Path

from cudalabs.docs import handouts

REPO = Path(__file__).resolve().parents[2]
LABS = sorted(p for p in (REPO / "labs").glob("[0-9][0-9]_*") if (p / "lab.h").is_file())


def section(text: str, heading: str) -> str:
    """The text under the first '## heading...' up to the next '## '."""
    match = re.search(rf"^## {re.escape(heading)}.*?$(.*?)(?=^## |\Z)", text, re.M | re.S)
    return match.group(1) if match else ""


def question_numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"^(\d+)\. ", section(text, "Questions"), re.M)]


class HandoutTest(unittest.TestCase):
    def test_every_lab_has_a_blank_prediction_table_before_the_measurements(self):
        self.assertGreaterEqual(len(LABS), 11)
        for lab in LABS:
            text = (lab / "README.md").read_text()
            with self.subTest(lab=lab.name):
                predict = section(text, "Predict first")
                self.assertTrue(predict, "no '## Predict first' section")
                rows = [line for line in predict.splitlines() if line.startswith("|") and "---" not in line]
                self.assertGreaterEqual(len(rows), 3, "no table (a header and two rows at least)")
                blank_rows = [row for row in rows[1:] if re.search(r"\|\s+\|", row)]
                self.assertEqual(len(blank_rows), len(rows) - 1, "every row must leave cells for the student")
                self.assertIn("answer key is in the instructor's guide", predict)
                self.assertLess(text.index("## Predict first"), text.index("## Measured"))
                self.assertNotRegex(text, r"(?m)^Prediction: |Predicted order", "a prediction made for the student")

    @unittest.skipUnless((REPO / "solutions").is_dir(), "a student release carries no answer keys")
    def test_every_question_and_prediction_has_an_answer(self):
        for lab in LABS:
            number = lab.name[:2]
            answers = REPO / "docs" / "answers" / f"lab{number}.md"
            with self.subTest(lab=lab.name):
                self.assertTrue(answers.is_file(), f"{answers.relative_to(REPO)} is missing")
                key = answers.read_text()
                self.assertIn("**Predictions.**", key)
                asked = question_numbers((lab / "README.md").read_text())
                self.assertTrue(asked, "the handout has no numbered questions")
                answered = [int(n) for n in re.findall(r"^(\d+)\. ", key.split("**Questions.**", 1)[-1], re.M)]
                self.assertEqual(answered, asked, "one answer per question, in order")

    def test_the_answer_keys_stay_out_of_the_handouts(self):
        for lab in LABS:
            self.assertNotIn("docs/answers", (lab / "README.md").read_text())


class RenderedHandoutTest(unittest.TestCase):
    def test_every_lab_has_a_source_and_a_rendered_handout(self):
        for lab in LABS:
            with self.subTest(lab=lab.name):
                self.assertTrue((REPO / "docs" / "handouts" / f"{lab.name}.md").is_file(), "no handout source")
                self.assertTrue((lab / "README.md").is_file(), "no rendered README.md (make handouts)")

    def test_no_placeholder_or_doxygen_markup_is_left_in_a_readme(self):
        for path in [lab / "README.md" for lab in LABS] + [REPO / "README.md"]:
            text = path.read_text()
            with self.subTest(path=str(path.relative_to(REPO))):
                self.assertNotRegex(text, r"\{\{[^}]*\}\}", "a placeholder left over")
                self.assertNotRegex(text, r"(?m)^#{1,6} .*\{#[\w-]+\}\s*$", "a Doxygen heading anchor")
                self.assertNotRegex(text, r"(?<![\w`])\\(?:ref|snippet|page|dot)\b", "a Doxygen command")

    def test_the_readmes_are_current(self):
        problems = handouts.stale(REPO)
        self.assertEqual(problems, [], "run make handouts (scripts/render-handouts) and commit the result")

    def test_every_link_and_picture_of_a_readme_exists(self):
        for path in [lab / "README.md" for lab in LABS] + [REPO / "README.md"]:
            for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                with self.subTest(path=str(path.relative_to(REPO)), target=target):
                    self.assertTrue((path.parent / target.split("#")[0]).exists())

    def test_a_sources_cross_references_become_links_in_the_readme(self):
        source = REPO / "docs" / "handouts" / f"{LABS[5].name}.md"
        text = handouts.render_markdown(
            REPO,
            'See \\ref lab06 and \\ref results "the results", \\ref nowhere.\n' "```\n\\ref lab06\n```\n",
            LABS[5].name[:2],
            source,
            LABS[5] / "README.md",
        )
        self.assertIn(f"[lab06](../{LABS[6].name}/README.md)", text)
        self.assertIn("[the results](../../docs/pages/results.md)", text)
        self.assertIn("\\ref nowhere", text)  # unknown: left for the test above to name
        self.assertIn("```\n\\ref lab06\n```", text)

    def test_the_check_sees_a_stale_readme_and_a_stale_record(self):
        """A copy of the suite where one source changed and one record changed: both READMEs are named."""
        import shutil
        import tempfile

        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch) / "suite"
            for part in ("labs", "docs/handouts", "docs/data", "docs/pages", "README.md"):
                source = REPO / part
                (shutil.copytree if source.is_dir() else shutil.copy)(source, copy / part)
            self.assertEqual(handouts.stale(copy), [])
            source = copy / "docs" / "handouts" / f"{LABS[1].name}.md"
            source.write_text(source.read_text() + "\nOne more line.\n")
            record = copy / "docs" / "data" / "results" / "lab05_nvidia-h100-80gb-hbm3.json"
            record.write_text(record.read_text().replace('"gflops": 3', '"gflops": 4'))
            named = " ".join(handouts.stale(copy))
            self.assertIn(f"labs/{LABS[1].name}/README.md", named)
            self.assertIn(f"labs/{LABS[5].name}/README.md", named)
            self.assertNotIn(f"labs/{LABS[2].name}/README.md", named)


LADDER = ("nudge", "approach", "detail")


class CourseTest(unittest.TestCase):
    """Every handout opens with what the student will learn, what they need first and the time it
    takes, and ends with hints folded as a ladder (a nudge, the approach, a detail), none of them a
    whole kernel (DESIGN.md, Handouts)."""

    def test_every_handout_opens_with_goals_prerequisites_and_time(self):
        for lab in LABS:
            text = (lab / "README.md").read_text()
            opening = text[: text.index("\n## ")]
            with self.subTest(lab=lab.name):
                self.assertRegex(opening, r"\*\*You will learn:\*\*")
                self.assertRegex(opening, r"\*\*You need( first)?:\*\*")
                self.assertRegex(opening, r"\*\*Time:\*\* about \d+(-\d+)? hours?")

    def test_every_handout_has_a_folded_hint_ladder(self):
        for lab in LABS:
            hints = section((lab / "README.md").read_text(), "Hints")
            with self.subTest(lab=lab.name):
                self.assertTrue(hints, "no '## Hints' section")
                summaries = re.findall(r"<details>\s*<summary>(.*?)</summary>", hints)
                self.assertGreaterEqual(len(summaries), 3, "three folded hints at least")
                self.assertEqual(hints.count("<details>"), hints.count("</details>"))
                for level, summary in zip(LADDER, summaries):
                    self.assertIn(level, summary.lower(), "the ladder: a nudge, the approach, a detail")
                blocks = re.findall(r"```.*?```", hints, re.S)
                self.assertTrue(all(block.count("\n") <= 6 for block in blocks), "a hint gives no whole kernel")

    @unittest.skipUnless((REPO / "tests" / "grading" / "student_versions").is_dir(), "no student versions here")
    def test_the_hours_follow_from_the_evidence(self):
        """lab_effort.json's hours (what the handouts quote) stay within an hour of the model's, from the
        handout's words and the lines of the lab's student version."""
        from cudalabs.docs import grading_tables

        effort = grading_tables.read_effort(REPO)
        for lab in LABS:
            entry = effort.get(lab.name[:2], {})
            if entry.get("student_version", {}).get("seconds") is None:
                continue
            words = grading_tables.handout_words(REPO, lab.name)
            lines = grading_tables.student_version_lines(REPO, lab.name)
            low, high = grading_tables.model_hours(words, lines)
            stated_low, stated_high = (int(h) for h in entry["hours"].split("-"))
            with self.subTest(lab=lab.name, model=f"{low}-{high}", stated=entry["hours"]):
                self.assertLessEqual(abs(stated_low - low), 1)
                self.assertLessEqual(abs(stated_high - high), 1)


if __name__ == "__main__":
    unittest.main()
