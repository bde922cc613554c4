"""make release-students: the copy for a class holds no solution code anywhere (a grep for the
solutions' own lines), no grader and no answer keys, and refuses a destination it would clobber. And it
tells the truth: its README, every handout and every page they lead to describe the release (nothing it
does not have, no make target it lacks), rendered as its own make handouts renders them, and its
Makefile answers each instructor-only target with one line. The release is built under /tmp in a path
with a space; nothing is compiled (CI runs the release's own make test)."""
import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from cudalabs.docs import handouts
from cudalabs.grading.similarity import student_written
from cudalabs.grading.solution_file import single_file
from cudalabs.paths import ANSWER_KEY, GRADING_POLICY

REPO = Path(__file__).resolve().parents[2]

RELEASE = REPO / "scripts" / "release-students"


def release_script():
    """scripts/release-students as a module (its LEFT_OUT: what the release leaves out)."""
    loader = importlib.machinery.SourceFileLoader("release_students", str(RELEASE))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


def finished_programs() -> list[str]:
    """The programs built on the solutions (programs/CMakeLists.txt), which a release does not build."""
    return re.findall(r"^\s*add_executable\((\w+)", (REPO / "programs" / "CMakeLists.txt").read_text(), re.M)


def release_claims() -> dict[str, re.Pattern]:
    """What a student's page must not say: each left-out path named, and each thing only the instructors'
    copy has or does (the solutions' programs and targets, the grader, the reference run by default)."""
    claims = {}
    for path in release_script().LEFT_OUT:
        if "/" in path or path in ("solutions", "grader"):  # a folder name alone is also a word: its path
            end = r"(?![\w-])" if "/" in path else "/"
            claims[path] = re.compile(r"(?<![\w/.-])" + re.escape(path) + end)
    claims.update(
        {
            "make solution": re.compile(r"\bmake solution\b"),
            "make grade": re.compile(r"\bmake grade"),
            "a solution's program": re.compile(r"\blab\d\d_solution\b"),
            "the grader": re.compile(r"\bgrader\b", re.I),
            "SOLUTION=1": re.compile(r"\bSOLUTION=1|--solution\b"),
            "reference by default": re.compile(r"reference[^.;]*\bby\s+default|EARLIER_LABS=reference", re.I),
            "a finished program": re.compile(rf"build/labs/(?:{'|'.join(finished_programs())})\b"),
        }
    )
    return claims


# A recorded run's provenance names the command that ran it (Record.note: "..., commit HASH, `COMMAND`;"):
# history, quoted as it was, not an instruction to run it here.
PROVENANCE = re.compile(r"commit [0-9a-f]{7,40}, `[^`]*`")
MAKE_TARGET = re.compile(r"(?<![\w-])make ([a-z][\w-]*)")


