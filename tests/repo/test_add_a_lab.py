"""Adding a lab: a copy of the suite gains the tiny lab of tests/repo/tiny_lab/ (its two folders and its
grading test, nothing else), is configured and built, and the lab is in every list the suite keeps: CMake's
targets, ctest's tests, the occupancy test's and the resource gate's launches (the gate then checks its
kernel), make's lab numbers and the Python package's. The files it adds outside its own folders are counted.

  PYTHONPATH=python CUDALABS_CUDA_ARCHITECTURE=90 python3 -m unittest test_add_a_lab
(tests/CMakeLists.txt runs it as repo.add_a_lab, with this build's first architecture; the copy lives in a
temporary folder, outside every build that tests read.)
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

from cudalabs import labs

REPO = pathlib.Path(__file__).resolve().parents[2]
ARCHITECTURE = os.environ.get("CUDALABS_CUDA_ARCHITECTURE", "90")
TINY = pathlib.Path(__file__).resolve().parent / "tiny_lab"
NUMBER, FOLDER = "99", "99_tiny"
# What adding a lab may touch outside labs/NN_name/ and solutions/NN_name/ (issue 56's goal).
MOST_FILES_OUTSIDE = 8
# Every lab program and test is built for the checks, the solutions' kernels for the launch checks.
TARGETS = ["lab99", "lab99_grading_student", "resource_gate_launches"]
INSTRUCTOR_TARGETS = ["lab99_solution", "lab99_grading_solution"]


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, **kwargs)


class AddALabTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory(prefix="cudalabs-add-a-lab-")
        cls.addClassCleanup(cls.scratch.cleanup)  # also when the set-up fails
        cls.suite = pathlib.Path(cls.scratch.name) / "suite"
        # The build folder inside the copy, where the suite's own is inside the repository: ccache
        # (CCACHE_BASEDIR, cmake/CompilerCache.cmake) then sees the same relative paths and reuses what
        # this build compiled.
        ignored = shutil.ignore_patterns("build*", ".git", ".deps", ".gl", ".whl", "__pycache__", "grade-report*")
        shutil.copytree(
            REPO, cls.suite, ignore=lambda folder, names: ignored(folder, names) if folder == str(REPO) else []
        )
        # A student release has no solutions/: the lab comes without its solution there, as a release's do.
        cls.release = not (REPO / "solutions").is_dir()
        leave_out = shutil.ignore_patterns("solutions") if cls.release else None
        shutil.copytree(TINY, cls.suite, dirs_exist_ok=True, ignore=leave_out)
        cls.build = cls.suite / "build"
        generator = "Ninja" if shutil.which("ninja") else "Unix Makefiles"
        configure = run(
            ["cmake", "-S", cls.suite, "-B", cls.build, "-G", generator, f"-DCMAKE_CUDA_ARCHITECTURES={ARCHITECTURE}"]
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

    def test_it_touches_at_most_eight_files_outside_its_folders(self):
        added = [p.relative_to(TINY).as_posix() for p in TINY.rglob("*") if p.is_file()]
        own = (f"labs/{FOLDER}/", f"solutions/{FOLDER}/")
        outside = [path for path in added if not path.startswith(own)]
        self.assertEqual(outside, [f"tests/labs/lab{NUMBER}_grading_test.cpp"])
        self.assertLessEqual(len(outside), MOST_FILES_OUTSIDE)

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

    def test_make_and_python_know_it(self):
        make = run(["make", "-s", "-C", self.suite, "check-lab-number", f"N={NUMBER}"])
        self.assertEqual(make.returncode, 0, make.stderr)
        control = run(["make", "-s", "-C", self.suite, "check-lab-number", "N=98"])
        self.assertNotEqual(control.returncode, 0, "make accepts a lab that is not there")
        self.assertEqual(labs.lab_numbers(self.suite)[-1], NUMBER)
        self.assertNotIn(NUMBER, labs.lab_numbers(REPO))


if __name__ == "__main__":
    unittest.main()
