"""CPU tests of the grader's parts (cudalabs.grading): rubric, test results and the rubric's test lists,
scoring, technique rules, reports and the LMS exports, time limits, reading a submission. Run by ctest as
grader.units; the end-to-end runs on a GPU are in grader_selftest.py."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from unittest import mock
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from cudalabs.grading import gtest, integrity, lab_grader, lms, reports, submission, technique
from cudalabs.grading.gtest import TestOutcome
from cudalabs.grading.lab_run import COMPILE_ERROR, LabRun, Rate
from cudalabs.grading.process import run_logged
from cudalabs.grading.rubric import RubricError, load_rubric
from cudalabs.grading.scoring import score_lab
from cudalabs.grading.technique import TechniqueRules, VariantTechnique
from cudalabs.paths import REPO, RUBRIC

GEMM_CASES = ["odd_17x33x65", "square_64", "k_one_70x50x1", "rejects_bad_arguments"]


def write_rubric(folder: Path, text: str) -> Path:
    path = folder / "rubric.json"
    path.write_text(textwrap.dedent(text))
    return path


# Everything a lab needs but the key under test.
INTEGRITY = '"integrity": {"includes": ["labs/{folder}/*"], "symbols": {"x": ["memcpy"]}}'
LAB_DEFAULTS = (
    '{"defaults": {"correctness": 1, "performance": [], "memcheck_filter": "*", '
    '"build_time_limit_s": 1, "time_limit_s": 1, "tests": "t.txt", ' + INTEGRITY + "}, "
)


def write_lists(folder: Path) -> None:
    (folder / "t.txt").write_text("# list\nGrading.a.x\n")


class RubricTest(unittest.TestCase):
    def test_the_suite_rubric_covers_every_lab(self):
        rubric = load_rubric(RUBRIC)
        labs = [lab.number for lab in submission.suite_labs(REPO)]
        self.assertTrue(labs)
        for number in labs:
            self.assertTrue(number in rubric.labs, f"{RUBRIC} has no lab {number}")
            self.assertGreater(rubric.labs[number].max_points, 0)

    def test_defaults_and_overrides(self):
        rubric = load_rubric(RUBRIC)
        lab07 = rubric.labs["07"]
        best = next(v for v in lab07.variants if v.name == "best")
        self.assertEqual(best.max_performance, 5)  # the variant's own tiers
        cp_async = next(v for v in lab07.variants if v.name == "async_128x256")
        self.assertEqual(cp_async.correctness, 8)  # the variant's own value
        step = next(v for v in lab07.variants if v.name == "step1_wide_loads")
        self.assertEqual(step.correctness, 6)  # the lab's value
        self.assertEqual(step.max_performance, 4)  # the defaults' tiers
        self.assertTrue(best.tests.search("Grading.best.odd_17x33x65"))
        self.assertFalse(best.tests.search("Grading.bestest.odd_17x33x65"))
        self.assertEqual(lab07.variant_of_test("Grading.wide_64x64.square_64").name, "wide_64x64")
        self.assertIn("Grading.best.odd_17x33x65", lab07.tests)
        lab11 = rubric.labs["11"]
        self.assertEqual(lab11.variant_lists()["fp16_variants"], ["wmma_fp16", "mma_fp16"])
        wgmma = next(v for v in lab11.variants if v.name == "wgmma")
        self.assertEqual((wgmma.requires.compute_capability, wgmma.requires.architecture), (9.0, "90a"))
        self.assertIsNone(rubric.labs["10"].benchmark)
        self.assertEqual(rubric.labs["08"].benchmark.args, ("--case", "case2"))

    def test_every_technique_lab_has_a_rule_for_every_variant(self):
        rubric = load_rubric(RUBRIC)
        for number, lab in rubric.labs.items():
            if lab.technique is None:
                continue
            for variant in lab.variants:
                self.assertTrue(
                    any(rule.applies_to(variant.name) for rule in lab.technique.rules), f"lab {number} {variant.name}"
                )

    def test_bad_values_are_named(self):
        cases = {
            LAB_DEFAULTS
            + '"labs": {"01": {"variants": {"a": {"correctness": -1}}}}}': "labs.01.variants.a.correctness = -1",
            '{"labs": {"1": {}}}': "labs.1: lab keys are two-digit numbers",
            LAB_DEFAULTS + '"labs": {"01": {"variants": {}}}}': "labs.01.variants = {}",
            LAB_DEFAULTS
            + '"labs": {"01": {"variants": {"a": {"challenge": "yes"}}}}}': "labs.01.variants.a.challenge = 'yes'",
            LAB_DEFAULTS + '"labs": {"01": {"variants": {"a": {"tests": "("}}}}}': "labs.01.variants.a.tests = '('",
            LAB_DEFAULTS + '"labs": {"01": {"colour": 1, "variants": {"a": {}}}}}': "labs.01: unknown key 'colour'",
            '{"defaults": {"correctness": 1, "performance": [{"fraction": 0, "points": 1}]}, "labs": {"01": {"variants": {"a": {}}}}}': "performance[0].fraction = 0.0",
            "{not json": "not JSON",
            LAB_DEFAULTS
            + '"labs": {"01": {"technique": {"metrics": {"x": "not a metric"}, "rules": [{"variants": ["*"], '
            '"require": "x > 0", "why": "w"}]}, "variants": {"a": {}}}}}': "labs.01.technique.metrics.x = 'not a metric'",
            LAB_DEFAULTS + '"labs": {"01": {"technique": {"metrics": {"x": "a__b.sum"}, "rules": [{"variants": ["*"], '
            '"require": "y > 0", "why": "w"}]}, "variants": {"a": {}}}}}': "'y' was not measured",
            LAB_DEFAULTS + '"labs": {"01": {"technique": {"metrics": {"x": "a__b.sum"}, "rules": [{"variants": ["*"], '
            '"require": "__import__(1)", "why": "w"}]}, "variants": {"a": {}}}}}': "is not an expression a rule may use",
            LAB_DEFAULTS + '"labs": {"01": {"technique": {"metrics": {"x": "a__b.sum"}, "rules": [{"variants": ["zz"], '
            '"require": "x > 0", "why": "w"}]}, "variants": {"a": {}}}}}': "'zz' is not a variant",
            LAB_DEFAULTS + '"labs": {"01": {"technique": {"metrics": {"x": "a__b.sum"}, "rules": [{"variants": ["a"], '
            '"require": "x > 0", "why": "w"}]}, "variants": {"a": {}, "b": {}}}}}': "no rule for 'b'",
            LAB_DEFAULTS + '"labs": {"01": {"technique": {"metrics": {"x": "a__b.sum"}, "rules": [{"variants": ["*"], '
            '"require": "x > 0", "why": "w"}], "distinct": {"why": "w", "measure": ["x"], "may_repeat": ["c"]}}, '
            '"variants": {"a": {}, "b": {}}}}}': "may_repeat: 'c' is not a variant of the lab",
            LAB_DEFAULTS
            + '"labs": {"01": {"technique": {"rules": []}, "variants": {"a": {}}}}}': "expected at least one rule",
            LAB_DEFAULTS + '"labs": {"01": {"sanitizers": ["valgrind"], "variants": {"a": {}}}}}': "'valgrind' is not",
            LAB_DEFAULTS
            + '"labs": {"01": {"tests": "missing.txt", "variants": {"a": {}}}}}': "missing.txt cannot be read",
            LAB_DEFAULTS
            + '"labs": {"01": {"integrity": {"forbidden": {}}, "variants": {"a": {}}}}}': "labs.01.integrity: unknown key 'forbidden'",
            LAB_DEFAULTS
            + '"labs": {"01": {"integrity": {"denied_includes": "*/cub/*"}, "variants": {"a": {}}}}}': "labs.01.integrity.denied_includes = '*/cub/*'",
        }
        with tempfile.TemporaryDirectory() as folder:
            write_lists(Path(folder))
            for text, needle in cases.items():
                path = write_rubric(Path(folder), text)
                with self.assertRaises(RubricError, msg=text) as caught:
                    load_rubric(path)
                self.assertIn(needle, str(caught.exception))
        with self.assertRaisesRegex(RubricError, "cannot be read"):
            load_rubric(Path("/nonexistent/rubric.json"))

    def test_a_denied_header_is_caught_wherever_it_lies(self):
        # CUB is header-only and in the toolkit's folders: only the lab's denied globs catch it.
        rubric = load_rubric(RUBRIC)
        self.assertEqual(rubric.labs["12"].integrity.denied, ("*/cub/*", "*/thrust/*"))
        with tempfile.TemporaryDirectory() as folder:
            tree, toolkit = Path(folder) / "tree", Path(folder) / "cuda" / "include"
            (tree / "labs" / "12_x").mkdir(parents=True)
            depfile = Path(folder) / "kernels.d"
            depfile.write_text(
                f"kernels.o: {tree}/labs/12_x/kernels.cu {toolkit}/cccl/cub/block/block_reduce.cuh \\\n"
                f" {toolkit}/cccl/cuda/atomic\n"
            )
            found = integrity.check_dependencies(depfile, tree, "12_x", rubric.labs["12"].integrity, [toolkit])
            self.assertEqual([v.item for v in found], [f"{toolkit}/cccl/cub/block/block_reduce.cuh"])
            self.assertIn("teaches to do without", found[0].rule)
            self.assertEqual(
                integrity.check_dependencies(depfile, tree, "12_x", rubric.labs["11"].integrity, [toolkit]), []
            )


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
        self.assertEqual(
            set(outcomes),
            {
                "Grading.tiled.odd_17x33x65",
                "Grading.tiled.square_64",
                "Grading.tiled.k_one_70x50x1",
                "Counts/CopyTest.IsBitExact/n1_off0_0",
            },
        )
        self.assertEqual(outcomes["Grading.tiled.odd_17x33x65"].status, "failed")
        self.assertIn("element (16, 32)", outcomes["Grading.tiled.odd_17x33x65"].message)
        self.assertEqual(outcomes["Grading.tiled.odd_17x33x65"].case, "odd_17x33x65")
        self.assertEqual(outcomes["Grading.tiled.square_64"].status, "passed")
        self.assertEqual(outcomes["Grading.tiled.k_one_70x50x1"].status, "not_implemented")
        # The reason, not GoogleTest's bare location line, is what the report shows.
        self.assertEqual(outcomes["Grading.tiled.k_one_70x50x1"].message, "tiled: not implemented yet")
        self.assertEqual(outcomes["Counts/CopyTest.IsBitExact/n1_off0_0"].status, "skipped")

    def test_the_test_running_at_a_crash_is_named(self):
        console = (
            "[ RUN      ] Grading.a.one\n[       OK ] Grading.a.one (1 ms)\n"
            "[ RUN      ] Grading.a.two\nSegmentation fault\n"
        )
        self.assertEqual(gtest.test_running_at_exit(console), "Grading.a.two")
        self.assertIsNone(gtest.test_running_at_exit("[ RUN      ] X.y\n[  FAILED  ] X.y (2 ms)\n"))

    def test_listing(self):
        listing = (
            "Grading.tiled.\n  odd_17x33x65\n  square_64\nShapes/FmaTest.\n  MatchesCpuChains/t1_i1  # GetParam() = 1\n"
        )
        self.assertEqual(
            gtest.list_tests(listing),
            ["Grading.tiled.odd_17x33x65", "Grading.tiled.square_64", "Shapes/FmaTest.MatchesCpuChains/t1_i1"],
        )


def lab_rubric(folder: Path):
    write_lists(folder)
    path = write_rubric(
        folder,
        """
        {"defaults": {"integrity": {"includes": [], "symbols": {}}},
         "labs": {"01": {"memcheck_filter": "*", "build_time_limit_s": 10, "time_limit_s": 10, "tests": "t.txt",
                         "unscored_tests": "^Reference\\\\.",
                         "performance": [{"fraction": 0.9, "points": 4}, {"fraction": 0.6, "points": 2}],
                         "variants": {"fast": {"correctness": 6}, "slow": {"correctness": 3}}}}}
        """,
    )
    return load_rubric(path).labs["01"]


def run_with(statuses: dict[str, str], rates=None, fatal=None) -> LabRun:
    tests = [
        TestOutcome(f"Grading.{variant}.{case}", status, "why" if status == "failed" else "")
        for variant, status in statuses.items()
        for case in GEMM_CASES
    ]
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
        self.assertAlmostEqual(
            fast.correctness, round(fast.correctness_max * (len(GEMM_CASES) - 2) / (len(GEMM_CASES) - 1), 2)
        )
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

    def test_an_optional_challenge_gives_extra_points_beyond_the_labs_maximum(self):
        write_rubric(
            Path(self.folder.name),
            """
            {"defaults": {"integrity": {"includes": [], "symbols": {}}},
             "labs": {"01": {"memcheck_filter": "*", "build_time_limit_s": 10, "time_limit_s": 10, "tests": "t.txt",
                             "unscored_tests": "^Reference\\\\.",
                             "performance": [{"fraction": 0.9, "points": 4}],
                             "variants": {"fast": {"correctness": 6}, "slow": {"correctness": 3, "challenge": true}}}}}
            """,
        )
        rubric = load_rubric(Path(self.folder.name) / "rubric.json").labs["01"]
        self.assertEqual((rubric.max_points, rubric.challenge_points), (6 + 4, 3 + 4))
        core_only = score_lab(rubric, run_with({"fast": "passed", "slow": "not_implemented"}, {"fast": Rate(100, 100)}))
        self.assertEqual((core_only.points, core_only.max_points, core_only.challenge_points), (10, 10, 0))
        both = score_lab(
            rubric, run_with({"fast": "passed", "slow": "passed"}, {"fast": Rate(100, 100), "slow": Rate(100, 100)})
        )
        self.assertEqual((both.points, both.max_points, both.challenge_max_points), (17, 10, 7))
        header = reports.Header("s", "d", "GPU", "abc", "1", "rubric.json", "sandboxed")
        gradescope = json.loads(lms.gradescope(header, [both]))
        extra = [t for t in gradescope["tests"] if "optional challenge, extra credit" in t["name"]]
        self.assertEqual(([t["max_score"] for t in extra], sum(t["score"] for t in extra)), ([0.0, 0.0], 7))
        self.assertEqual(gradescope["score"], 17)
        self.assertEqual(lms.classroom_result(header, [core_only])["status"], "pass")  # the challenge is optional
        self.assertEqual(lms.classroom_result(header, [core_only])["max_score"], 10)
        self.assertIn("slow (*challenge*)", reports.markdown(header, [both]))
        self.assertIn("earned 7 of 7 extra points", reports.markdown(header, [both]))
        # The summary reads a complete core as complete, the challenge apart.
        n = len(core_only.variants[0].tests)
        self.assertIn(
            f"| {n} / {n} (challenge 0 / {n}) | every core variant passes; optional challenge: not attempted |",
            reports.markdown(header, [core_only]),
        )
        self.assertIn(
            f"| {n} / {n} (challenge {n} / {n}) | every core variant passes; optional challenge: every variant passes |",
            reports.markdown(header, [both]),
        )
        data = json.loads(reports.as_json(header, [core_only]))
        self.assertEqual(data["labs"][0]["challenge_tests"], {"passed": 0, "total": n})
        self.assertEqual((data["labs"][0]["tests_passed"], data["labs"][0]["tests_total"]), (n, 2 * n))

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

    def test_step_times_add_up_and_survive_a_failing_step(self):
        run = LabRun("01", "01_naive_gemm")
        with mock.patch("cudalabs.grading.lab_run.time.monotonic", side_effect=[10.0, 12.5, 20.0, 21.0, 30.0, 34.0]):
            with run.timed("tests"):
                pass
            with run.timed("memcheck"):
                pass
            with self.assertRaises(RuntimeError), run.timed("tests"):
                raise RuntimeError("the referee broke")
        self.assertEqual(run.step_seconds, {"tests": 6.5, "memcheck": 1.0})
        self.assertEqual(list(run.step_seconds), ["tests", "memcheck"])

    def test_a_class_pays_the_reference_build_once(self):
        # the reference solution's build (cached per grading build) is a step of its own, not a student's time
        from cudalabs.grading.lab_run import REFERENCE_BUILD

        run = LabRun("07", "07_wide_loads")
        run.seconds = 300.0
        run.step_seconds = {"build": 130.0, REFERENCE_BUILD: 134.0, "benchmark": 20.0}
        self.assertEqual(run.per_student_seconds, 166.0)
        run.step_seconds.pop(REFERENCE_BUILD)  # cached: the class's later students
        self.assertEqual(run.per_student_seconds, 300.0)

    def test_fatal_scores_zero(self):
        score = score_lab(
            self.rubric, run_with({"fast": "passed", "slow": "passed"}, {"fast": Rate(100, 100)}, fatal=COMPILE_ERROR)
        )
        self.assertEqual(score.points, 0)
        self.assertEqual({v.state for v in score.variants}, {"lab scored 0"})

    def test_tests_the_rubric_does_not_place_are_reported(self):
        run = run_with({"fast": "passed", "slow": "passed"})
        run.tests.append(TestOutcome("Mystery.test", "failed", "boom"))
        self.assertEqual([t.name for t in score_lab(self.rubric, run).unmatched], ["Mystery.test"])


NCU_CSV = """==PROF== Connected to process 42 (/scratch/runner)
"ID","Process ID","Process Name","Kernel Name","launch__block_size","smsp__sass_thread_inst_executed_op_ffma_pred_on.sum","smsp__sass_inst_executed_op_shared_ld.sum"
"","","","","","inst","inst"
"0","42","runner","void k1(GemmArgs)","(256, 1, 1)","60,000,000","300,000"
"1","42","runner","helper_kernel()","128","7,108,864","50,000"
==PROF== Disconnected from process 42
"""
METRICS = {
    "block": "launch__block_size",
    "ffma": "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "lds": "smsp__sass_inst_executed_op_shared_ld.sum",
}


class TechniqueTest(unittest.TestCase):
    RULES = TechniqueRules(
        METRICS,
        (
            technique.Rule(("*",), "ffma >= 0.95 * mnk", "FFMA on the GPU"),
            technique.Rule(("rt_2d",), "ffma >= 8 * 32 * lds", "a register tile"),
        ),
        (),
        ("lds",),
        "tiles differ",
        0.05,
        ("best",),
    )
    FACTS = {"mnk": 67108864.0}

    def test_every_kernel_of_the_call_counts_whatever_its_name(self):
        kernels = technique.read_kernels(NCU_CSV)
        self.assertEqual(len(kernels), 2)
        values = technique.aggregate(kernels, METRICS)
        self.assertEqual(values["ffma"], 67108864.0)
        self.assertEqual((values["max_block"], values["min_block"], values["kernels"]), (256.0, 128.0, 2.0))

    def test_rules_hold_or_name_what_was_measured(self):
        held = technique.judge("rt_1d", self.RULES, True, "", NCU_CSV, self.FACTS)
        self.assertTrue(held.passed, held.failures)
        broken = technique.judge("rt_2d", self.RULES, True, "", NCU_CSV, self.FACTS)
        self.assertFalse(broken.passed)
        self.assertIn("a register tile", broken.failures[0])
        self.assertIn("lds 3.5e+05", broken.failures[0])

    def test_one_run_of_several_probes_files_each_kernel_under_its_range(self):
        nvtx = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"
        tag = "5eed1e55c0ffee00"

        def row(number, name, ranges, ffma):
            return f'"{number}","42","runner","{name}","{ranges}","(256, 1, 1)","{ffma}","1000"'

        report = "\n".join(
            [
                "==PROF== Connected to process 42 (/scratch/runner)",
                f'"ID","Process ID","Process Name","Kernel Name","{nvtx}","launch__block_size",'
                '"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum","smsp__sass_inst_executed_op_shared_ld.sum"',
                '"","","","","","","inst","inst"',
                row(0, "k1", f"<default domain>:{tag}[rt_1d]:none:none:none:0:ascii:{tag}[rt_1d]", "67,108,864"),
                row(1, "k2a", f"<default domain>:{tag}[rt_2d]", "33,554,432"),
                row(2, "k2b", f"<default domain>:{tag}[rt_2d]", "33,554,432"),
                # a prefix of another variant's name is its own variant
                row(3, "k3", f"<default domain>:{tag}[rt]", "1"),
                # a kernel's name cannot claim a range: only the NVTX column is read
                row(4, f"{tag}[rt_1d]", "", "5"),
                # nested ranges (a range the student's code opened inside the call) name no one
                row(5, "k5", f"<default domain>:{tag}[rt_1d]:{tag}[rt_2d]", "5"),
                # another tag (or none): not this grading's
                row(6, "k6", "<default domain>:0000000000000000[rt_1d]", "5"),
                # the unmeasured call before each probe (a per-layer choice timed once): no one's
                row(7, "k7", f"<default domain>:{technique.warm_label(tag)}", "999,999,999"),
                # a kernel in a warm-up range and a measured one at once names no one either
                row(8, "k8", f"<default domain>:{tag}-warm:{tag}[rt_1d]", "5"),
                # a warm-up range of another tag is not this grading's
                row(9, "k9", "<default domain>:0000000000000000-warm", "5"),
                # a range that only starts like the warm-up's is not the warm-up's
                row(10, "k10", f"<default domain>:{tag}-warmer", "5"),
            ]
        )
        kernels = technique.read_kernels(report)
        by_variant, stray = technique.attribute(kernels, tag)
        self.assertEqual(
            {v: [k["Kernel Name"] for k in ks] for v, ks in by_variant.items()},
            {"rt_1d": ["k1"], "rt_2d": ["k2a", "k2b"], "rt": ["k3"]},
        )
        self.assertEqual(stray, 6)
        self.assertEqual(technique.range_label(tag, "rt_2d"), f"{tag}[rt_2d]")
        self.assertEqual(technique.warm_label(tag), f"{tag}-warm")
        two = technique.judge_kernels("rt_2d", self.RULES, True, "", by_variant["rt_2d"], self.FACTS)
        self.assertEqual(two.measured["ffma"], 67108864.0)
        self.assertEqual(two.measured["kernels"], 2.0)
        # A report without NVTX columns cannot be attributed: the grader probes one variant a run.
        self.assertIsNone(technique.attribute(technique.read_kernels(NCU_CSV), tag))
        self.assertEqual(technique.attribute([], tag), ({}, 0))

    def test_rules_fail_closed(self):
        nothing = technique.judge("rt_1d", self.RULES, True, "", "==PROF== No kernels were profiled.\n", self.FACTS)
        self.assertIn("no kernel ran on the GPU", nothing.failures[0])
        failed_probe = technique.judge("rt_1d", self.RULES, False, "the runner crashed", NCU_CSV, self.FACTS)
        self.assertIn("the probe did not run: the runner crashed", failed_probe.failures[0])
        unmeasured = TechniqueRules(
            {"gmma": "sm__inst_executed_pipe_tensor_op_gmma.sum"}, (technique.Rule(("*",), "gmma > 0", "HGMMA"),), ()
        )
        missing = technique.judge("wgmma", unmeasured, True, "", NCU_CSV, self.FACTS)
        self.assertIn("'gmma' was not measured", missing.failures[0])
        self.assertTrue(technique.no_permission("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission"))

    def test_the_evaluator_takes_arithmetic_and_comparisons_only(self):
        names = {"a": 2.0, "b": 0.0}
        self.assertTrue(technique.evaluate("a * 3 >= 6 and not b > 1", names))
        self.assertTrue(technique.evaluate("a / b > 1e9", names))  # a count over zero: unbounded
        for text in ("__import__('os')", "a.real", "[a]", "a if b else a", "open('x')"):
            with self.assertRaises(technique.RuleError, msg=text):
                technique.evaluate(text, names)

    def test_variants_that_measure_the_same_repeat_the_first(self):
        measured = {"RR": {"lds": 1000.0}, "RC": {"lds": 500.0}, "CR": {"lds": 1020.0}, "best": {"lds": 500.0}}
        self.assertEqual(technique.repeated(measured, self.RULES), {"CR": "RR"})

    def score_with(self, repeated: dict[str, str]):
        """Two passing variants, "slow" without its register tile, `repeated` as the distinct rule found."""
        with tempfile.TemporaryDirectory() as folder:
            rubric = lab_rubric(Path(folder))
        run = run_with({"fast": "passed", "slow": "passed"}, {"fast": Rate(100, 100), "slow": Rate(100, 100)})
        run.technique["slow"] = VariantTechnique("slow", failures=["a register tile (rule: ...)"])
        run.repeated.update(repeated)
        return score_lab(rubric, run).variants

    def test_a_variant_without_its_technique_scores_nothing(self):
        fast, slow = self.score_with({"fast": "not distinct from x"})
        self.assertEqual((slow.state, slow.points), ("technique not shown", 0))
        self.assertIn("a register tile", slow.note)
        self.assertEqual((fast.state, fast.points), ("not distinct", 0))

    def test_a_variant_without_its_technique_is_named_by_its_rule_before_what_it_repeats(self):
        _, slow = self.score_with({"slow": "not distinct from fast"})
        self.assertEqual((slow.state, slow.points), ("technique not shown", 0))
        self.assertIn("a register tile", slow.note)
        self.assertIn("not distinct from fast", slow.note)

    def test_the_warm_up_ranges_are_left_unprofiled(self):
        from cudalabs.grading.referee import ncu_tool

        with mock.patch("shutil.which", return_value="/opt/ncu"):
            command = ncu_tool(["m"], Path("log"), nvtx=True, leave_out=(technique.warm_label("ab12"),))
            plain = ncu_tool(["m"], Path("log"))
        # a push/pop range is named with a trailing slash; the measured ranges stay profiled
        self.assertEqual(command[command.index("--nvtx-exclude") + 1], "ab12-warm/")
        self.assertIn("--nvtx", command)
        self.assertNotIn("--nvtx-exclude", plain)
        self.assertNotIn("--nvtx", plain)


class SplitCompileTest(unittest.TestCase):
    def test_nvcc_optimizes_on_several_threads_and_no_other_compiler_is_told(self):
        from cudalabs.grading import build

        def command(compiler: str) -> build.CompileCommand:
            argv = [compiler, "-c", "kernels.cu", "-o", "kernels.o"]
            return build.CompileCommand(argv, "kernels.cu", 4, Path("/repo"), Path("/view"))

        flags = build.split_compile(command("/usr/local/cuda/bin/nvcc"))
        self.assertEqual(len(flags), 1)
        threads = int(flags[0].removeprefix("--split-compile="))
        self.assertTrue(1 <= threads <= 16, flags)
        self.assertEqual(build.split_compile(command("/usr/bin/g++")), [])


class TestListTest(unittest.TestCase):
    """The referee's results against the rubric's list: nothing missing, no skip the grader did not decide."""

    def classify(self, outcomes, unavailable=None):
        with tempfile.TemporaryDirectory() as folder:
            write_lists(Path(folder))
            (Path(folder) / "t.txt").write_text("Grading.fast.a\nGrading.fast.b\nGrading.slow.a\nGrading.slow.b\n")
            path = write_rubric(
                Path(folder),
                LAB_DEFAULTS + '"labs": {"01": {"capability_skips": ["^needs \\\\d+ GPUs"], '
                '"variants": {"fast": {}, "slow": {}}}}}',
            )
            rubric = load_rubric(path).labs["01"]
        run = LabRun("01", "01_x")
        return lab_grader._classify(outcomes, rubric, unavailable or {}, run), run

    def test_a_missing_test_fails_and_an_extra_one_is_named(self):
        tests, run = self.classify(
            [
                TestOutcome("Grading.fast.a", "passed"),
                TestOutcome("Grading.slow.a", "passed"),
                TestOutcome("Grading.slow.b", "passed"),
                TestOutcome("Grading.extra.z", "passed"),
            ]
        )
        self.assertEqual({t.name: t.status for t in tests}["Grading.fast.b"], "failed")
        self.assertIn("did not run", {t.name: t.message for t in tests}["Grading.fast.b"])
        self.assertTrue(any("Grading.extra.z" in p and "does not list" in p for p in run.test_list_problems))

    def test_only_the_graders_reasons_excuse_a_skip(self):
        tests, run = self.classify(
            [
                TestOutcome("Grading.fast.a", "skipped", "needs compute capability 9.0 (this GPU has 8.0)"),
                TestOutcome("Grading.fast.b", "skipped", "needs 2 GPUs, found 1"),
                TestOutcome("Grading.slow.a", "skipped", "the variant says it cannot run"),
                TestOutcome("Grading.slow.b", "not_implemented", "slow: not implemented yet"),
            ],
            {"fast": "needs compute capability 9.0 (this GPU has 8.0)"},
        )
        status = {t.name: t.status for t in tests}
        self.assertEqual(
            status,
            {
                "Grading.fast.a": "skipped",
                "Grading.fast.b": "skipped",
                "Grading.slow.a": "failed",
                "Grading.slow.b": "not_implemented",
            },
        )

    def test_the_graders_availability_comes_from_the_rubric_and_the_gpu(self):
        rubric = load_rubric(RUBRIC).labs["11"]
        ampere = lab_grader.unavailable_reasons(rubric, lab_grader.GpuFacts("A100", 8.0), {"80", "90a"})
        self.assertIn("needs compute capability 9", ampere["wgmma"])
        self.assertNotIn("mma_swizzled", ampere)
        hopper_without_90a = lab_grader.unavailable_reasons(rubric, lab_grader.GpuFacts("H100", 9.0), {"90"})
        self.assertIn("needs a build for sm_90a", hopper_without_90a["tma_wgmma"])
        self.assertEqual(lab_grader.unavailable_reasons(rubric, lab_grader.GpuFacts("H100", 9.0), {"90a"}), {})
        self.assertEqual(
            lab_grader._built_architectures(
                [
                    "nvcc",
                    "--generate-code=arch=compute_90a,code=[sm_90a]",
                    "--generate-code=arch=compute_80,code=[compute_80,sm_80]",
                ]
            ),
            {"90a", "80"},
        )


class ReportsTest(unittest.TestCase):
    def test_three_reports_agree(self):
        with tempfile.TemporaryDirectory() as folder:
            rubric = lab_rubric(Path(folder))
            run = run_with({"fast": "passed", "slow": "passed"}, {"fast": Rate(50.0, 100.0), "slow": Rate(99.0, 100.0)})
            run.tests[1].status = "failed"
            run.tests[1].message = (
                "tests/support/gemm_grading.cpp:62\nExpected equality of these values:\n  report.outcome\n"
                "    Which is: 2\n  CheckOutcome::kPassed\n    Which is: 0\n"
                "fast on 64x64x64: element (1, 2) = 0 differs"
            )
            broken = run_with({"fast": "passed", "slow": "passed"}, fatal=COMPILE_ERROR)
            broken.number, broken.folder, broken.details = (
                "02",
                "02_smem_tiling",
                ["kernels.cu(3): error: expected ';'"],
            )
            run.built_on = ["09", "07"]
            run.seconds = 97.6
            run.step_seconds = {"build": 21.04, "tests": 64.0, "memcheck": 9.5}
            for i, test in enumerate(run.tests):  # GoogleTest's times: the slowest named, longest first
                test.seconds = 0.5 * i
            scores = [score_lab(rubric, run), score_lab(rubric, broken)]
            header = reports.Header(
                "students/alice", "2026-11-22 10:00 UTC", "NVIDIA H100", "abc123", "42", "rubric.json", "sandboxed: ..."
            )
            out = Path(folder) / "out"
            out.mkdir()
            (out / "grade-report.md").symlink_to(Path(folder) / "victim")  # a planted link is replaced, never followed
            paths = reports.write_reports(out, header, scores)
            self.assertFalse((Path(folder) / "victim").exists())
            markdown, data = paths[0].read_text(), json.loads(paths[1].read_text())
            junit = ElementTree.parse(paths[2]).getroot()
            gradescope = json.loads((out / "results.json").read_text())
            classroom = json.loads((out / "classroom-result.json").read_text())
            encoded = (out / "classroom-result.b64").read_text().strip()
        self.assertIn(
            f"**Total: {scores[0].points:g} / {scores[0].max_points + scores[1].max_points:g} points**", markdown
        )
        self.assertIn("- `fast` square_64: fast on 64x64x64: element (1, 2) = 0 differs", markdown)
        self.assertIn(
            "CUDALABS_SEED=42 ctest --test-dir build -R '^lab01\\.student\\.Grading\\.fast\\.square_64$' "
            "--output-on-failure",
            markdown,
        )
        self.assertIn("**Scored 0: kernels.cu does not compile", markdown)
        self.assertIn("kernels.cu(3): error: expected ';'", markdown)
        self.assertRegex(
            markdown, r"\| slow \| passed \| 4 / 4 \| 3 / 3 \| 99 GFLOP/s \| 100 GFLOP/s \| 99% \| 4 / 4 \|"
        )
        self.assertEqual(data["points"], scores[0].points)
        self.assertEqual(data["labs"][0]["variants"][0]["failing"][0]["case"], "square_64")
        self.assertEqual(data["labs"][1]["fatal"], COMPILE_ERROR)
        self.assertIn(
            "- graded alone: it ran on the reference kernels of lab 09, lab 07, not the submission's", markdown
        )
        self.assertIn("- time: build 21 s, tests 64 s, memcheck 10 s (98 s in all)", markdown)
        self.assertEqual(data["labs"][0]["step_seconds"], {"build": 21.0, "tests": 64.0, "memcheck": 9.5})
        self.assertEqual(data["labs"][0]["per_student_seconds"], data["labs"][0]["seconds"])  # nothing once a class
        self.assertEqual(data["labs"][1]["step_seconds"], {})
        slowest = data["labs"][0]["slowest_tests"]
        self.assertEqual(
            slowest, [{"test": t.name, "seconds": 0.5 * i} for i, t in reversed(list(enumerate(run.tests)))][:5]
        )
        self.assertEqual(data["labs"][1]["slowest_tests"], [])  # no test ran, none is named
        self.assertEqual(data["labs"][0]["built_on_reference_labs"], ["09", "07"])
        self.assertEqual(data["labs"][1]["built_on_reference_labs"], [])
        suites = junit.findall("testsuite")
        self.assertEqual([s.get("name") for s in suites], ["lab01", "lab02"])
        self.assertEqual(suites[0].get("failures"), "1")
        self.assertEqual(suites[1].get("errors"), "1")
        self.assertEqual(int(suites[0].get("tests")), 2 * len(GEMM_CASES))
        self.check_gradescope(gradescope, scores)
        self.check_classroom(classroom, encoded, scores)

    def check_gradescope(self, result: dict, scores) -> None:
        """Gradescope's autograder results.json: a score, tests with score/max_score/name and a known
        status and visibility, a leaderboard of named values; the tests' scores add up to the total."""
        self.assertLessEqual(
            set(result),
            {
                "score",
                "execution_time",
                "output",
                "output_format",
                "visibility",
                "stdout_visibility",
                "tests",
                "leaderboard",
                "extra_data",
            },
        )
        self.assertIsInstance(result["execution_time"], int)
        self.assertIn(result["visibility"], {"hidden", "after_due_date", "after_published", "visible"})
        for test in result["tests"]:
            self.assertLessEqual({"score", "max_score", "name"}, set(test))
            self.assertIn(test["status"], {"passed", "failed"})
            self.assertIn(test["visibility"], {"hidden", "after_due_date", "after_published", "visible"})
            if "optional challenge" not in test["name"]:  # a challenge's points are extra credit
                self.assertLessEqual(test["score"], test["max_score"])
        self.assertAlmostEqual(sum(t["score"] for t in result["tests"]), result["score"], 2)
        self.assertAlmostEqual(result["score"], sum(s.points for s in scores), 2)
        self.assertAlmostEqual(sum(t["max_score"] for t in result["tests"]), sum(s.max_points for s in scores), 2)
        for entry in result["leaderboard"]:
            self.assertEqual(set(entry) - {"order"}, {"name", "value"})
            self.assertIn(entry.get("order", "desc"), {"asc", "desc"})
        self.assertIn("Lab 02: 0 points, kernels.cu does not compile", result["output"])

    def check_classroom(self, result: dict, encoded: str, scores) -> None:
        """GitHub Classroom's runner result, as autograding-grading-reporter reads it: base64 of a JSON
        with status pass/fail/error, max_score and tests whose scores it adds up."""
        import base64

        self.assertEqual(json.loads(base64.b64decode(encoded)), result)
        self.assertEqual(result["version"], 1)
        self.assertIn(result["status"], {"pass", "fail", "error"})
        self.assertEqual(result["status"], "fail")  # lab 02 does not compile
        for test in result["tests"]:
            self.assertLessEqual({"name", "status", "message", "score"}, set(test))
            self.assertIn(test["status"], {"pass", "fail", "error"})
        self.assertAlmostEqual(sum(t["score"] for t in result["tests"]), sum(s.points for s in scores), 2)
        self.assertAlmostEqual(result["max_score"], sum(s.max_points for s in scores), 2)