def code_of(text: str) -> str:
    """The code a page shows (fenced and indented blocks, inline code): where a make command is one."""
    code, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif fenced or line.startswith("    "):
            code.append(line)
        else:
            code += re.findall(r"`([^`]+)`", line)
    return "\n".join(code)


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
        # Under /tmp (where a user may clone) and in a path with a space, as make release-students quotes it.
        cls.tmp = tempfile.TemporaryDirectory(dir="/tmp")
        cls.dest = Path(cls.tmp.name) / "class of 2027" / "course"
        done = subprocess.run(
            ["make", "-s", "release-students", f"DEST={cls.dest}"], cwd=REPO, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr

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
            "tests/grading",
            "grader",
            GRADING_POLICY.as_posix(),
            "python/cudalabs/grading",
            "scripts/grade",
            "scripts/grade-class",
            "docs/data/grading",
        ):
            self.assertFalse((self.dest / name).exists(), name)
        self.assertEqual(sorted(self.dest.rglob(ANSWER_KEY)), [], "an answer key in the release")
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

    def student_pages(self) -> list[Path]:
        """The release's README, its handouts and every page they lead to."""
        handouts_ = sorted(self.dest.glob("labs/[0-9][0-9]_*/README.md"))
        self.assertGreaterEqual(len(handouts_), 11)
        return [self.dest / "README.md", *handouts_, *handouts.linked_pages(self.dest)]

    def test_the_readme_handouts_and_linked_pages_describe_the_release(self):
        pages = self.student_pages()
        names = {str(p.relative_to(self.dest)) for p in pages}
        self.assertTrue(
            {"docs/pages/architecture.md", "docs/pages/profiling.md", "docs/pages/without_a_gpu.md"} <= names
        )
        claims = release_claims()
        found = []
        for page in pages:
            for number, line in enumerate(page.read_text().splitlines(), start=1):
                line = PROVENANCE.sub("", line)
                found += [
                    f"{page.relative_to(self.dest)}:{number}: {what}" for what, p in claims.items() if p.search(line)
                ]
                for script in re.findall(r"\bscripts/[\w.-]+", line):
                    if not (self.dest / script).exists():
                        found.append(f"{page.relative_to(self.dest)}:{number}: {script}, which the release has not")
                if re.search(r"\{\{|<!--/?(?:instructors|students)", line):
                    found.append(f"{page.relative_to(self.dest)}:{number}: a placeholder or an edition mark")
        self.assertEqual(found, [])
        # What the release says instead: its own commands, its own earlier labs, numbers to compare with.
        readme = (self.dest / "README.md").read_text()
        self.assertIn("make run     # build your kernels and run every lab", readme)
        self.assertIn("Labs 09 and 10 build on your own earlier labs' kernels", " ".join(readme.split()))
        self.assertIn("compare your table with", (self.dest / "labs" / "01_naive_gemm" / "README.md").read_text())
        self.assertIn(
            "build/labs/lab10 --num 64", (self.dest / "labs" / "10_multi_gpu_dcgan" / "README.md").read_text()
        )
        self.assertTrue((self.dest / "docs" / "pages" / "instructors.md").read_text().startswith("<!-- Generated"))

    def test_the_claims_are_found_where_the_instructors_have_them(self):
        """The control: the instructors' README and handouts make every claim the release must not."""
        text = "\n".join(
            PROVENANCE.sub("", p.read_text()) for p in [REPO / "README.md", *sorted(REPO.glob("labs/*/README.md"))]
        )
        missing = [what for what, pattern in release_claims().items() if not pattern.search(text)]
        self.assertLessEqual(
            set(missing),
            {
                "docs/data/grading",
                "scripts/check-lab-alone",
                "scripts/release-students",
                "tests/common_gpu",
                "tests/repo/test_release.py",
                ".ci",
                "scripts/grade-class.sbatch",
                "python/cudalabs/grading",
                "tests/repo/tiny_lab/solutions",
            },
        )
        for what in ("make solution", "a solution's program", "reference by default", "make grade", "solutions"):
            self.assertNotIn(what, missing)

    def make(self, *args, timeout=120):
        env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
        return subprocess.run(["make", *args], cwd=self.dest, capture_output=True, text=True, env=env, timeout=timeout)

    def test_every_make_target_a_page_names_is_the_releases(self):
        database = self.make("-pRrq", ":").stdout  # the rules make read, without running one
        rules = set(re.findall(r"^([a-z][\w-]*):", database, re.M))
        self.assertTrue({"run", "test", "lab", "profile", "docs", "handouts"} <= rules, rules)
        instructors_only = set(self.instructor_only_targets())
        named = {}
        for page in self.student_pages():
            for target in MAKE_TARGET.findall(code_of(PROVENANCE.sub("", page.read_text()))):
                named.setdefault(target, str(page.relative_to(self.dest)))
        self.assertTrue({"run", "test", "lab"} <= named.keys(), named)
        for target, page in sorted(named.items()):
            with self.subTest(target=target, page=page):
                self.assertIn(target, rules, "no such target in the release's Makefile")
                self.assertNotIn(target, instructors_only)

    def instructor_only_targets(self) -> list[str]:
        match = re.search(r"^INSTRUCTOR_ONLY := (.+)$", (self.dest / "Makefile").read_text(), re.M)
        self.assertIsNotNone(match, "the Makefile names no INSTRUCTOR_ONLY targets")
        return match.group(1).split()

    def test_each_instructor_only_target_answers_in_one_line(self):
        targets = self.instructor_only_targets()
        self.assertTrue({"solution", "bench", "grade", "grade-class", "release-students"} <= set(targets))
        for args in [[t] for t in targets] + [
            ["solution", "N=01"],
            ["release-students", "DEST=/tmp/x"],
            ["grade", "SUBMISSION=labs"],
            ["profile", "N=05", "SOLUTION=1"],
        ]:
            with self.subTest(args=args):
                done = self.make(*args)
                lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
                self.assertNotEqual(done.returncode, 0)
                self.assertEqual(len(lines), 1, lines)
                what = "profile SOLUTION=1" if "SOLUTION=1" in args else args[0]
                self.assertIn(f"make {what}: this copy is a student release", lines[0])
        # The control: what the release has still answers; its help lists no instructor-only target.
        done = self.make("-s", "help")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("make lab N=01", done.stdout)
        self.assertEqual([t for t in targets if re.search(rf"^#   make {t}\b", done.stdout, re.M)], [])
        instructors = subprocess.run(["make", "-s", "help"], cwd=REPO, capture_output=True, text=True).stdout
        self.assertIn("#   make grade ", instructors)

    def test_the_release_renders_as_it_is(self):
        """Its make test's handout check will pass: the README, handouts and pages are its own edition's."""
        self.assertEqual(handouts.stale(self.dest), [])

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
