"""Adding a lab: a copy of the suite gains the tiny lab of tests/repo/tiny_lab/ as the architecture page's
recipe ("How to add ... A lab.") adds one: its two folders (its declaration with its progression row and
effort, its answer key in its solution's folder), the files it adds beside them (its grading test, its test
list, its handout's source with its read-more list, its walkthrough) and the entry tiny_lab/merged_into/ holds
for the file it changes (the rubric); then the handouts are rendered (the README's progression table, the
references page and the instructors' time per lab gain the lab). The files that differ from the repository
outside the lab's folders are exactly the recipe's list, and there are at most 8 (issue 56's goal). The copy
is configured and built, and the lab is in every list the suite keeps: CMake's targets, ctest's tests, the
occupancy test's and the resource gate's launches (the gate then checks its kernel), make's lab numbers and
the Python package's; its grading policy holds against its build (check_rubric_coverage.py, and its referee
runs the pinned test list); its pages pass the copy's own handout, docs and recipe tests.

  PYTHONPATH=python CUDALABS_CUDA_ARCHITECTURES=90 python3 -m unittest test_add_a_lab
(tests/CMakeLists.txt runs it as repo.add_a_lab, with its build's architectures where ccache compiles (it then
reuses that build's objects), else its first; comma-separated; the copy lives in a temporary folder, outside
every build that tests read.)
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from cudalabs import labs
from cudalabs.paths import GRADING_POLICY, test_list_name
from test_lab_declarations import INSTRUCTORS_ONLY, recipes

REPO = pathlib.Path(__file__).resolve().parents[2]
ARCHITECTURES = os.environ.get("CUDALABS_CUDA_ARCHITECTURES", "90").replace(",", ";")
TINY = pathlib.Path(__file__).resolve().parent / "tiny_lab"
# Entries for files the lab changes, each under the file's own path: a JSON object's keys join the file's
# "labs" object, a markdown file's text is appended.
MERGED = "merged_into"
NUMBER, FOLDER = "99", "99_tiny"
# What adding a lab may touch outside labs/NN_name/ and solutions/NN_name/ (issue 56's goal).
MOST_FILES_OUTSIDE = 8
# What a lab leaves unchanged in a student release: the files it has not, and the instructors' guide,
# which renders no table of labs there.
NOT_IN_RELEASE = INSTRUCTORS_ONLY + ("docs/pages/instructors.md",)
# Every lab program and test is built for the checks, the solutions' kernels for the launch checks, the
# referee for its test list.
TARGETS = ["lab99", "lab99_grading_student", "resource_gate_launches"]
INSTRUCTOR_TARGETS = ["lab99_solution", "lab99_grading_solution", "grader_referee_lab99"]
# What the copy leaves out of the repository, and what building and testing it adds to the copy.
LEFT_OUT = ("build*", ".git", ".deps", ".gl", ".whl", "__pycache__", "grade-report*")


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, **kwargs)


def recipe_files() -> list[str]:
    """The files the recipe says a lab adds or changes outside its folders (its list's lines, "- `path`"),
    for the tiny lab."""
    text = recipes()
    recipe = text[text.index("**A lab.**") : text.index("**A grading test.**")]
    paths = re.findall(r"(?m)^- `([\w./-]+)`", recipe)
    return sorted(path.replace("NN_name", FOLDER).replace("NN", NUMBER) for path in paths)


def project_files(root: pathlib.Path) -> dict[str, pathlib.Path]:
    """Every file of a copy of the suite by its path, less what the copy leaves out wherever it lies."""

    def kept(name: str) -> bool:
        return not any(pathlib.PurePath(name).match(pattern) for pattern in LEFT_OUT)

    files = {}
    for folder, names, file_names in os.walk(root):
        names[:] = [name for name in names if kept(name)]
        for name in filter(kept, file_names):  # a worktree's .git is a file
            path = pathlib.Path(folder) / name
            files[path.relative_to(root).as_posix()] = path
    return files


def add_tiny_lab(suite: pathlib.Path, release: bool):
    """The tiny lab added as the recipe says: its files copied, its entries merged (a release's without
    the instructors' files)."""
    for path in sorted(p for p in TINY.rglob("*") if p.is_file()):
        name = path.relative_to(TINY).as_posix()
        merged = name.startswith(MERGED + "/")
        name = name.removeprefix(MERGED + "/")
        if release and name.startswith(NOT_IN_RELEASE):
            continue
        target = suite / name
        if not merged:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        elif target.suffix == ".json":
            data = json.loads(target.read_text())
            data["labs"].update(json.loads(path.read_text()))
            target.write_text(json.dumps(data, indent=2) + "\n")
        else:
            target.write_text(target.read_text() + path.read_text())


class AddALabTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory(prefix="cudalabs-add-a-lab-")
        cls.addClassCleanup(cls.scratch.cleanup)  # also when the set-up fails
        cls.suite = pathlib.Path(cls.scratch.name) / "suite"
        # The build folder inside the copy, where the suite's own is inside the repository: ccache
        # (CCACHE_BASEDIR, cmake/CompilerCache.cmake) then sees the same relative paths and reuses what
        # this build compiled.
        ignored = shutil.ignore_patterns(*LEFT_OUT)
        shutil.copytree(
            REPO, cls.suite, ignore=lambda folder, names: ignored(folder, names) if folder == str(REPO) else []
        )
        # A student release has no solutions/: the lab comes without its solution there, as a release's do.
        cls.release = not (REPO / "solutions").is_dir()
        add_tiny_lab(cls.suite, cls.release)
        cls.python = {**os.environ, "PYTHONPATH": str(cls.suite / "python")}  # the copy's package reads the copy
        rendered = run(
            [sys.executable, "-m", "cudalabs.docs.handouts", "--repo", cls.suite, "--no-figures"], env=cls.python
        )
        if rendered.returncode != 0:
            raise AssertionError(f"the copy's handouts do not render with lab {NUMBER}:\n{rendered.stderr}")
        # What adding the lab changed, before the build and the checks add their own files.
        repository, copy = project_files(REPO), project_files(cls.suite)
        cls.touched = sorted(
            name
            for name in repository.keys() | copy.keys()
            if name not in repository or name not in copy or repository[name].read_bytes() != copy[name].read_bytes()
        )
        cls.build = cls.suite / "build"
        generator = "Ninja" if shutil.which("ninja") else "Unix Makefiles"
        configure = run(
            ["cmake", "-S", cls.suite, "-B", cls.build, "-G", generator, f"-DCMAKE_CUDA_ARCHITECTURES={ARCHITECTURES}"]
        )
        if configure.returncode != 0:
            raise AssertionError(
                f"the copy with lab {NUMBER} does not configure:\n{configure.stdout[-3000:]}{configure.stderr[-3000:]}"
            )
        built = run(
            [
                "cmake",
                "--build",
                cls.build,
                "-j",
                str(os.cpu_count() or 2),
                "--target",
                *TARGETS,
                *([] if cls.release else INSTRUCTOR_TARGETS),
            ]
        )
        if built.returncode != 0:
            raise AssertionError(f"the copy with lab {NUMBER} does not build:\n{built.stdout[-4000:]}")

    def test_it_touches_the_files_the_recipe_lists_outside_its_folders(self):
        own = (f"labs/{FOLDER}/", f"solutions/{FOLDER}/")
        outside = [name for name in self.touched if not name.startswith(own)]
        expected = [name for name in recipe_files() if not (self.release and name.startswith(NOT_IN_RELEASE))]
        # A list read at all names the grading test (a release leaves some of the list out).
        self.assertIn(f"tests/labs/lab{NUMBER}_grading_test.cpp", expected, "the recipe's list of files was not read")
        self.assertEqual(outside, expected, "the files a lab touches outside its folders, against the recipe's list")
        self.assertIn(f"labs/{FOLDER}/README.md", self.touched, "its handout was not rendered")

    def test_it_touches_at_most_eight_files_outside_its_folders(self):
        """Issue 56's goal: the recipe's list, which the test above holds to what the lab touches."""
        self.assertLessEqual(len(recipe_files()), MOST_FILES_OUTSIDE, recipe_files())

    def test_cmake_builds_its_programs_and_libraries(self):
        listed = run(["cmake", "--build", self.build, "--target", "help"]).stdout
        targets = ["lab99", "lab99_student_kernels", "lab99_grading_student"]
        if not self.release:
            targets += ["lab99_solution", "lab99_solution_kernels", "lab99_grading_solution", "grader_referee_lab99"]
        for target in targets:
            self.assertRegex(listed, rf"(?m)^{target}\b", f"no target {target}")
        for program in ["lab99"] + ([] if self.release else ["lab99_solution"]):
            self.assertTrue((self.build / "labs" / program).is_file(), f"{program} was not built")

    def test_ctest_lists_its_grading_tests(self):
        listed = run(["ctest", "--test-dir", self.build, "-N", "-L", f"lab{NUMBER}"]).stdout
        for build in ["student"] + ([] if self.release else ["solution"]):
            self.assertIn(f"lab{NUMBER}.{build}.", listed)

    def test_the_launch_checks_describe_it_and_the_resource_gate_checks_it(self):
        launches = self.build / "tests" / "resource_gate_launches"
        printed = run([launches], check=True).stdout
        self.assertIn(f"catalog lab{NUMBER} 5", printed)  # its variant at the five GEMM problems
        self.assertIn(f"launch lab{NUMBER} tiny_naive ", printed)
        gate = run(
            [sys.executable, REPO / "tests" / "resource_gate" / "resource_gate.py", self.build, "--launches", launches]
        )
        self.assertEqual(gate.returncode, 0, gate.stdout + gate.stderr)
        self.assertRegex(gate.stdout, rf"the launches of \d+ labs \([^)]*\b{'lab' + NUMBER}\b")
        table = (self.build / "tests" / "occupancy_api_tests_declared_labs.cpp").read_text()
        self.assertIn(f'{{"{NUMBER}", "{FOLDER}", "fp32_gemm", &lab{NUMBER}::describe_launches}}', table)

    def test_its_grading_policy_holds_against_its_build(self):
        if self.release:
            self.skipTest("a student release has no grader or grading policy")
        coverage = run(
            [sys.executable, self.suite / "tests" / "grading" / "check_rubric_coverage.py", self.build, NUMBER],
            env=self.python,
        )
        self.assertEqual(coverage.returncode, 0, coverage.stdout + coverage.stderr)
        pinned = (TINY / GRADING_POLICY / test_list_name(NUMBER)).read_text()
        tests = [line for line in pinned.splitlines() if line and not line.startswith("#")]
        self.assertIn(f"lab {NUMBER}: {len(tests)} tests, 1 variants", coverage.stdout)
        # Written anew from its referee: the same list as the one the lab pins.
        test_list = self.suite / GRADING_POLICY / test_list_name(NUMBER)
        test_list.unlink()
        written = run([sys.executable, "-m", "cudalabs.grading.test_lists", self.build, NUMBER], env=self.python)
        self.assertEqual(written.returncode, 0, written.stderr)
        self.assertEqual(test_list.read_text(), pinned)

    def test_its_pages_pass_the_copys_own_checks(self):
        """The copy's handout, docs and recipe tests (CPU, seconds), which read every declared lab: its
        handout rendered and current among them (test_handouts runs render-handouts' check)."""
        checks = run(
            [sys.executable, "-m", "unittest", "test_handouts", "test_docs", "test_lab_declarations"],
            cwd=self.suite / "tests" / "repo",
            env=self.python,
        )
        self.assertEqual(checks.returncode, 0, checks.stderr[-4000:])

    def test_make_and_python_know_it(self):
        make = run(["make", "-s", "-C", self.suite, "check-lab-number", f"N={NUMBER}"])
        self.assertEqual(make.returncode, 0, make.stderr)
        control = run(["make", "-s", "-C", self.suite, "check-lab-number", "N=98"])
        self.assertNotEqual(control.returncode, 0, "make accepts a lab that is not there")
        self.assertEqual(labs.lab_numbers(self.suite)[-1], NUMBER)
        self.assertNotIn(NUMBER, labs.lab_numbers(REPO))


if __name__ == "__main__":
    unittest.main()
