"""CPU tests of the grader's parts (scripts/grading): rubric, test results, scoring, reports, time limits
and staging. Run by ctest as grader.units; the end-to-end runs on a GPU are in grader_selftest.py."""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
import textwrap
import unittest
import xml.etree.ElementTree as ElementTree
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))

from grading import distinct, gtest, lab_grader, reports, submission  # noqa: E402
from grading.gtest import TestOutcome  # noqa: E402
from grading.lab_run import COMPILE_ERROR, CRASHED, LabRun, Rate  # noqa: E402
from grading.process import run_logged  # noqa: E402
from grading.rubric import RubricError, load_rubric  # noqa: E402
from grading.scoring import score_lab  # noqa: E402

RUBRIC = REPO / "tests" / "grading" / "rubric.json"
GEMM_CASES = ["odd_17x33x65", "square_64", "k_one_70x50x1", "rejects_bad_arguments"]


def write_rubric(folder: Path, text: str) -> Path:
    path = folder / "rubric.json"
    path.write_text(textwrap.dedent(text))
    return path


# Everything a lab needs but the key under test.
LAB_DEFAULTS = ('{"defaults": {"correctness": 1, "performance": [], "benchmark_args": [], "memcheck_filter": "*", '
                '"build_time_limit_s": 1, "time_limit_s": 1}, ')


class RubricTest(unittest.TestCase):
    def test_the_suite_rubric_covers_every_lab(self):
        rubric = load_rubric(RUBRIC)
        labs = [lab.number for lab in submission.suite_labs(REPO)]
        self.assertTrue(labs)
        for number in labs:
            self.assertIn(number, rubric.labs, f"tests/grading/rubric.json has no lab {number}")
            self.assertGreater(rubric.labs[number].max_points, 0)

    def test_defaults_and_overrides(self):
        rubric = load_rubric(RUBRIC)
        lab07 = rubric.labs["07"]
        best = next(v for v in lab07.variants if v.name == "best")
        self.assertEqual(best.correctness, 12)  # the variant's own value
        self.assertEqual(best.max_performance, 10)
        wide = next(v for v in lab07.variants if v.name == "wide_64x64")
        self.assertEqual(wide.correctness, 6)  # the lab's value
        self.assertEqual(wide.max_performance, 4)  # the defaults' tiers
        lab10 = rubric.labs["10"]
        self.assertEqual(next(v for v in lab10.variants if v.name == "mpi_checkpoint").correctness, 8)
        self.assertEqual((lab10.mpi_tests.binary, lab10.mpi_tests.ranks), ("lab10_mpi_parts_test_student", 3))
        self.assertEqual(best.benchmark, "lab07/best/")
        self.assertTrue(best.tests.search("Grading.best.odd_17x33x65"))
        self.assertFalse(best.tests.search("Grading.bestest.odd_17x33x65"))
        self.assertEqual(lab07.variant_of_test("Grading.wide_64x64.square_64").name, "wide_64x64")

    def test_bad_values_are_named(self):
        cases = {
            '{"labs": {"01": {"variants": {"a": {"correctness": -1}}}}}': "labs.01.variants.a.correctness = -1",
            '{"labs": {"1": {}}}': "labs.1: lab keys are two-digit numbers",
            '{"labs": {"01": {"variants": {}}}}': "labs.01.variants = {}",
            '{"labs": {"01": {"variants": {"a": {"tests": "("}}}}}': "labs.01.variants.a.tests = '('",
            '{"labs": {"01": {"colour": 1, "variants": {"a": {}}}}}': "labs.01: unknown key 'colour'",
            '{"defaults": {"correctness": 1, "performance": [{"fraction": 0, "points": 1}]}, "labs": {"01": {"variants": {"a": {}}}}}':
                "performance[0].fraction = 0.0",
            "{not json": "not JSON",
            LAB_DEFAULTS + '"labs": {"01": {"distinct": {"why": "w"}, "variants": {"a": {}}}}}': "labs.01.distinct = ",
            LAB_DEFAULTS + '"labs": {"01": {"distinct": {"why": "w", "metrics": ["not a metric"], "args": []}, '
            '"variants": {"a": {}}}}}': "labs.01.distinct.metrics: 'not a metric' is not an Nsight Compute metric name",
            LAB_DEFAULTS + '"labs": {"01": {"distinct": {"why": "w", "metrics": ["a__b.sum"], "args": ["--size", "8"], '
            '"tolerance": 2}, "variants": {"a": {}}}}}': "labs.01.distinct.tolerance = 2.0",
            LAB_DEFAULTS + '"labs": {"01": {"distinct": {"why": "w", "metrics": ["a__b.sum"], "args": ["--size", "8"], '
            '"repeats": ["zz"]}, "variants": {"a": {}}}}}': "labs.01.distinct.repeats: 'zz' is not a variant",
            LAB_DEFAULTS + '"labs": {"01": {"mpi_tests": {"binary": "t"}, "variants": {"a": {}}}}}': "labs.01.mpi_tests = ",
            LAB_DEFAULTS + '"labs": {"01": {"mpi_tests": {"binary": "t", "ranks": 0}, "variants": {"a": {}}}}}':
                "labs.01.mpi_tests.ranks = 0",
        }
        with tempfile.TemporaryDirectory() as folder:
            for text, needle in cases.items():
                path = write_rubric(Path(folder), text)
                with self.assertRaises(RubricError, msg=text) as caught:
                    load_rubric(path)
                self.assertIn(needle, str(caught.exception))
        with self.assertRaisesRegex(RubricError, "cannot be read"):
            load_rubric(Path("/nonexistent/rubric.json"))