class ProcessTest(unittest.TestCase):
    def test_time_limit_kills_the_process_group(self):
        with tempfile.TemporaryDirectory() as folder:
            done = run_logged(["bash", "-c", "sleep 30 & sleep 30; echo nev''er"], Path(folder) / "log", 0.5)
            self.assertTrue(done.timed_out)
            self.assertLess(done.seconds, 10)
            self.assertNotIn("never", done.output())

    def test_signal_is_named(self):
        with tempfile.TemporaryDirectory() as folder:
            done = run_logged(
                ["python3", "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"], Path(folder) / "log", 30
            )
        self.assertEqual(done.signal_name, "SIGSEGV")

    def test_exit_code_and_output(self):
        with tempfile.TemporaryDirectory() as folder:
            done = run_logged(["bash", "-c", "echo hello; exit 3"], Path(folder) / "log", 30)
            self.assertEqual(done.returncode, 3)
            self.assertIsNone(done.signal_name)
            self.assertIn("hello", done.output())

    # A grader that runs a command which starts its own command (grade-class runs scripts/grade, which
    # runs the referee): each command has a process group of its own, so ending the outer one must
    # end the inner one too, or it keeps running (on a GPU) after its grader is gone.
    NESTED_GRADER = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from cudalabs.grading.process import end_children_on_signals, run_logged
        end_children_on_signals()
        folder = Path(sys.argv[1])
        run_logged(["bash", "-c", f"echo $$ > {folder}/inner.pid; exec sleep 120"], folder / "inner.log", 300)
        """
    )

    # The stop arrives while the command is starting: it runs (its pid is written), but run_logged has
    # not registered it yet. The stop must still end it.
    NESTED_GRADER_STOPPED_WHILE_STARTING = textwrap.dedent(
        """
        import os, signal, subprocess, sys, time
        from pathlib import Path
        from cudalabs.grading import process
        process.end_children_on_signals()
        folder = Path(sys.argv[1])
        pid_file = folder / "inner.pid"

        class StoppedWhileStarting(subprocess.Popen):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                while not (pid_file.is_file() and pid_file.read_text().strip()):
                    time.sleep(0.01)
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.5)  # the handler runs in here, before run_logged registers the command

        process.subprocess.Popen = StoppedWhileStarting
        process.run_logged(["bash", "-c", f"echo $$ > {pid_file}; exec sleep 120"], folder / "inner.log", 300)
        """
    )

    @staticmethod
    def alive(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, IndexError):
            return False
        return state not in ("Z", "X")  # a zombie has ended; nobody may have reaped it yet

    def wait_for_pid(self, path: Path) -> int:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if path.is_file() and path.read_text().strip():
                return int(path.read_text())
            time.sleep(0.05)
        self.fail(f"{path} was never written")

    def nested_grader(self, folder: Path, text: str = NESTED_GRADER) -> list[str]:
        script = folder / "grader.py"
        script.write_text(text)
        return [sys.executable, str(script), str(folder)]

    def test_a_stop_while_a_command_starts_ends_that_command_too(self):
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
            grader = subprocess.Popen(
                self.nested_grader(folder, self.NESTED_GRADER_STOPPED_WHILE_STARTING), env=env, start_new_session=True
            )
            self.assertEqual(grader.wait(timeout=60), 128 + signal.SIGTERM)
            inner = self.wait_for_pid(folder / "inner.pid")
            self.assertFalse(self.alive(inner), "a command started as the stop arrived is still running")

    def test_a_stopped_grader_ends_the_commands_it_runs(self):
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
            grader = subprocess.Popen(self.nested_grader(folder), env=env, start_new_session=True)
            inner = self.wait_for_pid(folder / "inner.pid")
            self.assertTrue(self.alive(inner))
            grader.send_signal(signal.SIGTERM)
            self.assertEqual(grader.wait(timeout=30), 128 + signal.SIGTERM)
            self.assertFalse(self.alive(inner), "the stopped grader's command is still running")

    def test_a_time_limit_ends_a_nested_graders_commands(self):
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
            done = run_logged(self.nested_grader(folder), folder / "log", 3, env)
            self.assertTrue(done.timed_out)
            inner = self.wait_for_pid(folder / "inner.pid")
            self.assertFalse(self.alive(inner), "the timed-out grader's command is still running")

    def test_what_a_command_leaves_running_is_ended(self):
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            done = run_logged(["bash", "-c", f"sleep 120 & echo $! > {folder}/left.pid"], folder / "log", 30)
            self.assertEqual(done.returncode, 0)
            self.assertLess(done.seconds, 10)
            left = self.wait_for_pid(folder / "left.pid")
            deadline = time.monotonic() + 5
            while self.alive(left) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertFalse(self.alive(left), "a process the command left in its group still runs")


class SubmissionTest(unittest.TestCase):
    def test_select_labs(self):
        labs = submission.suite_labs(REPO)
        self.assertEqual([lab.number for lab in submission.select_labs(labs, "1, 02")], ["01", "02"])
        self.assertEqual(submission.select_labs(labs, ""), labs)
        with self.assertRaisesRegex(ValueError, "LABS: '42' is not a lab"):
            submission.select_labs(labs, "42")

    def test_only_the_students_files_are_taken(self):
        labs = submission.suite_labs(REPO)
        with tempfile.TemporaryDirectory() as folder:
            student = Path(folder)
            (student / labs[1].folder).mkdir(parents=True)
            (student / labs[1].folder / "kernels.cu").write_text("// alice's kernels\n")
            (student / labs[1].folder / "lab.h").write_text("// must be ignored\n")
            self.assertEqual(submission.submitted_files(student, labs[1]), {"kernels.cu": b"// alice's kernels\n"})
            self.assertIsNone(submission.submitted_files(student, labs[2]))

    def test_a_link_or_a_huge_file_is_not_read(self):
        lab = submission.suite_labs(REPO)[1]
        with tempfile.TemporaryDirectory() as folder:
            student = Path(folder)
            (student / lab.folder).mkdir(parents=True)
            (student / lab.folder / "kernels.cu").symlink_to(REPO / "solutions" / lab.folder / "kernels.cu")
            self.assertIsNone(submission.submitted_files(student, lab))
            (student / lab.folder / "kernels.cu").unlink()
            (student / lab.folder / "kernels.cu").write_bytes(b"x" * (submission.MAX_FILE_BYTES + 1))
            self.assertIsNone(submission.submitted_files(student, lab))

    def test_lab10s_mpi_parts_are_the_students_too(self):
        lab10 = next(lab for lab in submission.suite_labs(REPO) if lab.number == "10")
        self.assertEqual(
            submission.student_files(lab10), ["kernels.cu", "checkpoint.cpp", "node_output.cpp", "scatter.cpp"]
        )
        with tempfile.TemporaryDirectory() as folder:
            student = Path(folder)
            (student / lab10.folder).mkdir(parents=True)
            (student / lab10.folder / "checkpoint.cpp").write_text("// carol's checkpoint\n")
            files = submission.submitted_files(student, lab10)
            self.assertEqual(files["checkpoint.cpp"], b"// carol's checkpoint\n")
            # A part not handed in is the skeleton's: it scores as not implemented.
            self.assertEqual(files["kernels.cu"], (REPO / "labs" / lab10.folder / "kernels.cu").read_bytes())

    def test_earlier_labs_of_the_grading_build(self):
        with tempfile.TemporaryDirectory() as folder:
            self.assertEqual(submission.earlier_labs(Path(folder)), {})
            (Path(folder) / "earlier_labs.json").write_text(
                '{"earlier_labs": "reference", "builds_on": {"09": ["07"], "10": ["09", "07"]}}'
            )
            self.assertEqual(submission.earlier_labs(Path(folder)), {"09": ["07"], "10": ["09", "07"]})

    def test_the_reproduce_command_names_the_ctest(self):
        self.assertEqual(reports._ctest_pattern("Grading.fast.square_64"), r"Grading\.fast\.square_64")
        pattern = re.compile("^lab10\\.student\\." + reports._ctest_pattern("Scatter.EveryRankGetsItsShare") + "$")
        self.assertTrue(pattern.match("lab10.student.Scatter"))
        self.assertTrue(pattern.match("lab10.student.Scatter.EveryRankGetsItsShare"))
        self.assertFalse(pattern.match("lab10.student.ScatterX"))


if __name__ == "__main__":
    unittest.main()
