"""The handouts make the student predict: each has a blank "Predict first" table before its measured
results, and its answer key (the predictions and an answer per question) lives only in docs/answers/."""
import re
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LABS = sorted(p for p in (REPO / "labs").glob("[0-9][0-9]_*") if (p / "README.md").is_file())


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
                self.assertNotRegex(text, r"(?m)^Prediction: |Predicted order",
                                    "a prediction made for the student")

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


if __name__ == "__main__":
    unittest.main()