GTEST_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="5" failures="1">
  <testsuite name="Grading.tiled" tests="3">
    <testcase name="odd_17x33x65" status="run" result="completed" time="0.5" classname="Grading.tiled">
      <failure message="tiled on 17x33x65: element (16, 32) = 3 differs from 4.5&#x0A;more" type=""><![CDATA[body]]></failure>
    </testcase>
    <testcase name="square_64" status="run" result="completed" time="0.1" classname="Grading.tiled" />
    <testcase name="k_one_70x50x1" status="run" result="skipped" time="0" classname="Grading.tiled">
      <skipped message="tests/support/gemm_grading.cpp:62&#x0A;tiled: not implemented yet"><![CDATA[x]]></skipped>
    </testcase>
    <testcase name="filtered_out" status="notrun" result="suppressed" time="0" classname="Grading.tiled" />
  </testsuite>
  <testsuite name="Counts/CopyTest" tests="1">
    <testcase name="IsBitExact/n1_off0_0" status="run" result="skipped" time="0" classname="Counts/CopyTest">
      <skipped message="no CUDA GPU available"/>
    </testcase>
  </testsuite>
</testsuites>
"""


class GtestTest(unittest.TestCase):
    def test_xml_outcomes(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "t.xml"
            path.write_text(GTEST_XML)
            outcomes = {o.name: o for o in gtest.parse_xml(path)}
        self.assertEqual(set(outcomes), {"Grading.tiled.odd_17x33x65", "Grading.tiled.square_64",
                                         "Grading.tiled.k_one_70x50x1", "Counts/CopyTest.IsBitExact/n1_off0_0"})
        self.assertEqual(outcomes["Grading.tiled.odd_17x33x65"].status, "failed")
        self.assertIn("element (16, 32)", outcomes["Grading.tiled.odd_17x33x65"].message)
        self.assertEqual(outcomes["Grading.tiled.odd_17x33x65"].case, "odd_17x33x65")
        self.assertEqual(outcomes["Grading.tiled.square_64"].status, "passed")
        self.assertEqual(outcomes["Grading.tiled.k_one_70x50x1"].status, "not_implemented")
        # The reason, not GoogleTest's bare location line, is what the report shows.
        self.assertEqual(outcomes["Grading.tiled.k_one_70x50x1"].message, "tiled: not implemented yet")
        self.assertEqual(outcomes["Counts/CopyTest.IsBitExact/n1_off0_0"].status, "skipped")

    def test_the_test_running_at_a_crash_is_named(self):
        console = ("[ RUN      ] Grading.a.one\n[       OK ] Grading.a.one (1 ms)\n"
                   "[ RUN      ] Grading.a.two\nSegmentation fault\n")
        self.assertEqual(gtest.test_running_at_exit(console), "Grading.a.two")
        self.assertIsNone(gtest.test_running_at_exit("[ RUN      ] X.y\n[  FAILED  ] X.y (2 ms)\n"))

    def test_listing(self):
        listing = "Grading.tiled.\n  odd_17x33x65\n  square_64\nShapes/FmaTest.\n  MatchesCpuChains/t1_i1  # GetParam() = 1\n"
        self.assertEqual(gtest.list_tests(listing), ["Grading.tiled.odd_17x33x65", "Grading.tiled.square_64",
                                                     "Shapes/FmaTest.MatchesCpuChains/t1_i1"])


def lab_rubric(folder: Path):
    path = write_rubric(folder, """
        {"labs": {"01": {"benchmark_args": [], "memcheck_filter": "*", "build_time_limit_s": 10, "time_limit_s": 10,
                         "unscored_tests": "^Reference\\\\.",
                         "performance": [{"fraction": 0.9, "points": 4}, {"fraction": 0.6, "points": 2}],
                         "variants": {"fast": {"correctness": 6}, "slow": {"correctness": 3}}}}}
        """)
    return load_rubric(path).labs["01"]


def run_with(statuses: dict[str, str], rates=None, fatal=None) -> LabRun:
    tests = [TestOutcome(f"Grading.{variant}.{case}", status, "why" if status == "failed" else "")
             for variant, status in statuses.items() for case in GEMM_CASES]
    tests.append(TestOutcome("Reference.IsExact", "passed"))
    run = LabRun("01", "01_naive_gemm", tests=tests, rates=rates or {})
    if fatal:
        run.fatal, run.reason = fatal, "kernels.cu does not compile: error: expected ';'"
    return run


class ScoringTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.rubric = lab_rubric(Path(self.folder.name))

    def tearDown(self):
        self.folder.cleanup()

    def test_tests_the_machine_cannot_run_count_neither_way(self):
        run = run_with({"fast": "passed", "slow": "passed"}, {"fast": Rate(100.0, 100.0), "slow": Rate(100.0, 100.0)})
        run.tests[0] = TestOutcome(run.tests[0].name, "skipped", "needs 2 GPUs, found 1")
        score = score_lab(self.rubric, run)
        fast = score.variants[0]
        self.assertEqual(fast.state, "passed")
        self.assertEqual(fast.correctness, fast.correctness_max)
        self.assertEqual(fast.failing, [])
        self.assertIn("not run on this machine", fast.note)
        self.assertIn("needs 2 GPUs, found 1", fast.note)
        # A failure among the tests that ran still costs its share.
        run.tests[1] = TestOutcome(run.tests[1].name, "failed", "element (0, 0) differs")
        fast = score_lab(self.rubric, run).variants[0]
        self.assertEqual(fast.state, "failed")
        self.assertAlmostEqual(fast.correctness, round(fast.correctness_max * (len(GEMM_CASES) - 2) / (len(GEMM_CASES) - 1), 2))
        # Nothing ran: no points, and the report says why.
        for i in range(len(GEMM_CASES)):
            run.tests[i] = TestOutcome(run.tests[i].name, "skipped", "needs 2 GPUs, found 1")
        fast = score_lab(self.rubric, run).variants[0]
        self.assertEqual((fast.state, fast.correctness), ("not run here", 0))

    def test_skeleton_scores_zero(self):
        score = score_lab(self.rubric, run_with({"fast": "not_implemented", "slow": "not_implemented"}))
        self.assertEqual(score.points, 0)
        self.assertEqual(score.max_points, 6 + 4 + 3 + 4)
        self.assertEqual({v.state for v in score.variants}, {"not implemented yet"})
        self.assertEqual(len(score.unscored), 1)

    def test_one_skipped_test_means_not_implemented(self):
        run = run_with({"fast": "passed", "slow": "passed"}, {"fast": Rate(100, 100), "slow": Rate(100, 100)})
        run.tests[0].status = "not_implemented"
        score = score_lab(self.rubric, run)
        self.assertEqual(score.variants[0].state, "not implemented yet")
        self.assertEqual(score.variants[0].points, 0)

    def test_solution_scores_full_marks(self):
        rates = {"fast": Rate(980.0, 1000.0), "slow": Rate(101.0, 100.0)}
        score = score_lab(self.rubric, run_with({"fast": "passed", "slow": "passed"}, rates))
        self.assertEqual(score.points, score.max_points)

    def test_performance_credit_rises_linearly_through_the_tiers(self):
        for student, expected in ((95, 4), (90, 4), (75, 3), (60, 2), (30, 1), (0, 0), (89.9, 3.99), (59.9, 2.0)):
            score = score_lab(self.rubric, run_with({"fast": "passed", "slow": "passed"}, {"fast": Rate(student, 100)}))
            self.assertAlmostEqual(score.variants[0].performance, expected, 2, f"{student}% of the solution")
            self.assertEqual(score.variants[1].performance, 0)
            self.assertEqual(score.variants[1].note, "no benchmark result")

    def test_failing_tests_cost_their_share_and_all_performance(self):
        run = run_with({"fast": "passed", "slow": "passed"}, {"fast": Rate(100, 100), "slow": Rate(100, 100)})
        run.tests[0].status = "failed"  # fast on odd_17x33x65
        score = score_lab(self.rubric, run)
        fast = score.variants[0]
        self.assertEqual(fast.state, "failed")
        self.assertEqual(fast.correctness, round(6 * 3 / 4, 2))
        self.assertEqual(fast.performance, 0)
        self.assertEqual([t.case for t in fast.failing], ["odd_17x33x65"])
        self.assertEqual(score.variants[1].points, 3 + 4)

    def test_fatal_scores_zero(self):
        score = score_lab(self.rubric, run_with({"fast": "passed", "slow": "passed"},
                                                {"fast": Rate(100, 100)}, fatal=COMPILE_ERROR))
        self.assertEqual(score.points, 0)
        self.assertEqual({v.state for v in score.variants}, {"lab scored 0"})

    def test_tests_the_rubric_does_not_place_are_reported(self):
        run = run_with({"fast": "passed", "slow": "passed"})
        run.tests.append(TestOutcome("Mystery.test", "failed", "boom"))
        self.assertEqual([t.name for t in score_lab(self.rubric, run).unmatched], ["Mystery.test"])


NCU_CSV = """$ ncu --metrics ... build/labs/lab03 --variant RC --verify-only
==PROF== Connected to process 4242
lab03 RC 192x160x96: PASS
"ID","Process ID","Kernel Name","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","launch__block_size"
"","","","","","",""
"0","4242","void lab03::layout_gemm_kernel<0, 1>(GemmArgs)","1,234,567","256"
"""


class DistinctTest(unittest.TestCase):
    RULE = distinct.DistinctRule("layouts differ", ("ld", "st"), ("--size", "8"), 0.05, ("best",))

    def test_ncu_csv_after_the_program_output(self):
        values = distinct.read_ncu_csv(NCU_CSV)
        self.assertEqual(values["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"], 1234567.0)
        self.assertEqual(values["launch__block_size"], 256.0)
        self.assertIsNone(distinct.read_ncu_csv("==PROF== No kernels were profiled.\n"))
        self.assertTrue(distinct.no_permission("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission"))

    def test_the_profile_command_reads_the_rule(self):
        command = distinct.ncu_command("ncu", "build/labs/lab03", "03", "RC", self.RULE)
        self.assertEqual(command[command.index("--metrics") + 1], "ld,st")
        self.assertIn("regex:lab03::", command)
        self.assertEqual(command[command.index("--variant") + 1:], ["RC", "--verify-only", "--size", "8"])

    def test_variants_that_measure_the_same_repeat_the_first(self):
        signatures = {"RR": {"ld": 1000.0, "st": 900.0}, "RC": {"ld": 1000.0, "st": 450.0},
                      "CR": {"ld": 1020.0, "st": 890.0},  # within 5 % of RR on both: RR again
                      "CC": {"ld": 0.0, "st": 0.0}, "CC2": {"ld": 0.0, "st": 0.0}, "best": {"ld": 1000.0, "st": 450.0}}
        self.assertEqual(distinct.repeated(signatures, self.RULE), {"CR": "RR", "CC2": "CC"})
        self.assertFalse(distinct.agree({"ld": 0.0}, {"ld": 3.0}, 0.05))

    def test_a_repeated_variant_scores_nothing_and_says_why(self):
        with tempfile.TemporaryDirectory() as folder:
            rubric = lab_rubric(Path(folder))
        run = run_with({"fast": "passed", "slow": "passed"}, {"fast": Rate(100, 100), "slow": Rate(100, 100)})
        run.repeated["slow"] = "not distinct from fast: layouts differ, yet both measured ld 1000"
        slow = score_lab(rubric, run).variants[1]
        self.assertEqual((slow.state, slow.points), ("not distinct", 0))
        self.assertIn("not distinct from fast", slow.note)
        self.assertEqual(score_lab(rubric, run).variants[0].points, 6 + 4)


class ReportsTest(unittest.TestCase):
    def test_three_reports_agree(self):
        with tempfile.TemporaryDirectory() as folder:
            rubric = lab_rubric(Path(folder))
            run = run_with({"fast": "passed", "slow": "passed"}, {"fast": Rate(50.0, 100.0), "slow": Rate(99.0, 100.0)})
            run.tests[1].status = "failed"
            run.tests[1].message = ("tests/support/gemm_grading.cpp:62\nExpected equality of these values:\n  report.outcome\n"
                                    "    Which is: 2\n  CheckOutcome::kPassed\n    Which is: 0\n"
                                    "fast on 64x64x64: element (1, 2) = 0 differs")
            broken = run_with({"fast": "passed", "slow": "passed"}, fatal=COMPILE_ERROR)
            broken.number, broken.folder, broken.details = "02", "02_smem_tiling", ["kernels.cu(3): error: expected ';'"]
            run.built_on = ["09", "07"]
            scores = [score_lab(rubric, run), score_lab(rubric, broken)]
            header = reports.Header("students/alice", "2026-11-22 10:00 UTC", "NVIDIA H100", "abc123", "42", "rubric.json")
            paths = reports.write_reports(Path(folder) / "out", header, scores)
            markdown, data = paths[0].read_text(), json.loads(paths[1].read_text())
            junit = ElementTree.parse(paths[2]).getroot()
        self.assertIn(f"**Total: {scores[0].points:g} / {scores[0].max_points + scores[1].max_points:g} points**", markdown)
        self.assertIn("- `fast` square_64: fast on 64x64x64: element (1, 2) = 0 differs", markdown)
        self.assertIn("CUDALABS_SEED=42 ctest --test-dir build -R '^lab01\\.student\\.Grading\\.fast\\.square_64$' "
                      "--output-on-failure", markdown)
        self.assertIn("**Scored 0: kernels.cu does not compile", markdown)
        self.assertIn("kernels.cu(3): error: expected ';'", markdown)
        self.assertRegex(markdown, r"\| slow \| passed \| 4 / 4 \| 3 / 3 \| 99 GFLOP/s \| 100 GFLOP/s \| 99% \| 4 / 4 \|")
        self.assertEqual(data["points"], scores[0].points)
        self.assertEqual(data["labs"][0]["variants"][0]["failing"][0]["case"], "square_64")
        self.assertEqual(data["labs"][1]["fatal"], COMPILE_ERROR)
        self.assertIn("- graded alone: it ran on the reference kernels of lab 09, lab 07, not the submission's", markdown)
        self.assertEqual(data["labs"][0]["built_on_reference_labs"], ["09", "07"])
        self.assertEqual(data["labs"][1]["built_on_reference_labs"], [])
        suites = junit.findall("testsuite")
        self.assertEqual([s.get("name") for s in suites], ["lab01", "lab02"])
        self.assertEqual(suites[0].get("failures"), "1")
        self.assertEqual(suites[1].get("errors"), "1")
        self.assertEqual(int(suites[0].get("tests")), 2 * len(GEMM_CASES))


class ProcessTest(unittest.TestCase):
    def test_time_limit_kills_the_process_group(self):
        with tempfile.TemporaryDirectory() as folder:
            done = run_logged(["bash", "-c", "sleep 30 & sleep 30; echo nev''er"], Path(folder) / "log", 0.5)
            self.assertTrue(done.timed_out)
            self.assertLess(done.seconds, 10)
            self.assertNotIn("never", done.output())

    def test_signal_is_named(self):
        with tempfile.TemporaryDirectory() as folder:
            done = run_logged(["python3", "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"],
                              Path(folder) / "log", 30)
        self.assertEqual(done.signal_name, "SIGSEGV")

    def test_exit_code_and_output(self):
        with tempfile.TemporaryDirectory() as folder:
            done = run_logged(["bash", "-c", "echo hello; exit 3"], Path(folder) / "log", 30)
            self.assertEqual(done.returncode, 3)
            self.assertIsNone(done.signal_name)
            self.assertIn("hello", done.output())


class MpiTestsTest(unittest.TestCase):
    """lab_grader's MPI step with a stand-in test program (a script writing GoogleTest XML) under the real
    mpirun, when there is one."""

    XML = textwrap.dedent("""\
        #!/bin/sh
        # A stand-in MPI test program: {behaviour}
        for arg in "$@"; do case $arg in --gtest_output=xml:*) out=${{arg#--gtest_output=xml:}};; esac; done
        {body}
        """)
    PASSING = ('printf \'<testsuites><testsuite name="Scatter"><testcase classname="Scatter" '
               'name="EveryRankGetsItsShare" time="0.1"/></testsuite></testsuites>\' > "$out"')

    def grade(self, folder: Path, script: str | None):
        build, logs = folder / "build", folder / "logs"
        (build / "tests").mkdir(parents=True)
        (build / "CMakeCache.txt").write_text("CUDALABS_MPI_FOUND:INTERNAL=ON\n")
        if script is not None:
            program = build / "tests" / "lab10_mpi_parts_test_student"
            program.write_text(script)
            program.chmod(0o755)
        ctx = lab_grader.Context(build, logs, {**os.environ})
        rubric = load_rubric(RUBRIC).labs["10"]
        run = LabRun("10", "10_multi_gpu_dcgan")
        ok = lab_grader._mpi_tests(ctx, submission.Lab("10", "10_multi_gpu_dcgan"), rubric, 60, run)
        return ok, run

    def setUp(self):
        if shutil.which("mpirun") is None:
            self.skipTest("no mpirun here")

    def test_the_tests_join_the_labs(self):
        with tempfile.TemporaryDirectory() as folder:
            ok, run = self.grade(Path(folder), self.XML.format(behaviour="passes", body=self.PASSING))
            self.assertTrue(ok, run.reason)
            self.assertEqual([(t.name, t.status) for t in run.tests], [("Scatter.EveryRankGetsItsShare", "passed")])
            self.assertTrue(lab_grader.mpi_built(Path(folder) / "build"))

    def test_a_crash_before_the_report_scores_zero(self):
        with tempfile.TemporaryDirectory() as folder:
            ok, run = self.grade(Path(folder), self.XML.format(behaviour="crashes", body="exit 3"))
            self.assertFalse(ok)
            self.assertEqual(run.fatal, CRASHED)
            self.assertIn("the MPI tests exited with code", run.reason)

    def test_without_the_program_the_report_says_why(self):
        with tempfile.TemporaryDirectory() as folder:
            ok, run = self.grade(Path(folder), None)
            self.assertTrue(ok)
            self.assertEqual(run.tests, [])
            self.assertIn("MPI tests not run", run.details[0])


class SubmissionTest(unittest.TestCase):
    def test_select_labs(self):
        labs = submission.suite_labs(REPO)
        self.assertEqual([l.number for l in submission.select_labs(labs, "1, 02")], ["01", "02"])
        self.assertEqual(submission.select_labs(labs, ""), labs)
        with self.assertRaisesRegex(ValueError, "LABS: '42' is not a lab"):
            submission.select_labs(labs, "42")

    def test_only_kernels_are_taken_and_missing_labs_use_the_skeleton(self):
        labs = submission.suite_labs(REPO)
        with tempfile.TemporaryDirectory() as folder:
            student, staging = Path(folder) / "student", Path(folder) / "staging"
            (student / labs[1].folder).mkdir(parents=True)
            (student / labs[1].folder / "kernels.cu").write_text("// alice's kernels\n")
            (student / labs[1].folder / "lab.h").write_text("// must be ignored\n")
            submitted = submission.stage(REPO, student, staging, labs[:3])
            self.assertEqual(submitted, {labs[0].number: False, labs[1].number: True, labs[2].number: False})
            self.assertEqual((staging / labs[1].folder / "kernels.cu").read_text(), "// alice's kernels\n")
            self.assertFalse((staging / labs[1].folder / "lab.h").exists())
            skeleton = (REPO / "labs" / labs[0].folder / "kernels.cu").read_text()
            self.assertEqual((staging / labs[0].folder / "kernels.cu").read_text(), skeleton)
            self.assertTrue(all((staging / lab.folder / "kernels.cu").exists() for lab in labs))

    def test_lab10s_mpi_parts_are_the_students_too(self):
        lab10 = next(lab for lab in submission.suite_labs(REPO) if lab.number == "10")
        self.assertEqual(submission.student_files(lab10),
                         ["kernels.cu", "checkpoint.cpp", "node_output.cpp", "scatter.cpp"])
        lab01 = submission.suite_labs(REPO)[1]
        self.assertEqual(submission.student_files(lab01), ["kernels.cu"])
        with tempfile.TemporaryDirectory() as folder:
            student, staging = Path(folder) / "student", Path(folder) / "staging"
            (student / lab10.folder).mkdir(parents=True)
            (student / lab10.folder / "kernels.cu").write_text("// bob's threads\n")
            (student / lab10.folder / "scatter.cpp").write_text("// bob's scatter\n")
            (student / lab10.folder / "mpi_main.cpp").write_text("// must be ignored\n")
            self.assertEqual(submission.stage(REPO, student, staging, [lab10]), {"10": True})
            self.assertEqual((staging / lab10.folder / "scatter.cpp").read_text(), "// bob's scatter\n")
            # A part not handed in is the skeleton's: it scores as not implemented.
            self.assertEqual((staging / lab10.folder / "checkpoint.cpp").read_text(),
                             (REPO / "labs" / lab10.folder / "checkpoint.cpp").read_text())
            self.assertFalse((staging / lab10.folder / "mpi_main.cpp").exists())

    def test_a_lab_with_only_its_mpi_parts_is_submitted(self):
        lab10 = next(lab for lab in submission.suite_labs(REPO) if lab.number == "10")
        with tempfile.TemporaryDirectory() as folder:
            student, staging = Path(folder) / "student", Path(folder) / "staging"
            (student / lab10.folder).mkdir(parents=True)
            (student / lab10.folder / "checkpoint.cpp").write_text("// carol's checkpoint\n")
            self.assertEqual(submission.stage(REPO, student, staging, [lab10]), {"10": True})
            self.assertEqual((staging / lab10.folder / "checkpoint.cpp").read_text(), "// carol's checkpoint\n")
            self.assertEqual((staging / lab10.folder / "kernels.cu").read_text(),
                             (REPO / "labs" / lab10.folder / "kernels.cu").read_text())

    def test_the_reproduce_command_names_the_ctest(self):
        self.assertEqual(reports._ctest_pattern("Grading.fast.square_64"), r"Grading\.fast\.square_64")
        # lab 10's MPI tests are one ctest per suite, its grading tests one per test: both match.
        pattern = re.compile("^lab10\\.student\\." + reports._ctest_pattern("Scatter.EveryRankGetsItsShare") + "$")
        self.assertTrue(pattern.match("lab10.student.Scatter"))
        self.assertTrue(pattern.match("lab10.student.Scatter.EveryRankGetsItsShare"))
        self.assertFalse(pattern.match("lab10.student.ScatterX"))

    def test_grading_build_runs_later_labs_on_the_reference(self):
        command = submission.cmake_configure_command(REPO, Path("/b"), Path("/b/submission"))
        self.assertIn("-DCUDALABS_EARLIER_LABS=reference", command)
        with tempfile.TemporaryDirectory() as folder:
            self.assertEqual(submission.earlier_labs(Path(folder)), {})
            (Path(folder) / "earlier_labs.json").write_text(
                '{"earlier_labs": "reference", "builds_on": {"09": ["07"], "10": ["09", "07"]}}')
            self.assertEqual(submission.earlier_labs(Path(folder)), {"09": ["07"], "10": ["09", "07"]})

    def test_compiler_errors_are_picked_out(self):
        log = "ninja: ...\nkernels.cu(27): error: expected a \";\"\nwarning: x\nninja: build stopped: subcommand failed.\n"
        self.assertEqual(submission.compiler_errors(log), ['kernels.cu(27): error: expected a ";"'])
        staged = "/b/submission/01_naive_gemm/kernels.cu(3): error: x\n"
        self.assertEqual(submission.compiler_errors(staged, Path("/b/submission")), ["01_naive_gemm/kernels.cu(3): error: x"])


if __name__ == "__main__":
    unittest.main()
