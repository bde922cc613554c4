"""make release-students: the copy for a class holds no solution code anywhere (a grep for the
solutions' own lines), no grader and no answer keys, and refuses a destination it would clobber."""
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from cudalabs.grading.similarity import student_written
from cudalabs.grading.solution_file import single_file

REPO = Path(__file__).resolve().parents[2]

RELEASE = REPO / "scripts" / "release-students"


def given_lines() -> set[str]:
    """Every line of the code a student is given (labs/ and common/), spacing normalised: a solution
    may repeat these (lab 06 builds on lab 05's launch code) without giving anything away."""
    lines = set()
    for folder in ("labs", "common"):
        for path in (REPO / folder).rglob("*"):
            if path.is_file() and path.suffix in (".cu", ".cuh", ".h", ".cpp"):
                lines.update(" ".join(line.split()) for line in path.read_text().splitlines())
    return lines


def solution_lines() -> dict[str, str]:
    """Distinctive lines of every solution (not in the code a student is given, long enough not to be
    a common idiom), each with the lab it comes from."""
    given = given_lines()
    found = {}
    for folder in sorted(p.name for p in (REPO / "solutions").iterdir() if p.is_dir()):
        skeleton = (REPO / "labs" / folder / "kernels.cu").read_text()
        for line in student_written(single_file(REPO, folder), skeleton).splitlines():
            text = " ".join(line.split())
            if len(text) >= 40 and not text.startswith("//") and text not in given:
                found[text] = folder
    return found


@unittest.skipUnless((REPO / "solutions").is_dir(), "this is a student release already")
class ReleaseTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dest = Path(cls.tmp.name) / "course"
        done = subprocess.run([sys.executable, str(RELEASE), str(cls.dest)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def leaks(self, lines: dict[str, str]) -> list[str]:
        found = []
        for path in [p for p in self.dest.rglob("*") if p.is_file() and ".git" not in p.relative_to(self.dest).parts]:
            try:
                text = {" ".join(line.split()) for line in path.read_text().splitlines()}
            except UnicodeDecodeError:
                continue
            found += [f"{path.relative_to(self.dest)}: solutions/{lines[line]}: {line}" for line in text & lines.keys()]
        return found

    def test_no_solution_code_anywhere(self):
        lines = solution_lines()
        self.assertGreater(len(lines), 100)
        self.assertEqual(self.leaks(lines), [])
        # The control: one line of lab 07's solution pasted into a page is found.
        line = next(text for text, folder in lines.items() if folder == "07_wide_loads")
        page = self.dest / "docs" / "pages" / "planted_leak.md"
        page.write_text(f"A page that quotes the solution:\n\n    {line}\n")
        try:
            self.assertEqual(len(self.leaks(lines)), 1)
        finally:
            page.unlink()

    def test_instructor_files_are_left_out(self):
        for name in (
            "solutions",
            "docs/answers",
            "tests/grading",
            "grader",
            "python/cudalabs/grading",
            "scripts/grade",
            "scripts/grade-class",
            "docs/data/grading",
        ):
            self.assertFalse((self.dest / name).exists(), name)
        for walkthrough in (self.dest / "docs" / "walkthroughs").glob("*.md"):
            self.assertNotIn("\\snippet solutions/", walkthrough.read_text(), walkthrough.name)
        self.assertIn("Student edition", (self.dest / "RELEASE.md").read_text())
        # The copy is a repository of its own, with the labs' skeletons and grading tests in it.
        log = subprocess.run(["git", "-C", str(self.dest), "log", "--oneline"], capture_output=True, text=True)
        self.assertEqual(len(log.stdout.splitlines()), 1)
        self.assertTrue((self.dest / "tests" / "labs" / "lab07_grading_test.cpp").is_file())
        self.assertEqual(
            (self.dest / "labs" / "07_wide_loads" / "kernels.cu").read_text(),
            (REPO / "labs" / "07_wide_loads" / "kernels.cu").read_text(),
        )

    def test_a_destination_in_use_is_refused(self):
        done = subprocess.run([sys.executable, str(RELEASE), str(self.dest)], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("exists and is not an empty folder", done.stderr)
        done = subprocess.run(
            [sys.executable, str(RELEASE), str(REPO / "build" / "release")], capture_output=True, text=True
        )
        self.assertEqual(done.returncode, 2)
        self.assertIn("lies inside the suite", done.stderr)


if __name__ == "__main__":
    unittest.main()
