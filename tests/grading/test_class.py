"""The class grader (scripts/grade-class) on the CPU: a stand-in grader (fake/fake_grade.py) replaces
scripts/grade, so the roster, the parallel workers, resumption, a hanging or crashing student, the
gradebook, the class report, similarity and bad input are exercised without a GPU."""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from cudalabs.grading import classroom, lab_run, similarity, solution_file, submission
from disguises import alternative_tokens, one_macro, renamed
from cudalabs.grading.rubric import load_rubric
from cudalabs.paths import REPO

GRADE_CLASS = REPO / "scripts" / "grade-class"
FAKE = Path(__file__).resolve().parent / "fake" / "fake_grade.py"


def make_student(root: Path, name: str, text: str, nested: bool = False) -> Path:
    folder = root / name / ("labs" if nested else "") / "01_naive_gemm"
    folder.mkdir(parents=True)
    (folder / "kernels.cu").write_text(text)
    return root / name


def grade_class(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "CUDALABS_GRADE_COMMAND": str(FAKE)}
    return subprocess.run(
        [sys.executable, str(GRADE_CLASS), *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def gradebook(out: Path) -> dict[str, dict]:
    with open(out / "gradebook.csv") as file:
        return {row["Student ID"]: row for row in csv.DictReader(file)}


class ClassGradingTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        self.klass = self.root / "class"
        self.out = self.root / "out"
        make_student(self.klass, "alice", "// POINTS=10\n")
        make_student(self.klass, "bob", "// POINTS=4\n", nested=True)  # a clone of the suite: bob/labs/...
        make_student(self.klass, "carol", "// HANG\n")
        make_student(self.klass, "dave", "// CRASH\n")
        (self.klass / "erin").mkdir()  # a folder with no lab in it: every lab missing
        make_student(self.klass, "frank", "// POINTS=10 cublas\n")  # the stand-in scores it as an integrity case
        make_student(self.klass, "gina", "// POINTS=10 SAME\n")  # a second variant that repeats the first
        make_student(self.klass, "hank", "// POINTS=10 NOTECHNIQUE\n")  # right results, not by the technique

    def tearDown(self):
        self.tmp.cleanup()

    def run_class(self, *extra: str) -> subprocess.CompletedProcess:
        done = grade_class(
            "--class",
            str(self.klass),
            "--labs",
            "01",
            "--out",
            str(self.out),
            "--gpus",
            "0,1",
            "--student-timeout",
            "3",
            *extra,
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        return done

    def test_a_class_in_one_command(self):
        done = self.run_class()
        book = gradebook(self.out)
        self.assertEqual(set(book), {"alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank"})
        self.assertEqual(
            (book["alice"]["Lab 01"], book["alice"]["Total"], book["alice"]["Status"]), ("10", "10", "graded")
        )
        self.assertEqual(book["bob"]["Lab 01"], "4")
        self.assertTrue(book["carol"]["Status"].startswith("timed out after 3 s"))
        self.assertIn("grader error: grade: the grading build does not configure", book["dave"]["Status"])
        self.assertEqual(book["alice"]["Report"], "students/alice")
        # One progress line per graded student, with the time left; both GPUs were used.
        progress = [line for line in done.stdout.splitlines() if "] " in line and "left" in line]
        self.assertEqual(len(progress), 8)
        # What cost points, per student, in the gradebook itself.
        self.assertEqual(book["alice"]["Findings"], "")
        self.assertEqual(book["bob"]["Findings"], "lab 01: v failing: odd_17x33x65")
        self.assertEqual(
            book["frank"]["Findings"], "lab 01: integrity rule broken: integrity: kernels.cu line 1: cuBLAS"
        )
        self.assertEqual(book["gina"]["Findings"], "lab 01: w not distinct from v")
        # Every state but "passed" is named, with the rule's words; an unwritten challenge costs nothing.
        self.assertEqual(
            book["hank"]["Findings"], "lab 01: v technique not shown: operands staged through shared memory tiles"
        )
        gpus = {
            json.loads((self.out / "students" / s / "grade-report.json").read_text())["gpu"] for s in ("alice", "bob")
        }
        self.assertLessEqual(gpus, {"0", "1"})
        report = (self.out / "class-report.md").read_text()
        self.assertIn("## Points per lab", report)
        # bob and erin; the check's own words (not GoogleTest's location and assertion), its pipes escaped
        self.assertIn("| 01 | v | odd_17x33x65 | 2 | element (0, 1) differs: \\|err\\| 2 over its bound |", report)
        self.assertNotIn("| 01 | x |", report)  # every student's unwritten variant: not a failed test
        self.assertIn("- frank, lab 01: integrity: kernels.cu line 1: cuBLAS", report)
        self.assertIn("- carol: timed out", report)
        page = (self.out / "class-report.html").read_text()
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        self.assertNotIn("<pre>", page)  # the tables are HTML tables, not text
        self.assertIn("<td>odd_17x33x65</td><td>2</td><td>element (0, 1) differs: |err| 2 over its bound</td>", page)
        self.assertIn("<li>frank, lab 01: integrity: kernels.cu line 1: cuBLAS</li>", page)

    def test_a_second_run_grades_only_what_changed(self):
        self.run_class()
        done = self.run_class()
        self.assertIn("alice: current report", done.stdout)
        self.assertIn("bob: current report", done.stdout)
        self.assertNotIn("alice on GPU", done.stdout)
        (self.klass / "alice" / "01_naive_gemm" / "kernels.cu").write_text("// POINTS=7\n")
        done = self.run_class()
        self.assertIn("alice on GPU", done.stdout)
        self.assertNotIn("bob on GPU", done.stdout)
        self.assertEqual(gradebook(self.out)["alice"]["Lab 01"], "7")
        done = self.run_class("--regrade")
        self.assertIn("bob on GPU", done.stdout)

    def test_a_roster_names_the_students_and_their_folders(self):
        roster = self.root / "roster.csv"
        roster.write_text("Student,Folder\ns1001,alice\ns1002,bob\n")
        done = grade_class(
            "--roster", str(roster), "--class", str(self.klass), "--labs", "01", "--out", str(self.out), "--gpus", "0"
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        book = gradebook(self.out)
        self.assertEqual(set(book), {"s1001", "s1002"})
        self.assertEqual(book["s1001"]["Report"], "students/s1001")
        self.assertEqual(book["s1002"]["Lab 01"], "4")

    def test_shares_then_merge_give_the_same_gradebook(self):
        for share in ("1/2", "2/2"):
            done = grade_class(
                "--class",
                str(self.klass),
                "--labs",
                "01",
                "--out",
                str(self.out),
                "--gpus",
                "0",
                "--student-timeout",
                "3",
                "--chunk",
                share,
            )
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertFalse((self.out / "gradebook.csv").exists())
        done = grade_class("--class", str(self.klass), "--labs", "01", "--out", str(self.out), "--merge")
        self.assertEqual(done.returncode, 0, done.stderr)
        book = gradebook(self.out)
        self.assertEqual((book["alice"]["Total"], book["bob"]["Total"]), ("10", "4"))

    def test_the_slurm_array_script_grades_shares_then_merges(self):
        env = {
            **os.environ,
            "CUDALABS_GRADE_COMMAND": str(FAKE),
            "CLASS": str(self.klass),
            "OUT": str(self.out),
            "LABS": "01",
            "SLURM_SUBMIT_DIR": str(REPO),
            "CUDA_VISIBLE_DEVICES": "3",
            "STUDENT_TIMEOUT": "3",
        }
        for task in ("1", "2"):
            done = subprocess.run(
                ["bash", str(REPO / "scripts" / "grade-class.sbatch")],
                capture_output=True,
                text=True,
                timeout=120,
                env={**env, "SLURM_ARRAY_TASK_ID": task, "SLURM_ARRAY_TASK_COUNT": "2"},
            )
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn("on GPU 3", done.stdout)  # the GPU Slurm gave the task, not device 0
        done = subprocess.run(
            ["bash", str(REPO / "scripts" / "grade-class.sbatch")],
            capture_output=True,
            text=True,
            timeout=120,
            env={**env, "MERGE": "1"},
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(gradebook(self.out)["bob"]["Total"], "4")

    def test_bad_input_gets_one_line(self):
        roster = self.root / "roster.csv"
        cases = [
            (["--class", str(self.root / "missing")], "CLASS: "),
            (["--roster", str(self.root / "none.csv")], "ROSTER: "),
            (["--class", str(self.klass), "--labs", "42"], "LABS: '42' is not a lab"),
            (["--class", str(self.klass), "--chunk", "3/2"], "--chunk: '3/2'"),
            (["--class", str(self.klass), "--gpus", "zero"], "--gpus: 'zero'"),
            ([], "give CLASS=dir"),
        ]
        for rows, words in (
            ("name,dir\na,b\n", "expected a header"),
            ("student,folder\na,x\na,y\n", "appears twice"),
            ("student,folder\nbad id,x\n", "not usable"),
            ("student,folder\nok\n", "expected 2 columns"),
        ):
            cases.append((["--roster", str(roster), "--content", rows], words))
        for args, words in cases:
            if "--content" in args:
                roster.write_text(args[-1])
                args = args[:2]
            done = grade_class(*args, "--out", str(self.out))
            lines = done.stderr.strip().splitlines()
            self.assertEqual(done.returncode, 2, (args, done.stderr))
            self.assertEqual(len(lines), 1, done.stderr)
            self.assertIn(words, lines[0])


class PlantedClassTest(unittest.TestCase):
    def test_the_planted_class_has_every_plant_and_each_expectation_names_something_real(self):
        import planted_class  # this folder (on PYTHONPATH as the grader tests run)

        rubric = load_rubric(REPO / "tests" / "grading" / "rubric.json")
        fatal = {value for name, value in vars(lab_run).items() if name.isupper() and isinstance(value, str)}
        with tempfile.TemporaryDirectory() as folder:
            expected = planted_class.write_class(Path(folder) / "class")
            self.assertGreaterEqual(len(expected), 15)
            for student, labs in expected.items():
                for lab_folder, expect in labs.items():
                    self.assertTrue((Path(folder) / "class" / student / lab_folder / "kernels.cu").is_file())
                    if expect.startswith("state:"):
                        name, state = expect[len("state:") :].split("=")
                        names = {v.name for v in rubric.labs[lab_folder[:2]].variants}
                        self.assertIn(name, names, (student, expect))
                        self.assertIn(state, ("failed", "not distinct", "technique not shown"), (student, expect))
                    elif not expect.startswith("similar pair: ") and expect not in (
                        "full marks",
                        "not implemented yet",
                        "whole core",
                    ):
                        self.assertIn(expect, fatal, (student, expect))
            students = {s.id for s in classroom.discover(Path(folder) / "class")}
            self.assertEqual(students, set(expected))
            versions = {s for s, labs in expected.items() if "whole core" in labs.values()}
            self.assertGreaterEqual(len(versions), 12, "every lab's student version is a student of the class")

    def test_the_similar_pairs_expected_are_among_each_students_first_findings(self):
        # The class's similarity as the class grader computes it, and each student's findings as the
        # gradebook writes them: the disguised copies are listed with each other (or the solution).
        import planted_class
        from cudalabs.grading.class_report import StudentResult, findings

        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder) / "class"
            expected = planted_class.write_class(root)
            students = {s.id: s.folder for s in classroom.discover(root)}
            wanted = {s: labs for s, labs in expected.items() if any(e.startswith("similar") for e in labs.values())}
            self.assertGreaterEqual(len(wanted), 5)
            labs = [submission.Lab(f[:2], f) for f in sorted({f for labs in wanted.values() for f in labs})]
            pairs = similarity.similar_pairs(students, labs, REPO)
        for student, labs in wanted.items():
            for expect in labs.values():
                with self.subTest(student=student):
                    self.assertIn(expect, findings(StudentResult(student, "graded", Path(".")), pairs))

    def test_every_plant_changes_its_solution(self):
        import planted
        from cudalabs.grading.solution_file import single_file

        for plant in planted.plants():
            with self.subTest(plant=plant.name):
                self.assertNotEqual(plant.source, single_file(REPO, plant.folder))

    def test_a_student_version_must_pass_the_whole_core_or_the_check_says_why(self):
        import planted

        def lab(*states, fatal=None, challenge=()):
            variants = [
                {"name": f"v{i}", "state": s, "correctness": 1, "correctness_max": 1, "challenge": i in challenge}
                for i, s in enumerate(states)
            ]
            return {"fatal": fatal, "reason": "", "variants": variants}

        def problem(report):
            return planted.expectation_problem(report, "whole core")

        self.assertIsNone(problem(lab("passed", "passed")))
        # The optional challenge may be left unwritten; a GPU that cannot run a rung does not count.
        self.assertIsNone(problem(lab("passed", "not implemented yet", challenge=(1,))))
        self.assertIsNone(problem(lab("passed", "not run here")))
        # A core variant left unwritten, failing, repeating another or without its technique: named.
        self.assertIn("v1 not implemented yet", problem(lab("passed", "not implemented yet")))
        self.assertIn("v1 failed", problem(lab("passed", "failed")))
        self.assertIn("v1 failed", problem(lab("passed", "failed", challenge=(1,))))
        self.assertIn("technique not shown", problem(lab("technique not shown")))
        self.assertIn("v1 not distinct", problem(lab("passed", "not distinct")))
        # A core that ran nowhere proves nothing, even beside a passing challenge.
        self.assertIn("no core variant passed", problem(lab("not run here", "passed", challenge=(1,))))
        self.assertIsNotNone(problem(lab("passed", fatal="crashed")))
        partial = lab("passed")
        partial["variants"][0]["correctness"] = 0.5
        self.assertIn("v0 correctness", problem(partial))
        # Predictions not handed in cost their point, not the core: they are no kernel.
        no_predictions = lab("passed", "passed")
        no_predictions["variants"].append(
            {"name": planted.PREDICTIONS, "state": "not handed in", "correctness": 0, "correctness_max": 1}
        )
        self.assertIsNone(problem(no_predictions))

    def test_a_skeleton_leaves_every_variant_worth_points_unwritten_and_its_given_code_passes(self):
        import planted

        def lab(*variants, points=0, fatal=None):
            rows = [
                {"name": f"v{i}", "state": s, "correctness_max": c, "performance_max": 0}
                for i, (s, c) in enumerate(variants)
            ]
            return {"fatal": fatal, "reason": "", "points": points, "variants": rows}

        def problem(report):
            return planted.expectation_problem(report, "not implemented yet")

        todo, given = ("not implemented yet", 6), ("passed", 0)
        self.assertIsNone(problem(lab(todo, todo)))
        self.assertIsNone(problem(lab(todo, given)))
        self.assertIsNone(problem(lab(todo, ("not run here", 4))))
        # Given code that runs the student's (lab 13's attention_naive on the student's softmax) waits for it.
        self.assertIsNone(problem(lab(todo, ("not implemented yet", 0))))
        # A given kernel that fails, a TODO that passes, points or a fatal: each named.
        self.assertIn("given v1 failed", problem(lab(todo, ("failed", 0))))
        self.assertIn("passed", problem(lab(todo, ("passed", 6))))
        self.assertIsNotNone(problem(lab(todo, points=1)))
        self.assertIsNotNone(problem(lab(todo, fatal="crashed")))
        # Only given code passing is no skeleton.
        self.assertIsNotNone(problem(lab(given)))
        # A skeleton hands in no predictions: the lab's predictions line is no kernel of it.
        unhanded = lab(todo, todo)
        unhanded["variants"].append(
            {"name": planted.PREDICTIONS, "state": "not handed in", "correctness_max": 1, "performance_max": 0}
        )
        self.assertIsNone(problem(unhanded))


class ClassroomTest(unittest.TestCase):
    def test_chunks_cover_every_student_once(self):
        students = [classroom.Student(f"s{i}", Path("/x")) for i in range(7)]
        shares = [classroom.chunk(students, f"{k}/3") for k in (1, 2, 3)]
        self.assertEqual(sorted(s.id for share in shares for s in share), sorted(s.id for s in students))


class SimilarityTest(unittest.TestCase):
    """Similarity on what the compiler sees: disguised copies are listed with the copy they come from
    (and with the solution's whole code), independent work and the skeleton are not."""

    LAB05 = submission.Lab("05", "05_register_tiling")

    def grade(self, lab, texts: dict[str, str], threshold=50):
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            for name, text in texts.items():
                (root / name / lab.folder).mkdir(parents=True)
                (root / name / lab.folder / "kernels.cu").write_text(text)
            pairs = similarity.similar_pairs({n: root / n for n in texts}, [lab], REPO, threshold)
        return {(p.first, p.second): p.percent for p in pairs}

    def test_disguised_copies_are_listed_whatever_the_spelling(self):
        solution = solution_file.single_file(REPO, self.LAB05.folder)
        names = {"acc": "total", "tile_a": "sa", "tile_b": "sb", "row": "r0", "col": "c0", "args": "p"}
        disguises = {
            "renamed": renamed(solution, names),
            "alternative": alternative_tokens(renamed(solution, {"acc": "sum_reg", "row": "which_row"})),
            "macro": one_macro(solution),
            "flat": " ".join(re.sub(r"//[^\n]*", "", solution).split("\n")).replace("#", "\n#"),
        }
        for name, text in disguises.items():
            with self.subTest(disguise=name):
                self.assertNotEqual(similarity.tokens(text), [], name)
                found = self.grade(self.LAB05, {name: text, "own": _own_version(self.LAB05)})
                self.assertGreaterEqual(found.get((name, "solution"), 0), 90, found)
        pair = self.grade(self.LAB05, {"ann": disguises["macro"], "ben": disguises["alternative"]})
        self.assertGreaterEqual(pair.get(("ann", "ben"), 0), 90, pair)

    def test_the_alternative_spellings_and_the_macro_give_the_solutions_tokens(self):
        solution = solution_file.single_file(REPO, self.LAB05.folder)
        plain = similarity.tokens(similarity.preprocessed(solution))
        self.assertEqual(similarity.tokens(similarity.preprocessed(alternative_tokens(solution))), plain)
        self.assertIn("&&", similarity.tokens("a and b bitand c <: 0 :>"))
        self.assertEqual(similarity.tokens("x not_eq y"), ["I", "!=", "I"])
        spliced = similarity.preprocessed("#define TWICE(x) \\\n ((x) + (x))\nint f(int v) { return TWICE(v); }\n")
        self.assertNotIn("TWICE", spliced)
        self.assertIn("(v) + (v)", spliced)

    def test_a_verbatim_copy_of_a_solution_made_of_headers_is_listed(self):
        for folder in ("11_tensor_cores", "12_reduce_scan_histogram", "13_attention"):
            lab = submission.Lab(folder[:2], folder)
            with self.subTest(lab=folder):
                found = self.grade(lab, {"copier": solution_file.single_file(REPO, folder)})
                self.assertEqual(found.get(("copier", "solution")), 100, found)

    def test_no_file_the_student_names_is_read(self):
        secret = Path(tempfile.mkdtemp()) / "secret.h"
        secret.write_text("int leaked_value_from_elsewhere = 1;\n")
        for spelling in (f'#include "{secret}"', f"%:include <{secret}>", f"# /* */ include_next <{secret}>"):
            with self.subTest(spelling=spelling):
                self.assertNotIn("leaked_value", similarity.preprocessed(spelling + "\nint x;\n"))

    def test_independent_work_and_the_skeleton_are_not_listed(self):
        for lab in (submission.Lab("01", "01_naive_gemm"), self.LAB05, submission.Lab("13", "13_attention")):
            with self.subTest(lab=lab.folder):
                skeleton = (REPO / "labs" / lab.folder / "kernels.cu").read_text()
                found = self.grade(lab, {"own": _own_version(lab), "cid": skeleton})
                self.assertEqual(found, {}, found)


def _own_version(lab: submission.Lab) -> str:
    """The lab written from its handout alone (tests/grading/student_versions/)."""
    return (Path(__file__).parent / "student_versions" / lab.folder / "kernels.cu").read_text()


if __name__ == "__main__":
    unittest.main()
