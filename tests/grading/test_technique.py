"""The rubric's technique rules against recorded counters: every honest kernel the suite recorded meets
its rules, and the same counters with instructions that do no work added (the issue's cheats and
others) break one. The counters come from the records under docs/data/ (Nsight Compute's raw page of
the solutions at 4096^3, and the grader's own probes of the student versions); a padded cheat is an
honest record plus what its extra instructions add, so the rule that catches it is the rubric's own.

Run: PYTHONPATH=<repo>/python python3 -m unittest test_technique (from tests/grading)."""
from __future__ import annotations

import csv
import json
import math
import random
import tempfile
import unittest
from pathlib import Path

from unittest import mock

from cudalabs.grading import lab_grader, technique
from cudalabs.grading.lab_run import LabRun
from cudalabs.grading.rubric import RubricError, load_rubric
from cudalabs import paths
from cudalabs.labs import declared_labs
from cudalabs.paths import REPO

RUBRIC = load_rubric(paths.RUBRIC, with_test_lists=False)
PROFILES = REPO / "docs" / "data" / "profiles"
PROBES = REPO / "docs" / "data" / "grading" / "confined_nvidia-h100-80gb-hbm3"
SECTOR_BYTES = 32.0  # l1tex's t-stage bytes are its sectors' (the lab 07 probe record measured both)


def _number(cell: str) -> float | None:
    try:
        return float(cell.replace(",", ""))
    except ValueError:
        return None


def gemm_facts(m: float, n: float, k: float, input_bytes: float = 4.0) -> dict[str, float]:
    return {
        "m": m,
        "n": n,
        "k": k,
        "mnk": m * n * k,
        "flops": 2 * m * n * k,
        "a_bytes": m * k * input_bytes,
        "b_bytes": k * n * input_bytes,
        "c_bytes": m * n * 4,
    }


def profiled(lab: str) -> dict[str, dict[str, float]]:
    """Variant -> the rubric's aliases measured in docs/data/profiles/labNN_<H100>.csv (ldg_bytes from
    the sectors), with max_/min_ forms; aliases the profile did not collect are absent."""
    metrics = RUBRIC.labs[lab].technique.metrics
    with (PROFILES / f"lab{lab}_nvidia-h100-80gb-hbm3.csv").open() as stream:
        rows = list(csv.DictReader(stream))
    found = {}
    for row in rows[1:]:  # the first row holds the units
        measured = {}
        for alias, metric in {**metrics, "threads": "launch__thread_count"}.items():
            value = _number(row.get(metric, ""))
            if value is not None:
                measured[alias] = measured[f"max_{alias}"] = measured[f"min_{alias}"] = value
        if "ldg_sectors" in measured:
            measured["ldg_bytes"] = SECTOR_BYTES * measured["ldg_sectors"]
        found[row["variant"]] = measured
    return found


def probed(lab: str) -> dict[str, dict[str, float]]:
    """Variant -> what the grader measured when it probed a student version (grade-report.json)."""
    report = json.loads((PROBES / f"version_{lab}" / "grade-report.json").read_text())
    labs = report["labs"] if isinstance(report["labs"], list) else list(report["labs"].values())
    return {name: result["measured"] for name, result in labs[0]["technique"].items()}


def verdict(lab: str, variant: str, measured: dict[str, float], facts: dict[str, float]):
    """(rules that held, rules that broke, rules that named something the record lacks)."""
    held, broke, unmeasured = [], [], []
    for rule in RUBRIC.labs[lab].technique.rules:
        if not rule.applies_to(variant):
            continue
        try:
            (held if technique.evaluate(rule.require, {**facts, **measured}) else broke).append(rule.require)
        except technique.RuleError:
            unmeasured.append(rule.require)
    return held, broke, unmeasured


def padded(measured: dict[str, float], **extra: float) -> dict[str, float]:
    """The counters with `extra` added to each named alias (and its max_/min_ forms)."""
    out = dict(measured)
    for alias, amount in extra.items():
        for name in (alias, f"max_{alias}", f"min_{alias}"):
            out[name] = out.get(name, 0.0) + amount
    return out


class HonestRecordsHoldTest(unittest.TestCase):
    """Every recorded honest kernel meets every rule its record can evaluate, and the rules that
    carry each lab's lesson are among those evaluated."""

    SQUARE = gemm_facts(4096, 4096, 4096)

    def check(self, lab, variant, measured, facts, must_evaluate=1):
        held, broke, _ = verdict(lab, variant, measured, facts)
        self.assertEqual(broke, [], f"lab {lab} {variant}: an honest record breaks a rule")
        self.assertGreaterEqual(len(held), must_evaluate, f"lab {lab} {variant}: too few rules evaluated")

    def test_the_fp32_gemm_solutions_at_4096(self):
        for lab, lessons in {"01": 1, "02": 1, "03": 1, "04": 2, "05": 2, "06": 1, "07": 2}.items():
            records = profiled(lab)
            self.assertTrue(records, lab)
            for variant, measured in records.items():
                if variant == "cublas":
                    continue
                with self.subTest(lab=lab, variant=variant):
                    self.check(lab, variant, measured, self.SQUARE, 1 if variant == "narrow_columns" else lessons)

    def test_the_convolution_solutions_on_case_one(self):
        # case I: 1024 images of 31 x 31 x 5, 2 filters of 3 x 3: outputs 1024 x 2 x 29 x 29, 45 taps each
        for name, measured in profiled("08").items():
            variant, case = name.split("/")
            if case != "case1":
                continue
            facts = {"macs": 1024 * 2 * 29 * 29 * 45.0, "taps": 45.0, "factor": float(variant[len("coarsen") :])}
            with self.subTest(variant=variant):
                self.check("08", variant, measured, facts)

    def test_the_student_versions_as_the_grader_probed_them(self):
        # Lab 07's width rule reads data bytes this probe did not measure (Lab07LoadWidthTest reads
        # the H200's record): the FFMA band and the tile rule are evaluated.
        for variant, measured in probed("07").items():
            with self.subTest(lab="07", variant=variant):
                self.check("07", variant, measured, gemm_facts(512, 512, 256), 2)
        softmax = {"count": 4096 * 2048.0, "bytes": 8 * 4096 * 2048.0}
        for variant in ("softmax_naive", "softmax_online", "softmax_fused"):
            with self.subTest(lab="13", variant=variant):
                self.check("13", variant, probed("13")[variant], softmax)
        elements = 8 * 2048 * 128.0  # one batch, 8 heads, sequence 2048, head_dim 128
        attention = {"count": elements, "bytes": 8 * elements, "flops": 4 * 8 * 2048 * 2048 * 128.0}
        attention["scores"] = 8 * 2048 * 2048.0
        with self.subTest(lab="13", variant="flash_mma"):
            self.check("13", "flash_mma", probed("13")["flash_mma"], attention)

    def test_lab13_attention_as_the_h200_probed_it(self):
        # The solutions' probe on an H200 (docs/data/grading/issue52_data_path_nvidia-h200): one batch
        # of 7 heads, sequence 1024, head_dim 128, drawn at grading time. flash_mma's HMMA count is
        # exactly the useful work; flash_wgmma's HGMMA count (per warp: 4 a warpgroup instruction) is
        # 43,691 FLOP a count, its m64n64 scores beside its m64n128 products.
        report = REPO / "docs" / "data" / "grading" / "issue52_data_path_nvidia-h200" / "quick_00-03-04-06-13"
        labs = json.loads((report / "grade-report.json").read_text())["labs"]
        measured = {
            name: t["measured"] for name, t in next(lab for lab in labs if lab["lab"] == "13")["technique"].items()
        }
        elements = 7 * 1024 * 128.0
        attention = {"count": elements, "bytes": 8 * elements, "flops": 4 * 7 * 1024 * 1024 * 128.0}
        attention["scores"] = 7 * 1024 * 1024.0
        for variant in ("flash_mma", "flash_wgmma"):
            with self.subTest(variant=variant):
                self.check("13", variant, measured[variant], attention)
        self.assertAlmostEqual(attention["flops"] / measured["flash_wgmma"]["gmma"], 43690.67, delta=1)
        _, broke, _ = verdict("13", "flash_wgmma", padded(measured["flash_wgmma"], gmma=60000), attention)
        self.assertTrue(broke, "flash_wgmma with 70 % more HGMMA met its rule")


class PaddingBreaksARuleTest(unittest.TestCase):
    """An honest record plus instructions that do no work: each breaks a rule of the variant it
    pretends to be (the issue's examples first)."""

    SQUARE = gemm_facts(4096, 4096, 4096)
    MNK = 4096.0**3

    def assertBroken(self, lab, variant, measured, facts=None, naming=""):
        _, broke, _ = verdict(lab, variant, measured, facts or self.SQUARE)
        self.assertTrue(broke, f"lab {lab} {variant}: the padded counters met every rule")
        if naming:
            self.assertTrue(any(naming in rule for rule in broke), f"{naming!r} not among {broke}")

    def test_lab05_without_register_reuse_plus_dummy_ffma(self):
        # One value from shared memory per multiply-add (lab 02's tiles), padded with FFMA to 11 x the
        # product's (the issue: 7.6e8 counted where 6.7e7 were needed): the band breaks.
        plain = profiled("02")["tiled_coalesced"]
        for variant in ("rt_1d", "rt_2d"):
            with self.subTest(variant=variant):
                self.assertBroken("05", variant, padded(plain, ffma=10 * self.MNK), naming="ffma <= 1.05 * mnk")
                # Without the padding, the reuse rule itself breaks.
                self.assertBroken("05", variant, plain, naming="shared_ld_wavefronts")

    def test_lab02_without_tiles_plus_dummy_shared_loads(self):
        # Lab 01's coalesced kernel (no tile), with one to three volatile shared loads a step.
        naive = profiled("01")["naive_coalesced"]
        for per_step in (1, 2, 3):
            for variant in ("tiled_strided", "tiled_strided_padded", "tiled_coalesced"):
                with self.subTest(variant=variant, loads=per_step):
                    cheat = padded(naive, shared_ld_wavefronts=per_step * self.MNK / 32)
                    self.assertBroken("02", variant, cheat, naming="ldg_bytes <= 3 * mnk")

    def test_lab01_strided_with_dummy_wide_loads_is_not_coalesced(self):
        # The strided mapping plus coalesced 128-byte loads (4 sectors each) that lower the average
        # sectors per request: enough of them to pass the old rule (8 a request) breaks the loads' band.
        strided = profiled("01")["naive_strided"]
        requests = strided["ldg_requests"]
        for dummies in (0.1, 1.0, 2.0):
            with self.subTest(dummies=dummies):
                cheat = padded(strided, ldg_requests=dummies * requests, ldg_sectors=4 * dummies * requests)
                self.assertBroken("01", "naive_coalesced", cheat)
        self.assertBroken(
            "01", "naive_coalesced", padded(strided, ldg_requests=2 * requests, ldg_sectors=8 * requests), naming="1.1"
        )

    def test_lab04_blocks_without_tiles(self):
        # The naive kernel launched on each block shape reads 4 to 10 bytes per multiply-add; even a
        # shared load per multiply-add does not lower that.
        naive = profiled("01")["naive_coalesced"]
        for variant, threads, bytes_per_mac in (
            ("block_4x4", 16, 10),
            ("block_8x8", 64, 5),
            ("block_16x16", 256, 4),
            ("block_32x32", 1024, 5),
        ):
            with self.subTest(variant=variant):
                cheat = dict(naive, block=threads, max_block=threads, min_block=threads)
                cheat = padded(cheat, shared_ld_wavefronts=self.MNK / 16)
                cheat["ldg_bytes"] = bytes_per_mac * self.MNK
                self.assertBroken("04", variant, cheat, naming="ldg_bytes")

    def test_register_tiling_rungs_padded_with_ffma_or_shared_loads(self):
        for lab, variant in (("05", "rt_2d"), ("06", "prefetch_regs"), ("07", "step2_warp_tiles")):
            honest = profiled(lab)[variant]
            with self.subTest(lab=lab, variant=variant, padding="ffma"):
                self.assertBroken(lab, variant, padded(honest, ffma=0.1 * self.MNK), naming="ffma <= 1.05 * mnk")
            with self.subTest(lab=lab, variant=variant, padding="shared loads"):
                more = padded(honest, shared_ld_wavefronts=3 * honest["shared_ld_wavefronts"])
                self.assertBroken(lab, variant, more, naming="shared_ld_wavefronts")

    def test_the_convolution_padded_with_ffma(self):
        measured = profiled("08")["coarsen8/case1"]
        facts = {"macs": 1024 * 2 * 29 * 29 * 45.0, "taps": 45.0, "factor": 8.0}
        self.assertBroken("08", "coarsen8", padded(measured, ffma=0.5 * facts["macs"]), facts)
        # A factor-1 kernel named coarsen8: a thread's share of the work is an eighth of the factor's.
        self.assertBroken("08", "coarsen8", profiled("08")["coarsen1/case1"], facts, naming="factor")

    def test_tensor_core_rungs_padded_with_mma_or_done_with_ffma(self):
        facts = gemm_facts(1024, 1024, 512, input_bytes=2)
        honest_mma = {"hmma": facts["flops"] / 4096, "hfma2": 0.0, "gmma": 0.0, "ffma": 0.0}
        honest_gmma = {"hmma": facts["flops"] / 131072, "hfma2": 0.0, "gmma": facts["flops"] / 131072, "ffma": 0.0}
        self.assertEqual(verdict("11", "mma_swizzled", honest_mma, facts)[1], [])
        self.assertEqual(verdict("11", "wgmma", honest_gmma, facts)[1], [])
        self.assertBroken("11", "mma_swizzled", padded(honest_mma, hmma=honest_mma["hmma"]), facts, "1.25 * flops")
        self.assertBroken("11", "wgmma", padded(honest_gmma, gmma=4 * honest_gmma["gmma"]), facts, "4.5 * flops")
        ffma_path = {"hmma": 0.0, "hfma2": 0.0, "gmma": 0.0, "ffma": facts["mnk"]}
        self.assertBroken("11", "mma_swizzled", padded(ffma_path, hmma=honest_mma["hmma"]), facts, "ffma")
        tma = dict(honest_gmma, tma_bytes=facts["a_bytes"] + facts["b_bytes"])
        self.assertEqual(verdict("11", "tma_wgmma", tma, facts)[1], [])
        self.assertBroken("11", "tma_wgmma", padded(tma, tma_bytes=facts["mnk"]), facts, "tma_bytes <= mnk / 8")

    def test_lab12_rungs_padded_with_atomics_or_loads(self):
        count = 50_000_000.0
        facts = {"count": count, "bytes": 4 * count}
        reads = {"ldg_bytes": 4 * count, "ldg": 4 * count / 512}
        atomic = dict(reads, red=count / 32, atom=0.0, lds=0.0)
        shuffle = dict(reads, red=count / 256, atom=0.0, lds=count / 256)
        self.assertEqual(verdict("12", "sum_atomic", atomic, facts)[1], [])
        self.assertEqual(verdict("12", "sum_warp_shuffle", shuffle, facts)[1], [])
        self.assertBroken("12", "sum_atomic", padded(atomic, red=count / 32), facts, "1.1 * count / 32")
        self.assertBroken("12", "sum_atomic", padded(atomic, ldg_bytes=8 * count), facts, "2 * bytes")
        # A shuffle tree that pads shared loads to pass as the shared-memory tree fails the shuffle rung's
        # bound; one that pads atomics fails the tree's.
        self.assertBroken("12", "sum_warp_shuffle", padded(shuffle, lds=count / 16), facts, "lds <= count / 64")
        self.assertBroken("12", "sum_shared_tree", padded(shuffle, red=count / 32), facts, "count / 128")
        hist = {"count": count, "bytes": count}
        shared = {"shared_atom": count / 64, "red": count / 4096, "atom": 0.0, "ldg_bytes": count, "ldg": count / 512}
        self.assertEqual(verdict("12", "hist_shared", shared, hist)[1], [])
        self.assertBroken("12", "hist_shared", padded(shared, shared_atom=count / 16), hist, "shared_atom <=")

    def test_softmax_reading_its_rows_again(self):
        softmax = {"count": 4096 * 2048.0, "bytes": 8 * 4096 * 2048.0}
        fused = probed("13")["softmax_fused"]
        self.assertBroken("13", "softmax_fused", padded(fused, ldg_bytes=4 * softmax["count"]), softmax)
        online = probed("13")["softmax_online"]
        self.assertBroken("13", "softmax_online", padded(online, ldg_bytes=4 * softmax["count"]), softmax)


WIDTH_RECORD = REPO / "docs" / "data" / "history" / "lab07_load_width_nvidia-h200"
WIDTH_FACTS = gemm_facts(768, 512, 832)  # the record's problem (its README's command)
# Each variant's kernels in the record, by a piece of their names (the driver checks every variant
# twice: beta = 0 on a poisoned C, then beta = 0.5).
WIDTH_KERNELS = {
    "step1_wide_loads": ["wide_loads_kernel"],
    "step2_warp_tiles": ["warp_tiles_kernel"],
    "step3_prefetch": ["prefetch_kernel"],
    "async_128x256": ["async_wide_gemm_kernel"],
    "wide_256x128": ["wide_gemm_kernel<lab07::TileShape<256, 128, 8,"],
    "wide_128x256": ["wide_gemm_kernel<lab07::TileShape<128, 256, 8,"],
    "wide_128x128": ["wide_gemm_kernel<lab07::TileShape<128, 128, 8,"],
    "wide_128x64": ["wide_gemm_kernel<lab07::TileShape<128, 64, 8,"],
    "wide_128x64x16": ["wide_gemm_kernel<lab07::TileShape<128, 64, 16,"],
    "wide_64x64": ["wide_gemm_kernel<lab07::TileShape<64, 64, 16,"],
    "narrow_columns": ["narrow_gemm_kernel<16, 0>"],
    "best": ["wide_gemm_kernel<lab07::TileShape<64, 64, 16,", "sum_slices_kernel"],
}
# The variants of the binary both records come from, in the order it ran them (two calls each):
# the rubric's, before wide_32x32 joined them.
RECORDED_VARIANTS = list(WIDTH_KERNELS)
WIDTH_RULE = "ldg_data >= 384 * ldg"


def width_record(
    record: Path = WIDTH_RECORD, csv_name: str = "lab07_loads.csv"
) -> tuple[list[tuple[list[str], dict[str, float]]], dict[str, list[dict[str, float]]]]:
    """An H200 record of lab 07's loads (Nsight Compute's raw page of lab07_solution --verify-only):
    ([(kernel names, aggregated aliases)] of each call of a lab07 kernel run, in order), and the
    driver's own kernels' aliases by their name (fill, compare, absolute, gather)."""
    kernels = technique.read_kernels((record / csv_name).read_text())
    metrics = RUBRIC.labs["07"].technique.metrics
    calls, call, driver = [], [], {}
    for kernel in kernels + [{"Kernel Name": ""}]:
        name = kernel["Kernel Name"]
        if "lab07::" in name:
            call.append(kernel)
            continue
        if call:
            calls.append(([k["Kernel Name"] for k in call], technique.aggregate(call, metrics)))
            call = []
        short = name.split("(")[0].split("::")[-1].split("<")[0]
        if name and "xmma" not in name:  # cuBLAS's kernels are not the suite's
            driver.setdefault(short, []).append(technique.aggregate([kernel], metrics))
    return calls, driver


def lab07_rules(variant: str, measured: dict[str, float], facts: dict[str, float]) -> tuple[list[str], list[str]]:
    """(rules that held, rules that broke) of the variant's rules that read the loads' data bytes."""
    held, broke, _ = verdict("07", variant, measured, facts)
    return [r for r in held if "_data" in r], [r for r in broke if "_data" in r]


class Lab07LoadWidthTest(unittest.TestCase):
    """Lab 07's 128-bit rule reads the data the threads asked for, per lane of a load instruction,
    and cp.async by its own counters; every variant's loads are bounded by its tile's traffic, so
    wide loads added to raise the average break a rule. Checked on the H200's record of every lab 07
    kernel (docs/data/history/lab07_load_width_nvidia-h200)."""

    @classmethod
    def setUpClass(cls):
        cls.calls, cls.driver = width_record()
        names = RECORDED_VARIANTS
        cls.by_variant = {}
        for index, (kernel_names, measured) in enumerate(cls.calls):
            cls.by_variant.setdefault(names[index // 2], []).append((kernel_names, measured))

    def test_the_record_holds_every_variant_twice(self):
        self.assertEqual(len(self.calls), 2 * len(WIDTH_KERNELS))
        for variant, pieces in WIDTH_KERNELS.items():
            for kernel_names, _ in self.by_variant[variant]:
                with self.subTest(variant=variant):
                    self.assertEqual(len(kernel_names), len(pieces), kernel_names)
                    for name, piece in zip(kernel_names, pieces):
                        self.assertIn(piece, name)

    def test_what_each_counter_reads(self):
        # Data bytes are what the threads asked for: the 128 x 128 tile's A and B exactly (24 blocks
        # of 256 rows of 832 floats), 512 a warp's 128-bit load (16 a lane); cp.async's data bytes
        # are its tiles' exactly too (12 blocks of 384 rows of 832 floats), at 6 copies a stage per
        # warp: 4 of A's 4 bytes a lane and 2 of B's 16 make 256 a warp's copy, 8 a lane. L1's
        # bytes count every sector an instruction touches: twice the data where A's transposed
        # copies reach 16 rows for 128 bytes.
        step = self.by_variant["step1_wide_loads"][0][1]
        self.assertEqual(step["ldg_data"], 24 * 256 * 832 * 4)
        self.assertEqual(step["ldg_data"], 512 * step["ldg"])
        copies = self.by_variant["async_128x256"][0][1]
        self.assertEqual(copies["ldgsts_data"], 12 * (128 + 256) * 832 * 4)
        self.assertEqual(copies["ldgsts_data"], 256 * copies["ldgsts"])
        self.assertEqual(copies["ldg_bytes"], 2 * copies["ldgsts_data"])

    def test_every_variant_but_the_scalar_narrow_kernel_holds(self):
        for variant, calls in self.by_variant.items():
            if variant == "narrow_columns":
                continue
            for index, (_, measured) in enumerate(calls):
                with self.subTest(variant=variant, call=index):
                    held, broke = lab07_rules(variant, measured, WIDTH_FACTS)
                    self.assertEqual(broke, [])
                    self.assertEqual(len(held), 2, "the width rule and the tile's traffic")

    def test_scalar_loads_break_the_width_rule_coalesced_or_not(self):
        # The narrow kernel of the record (B staged by scalar coalesced loads: 100-128 data bytes
        # an instruction), the driver's scalar coalesced kernels and its gather (scalar loads of
        # sampled elements, uncoalesced: L1 touches 561 bytes an instruction for 188 asked for).
        for index, (_, measured) in enumerate(self.by_variant["narrow_columns"]):
            with self.subTest(narrow=index):
                self.assertIn(WIDTH_RULE, " ".join(lab07_rules("narrow_columns", measured, WIDTH_FACTS)[1]))
        for name in ("compare_kernel", "absolute_kernel", "gather_kernel"):
            for measured in self.driver[name]:
                if not measured.get("ldg"):
                    continue
                with self.subTest(kernel=name):
                    self.assertIn(WIDTH_RULE, " ".join(lab07_rules("narrow_columns", measured, WIDTH_FACTS)[1]))
        gather = self.driver["gather_kernel"][0]
        self.assertGreater(gather["ldg_bytes"], 384 * gather["ldg"], "the old rule credited it")

    def test_main_s_uncoalesced_narrow_kernel_breaks_it(self):
        # Scalar loads 32 rows of B apart: the old rule read 845 L1 bytes an instruction and held.
        # The grader's probe did not measure its data bytes; a 4-byte load asks for at most 128 a
        # warp instruction, so 128 per instruction is its most.
        report = REPO / "docs" / "data" / "grading" / "issue52_data_path_nvidia-h200" / "quick_07"
        labs = json.loads((report / "grade-report.json").read_text())["labs"]
        lab = next(lab for lab in labs if lab["lab"] == "07")
        probe = lab["technique"]["narrow_columns"]
        measured = dict(probe["measured"], ldg_data=128 * probe["measured"]["ldg"], ldgsts_data=0.0)
        self.assertGreater(measured["ldg_bytes"], 384 * measured["ldg"])
        self.assertIn(WIDTH_RULE, " ".join(lab07_rules("narrow_columns", measured, probe["facts"])[1]))

    def test_wide_dummy_loads_cannot_lift_scalar_ones(self):
        # Each honest record with its loads made scalar (the same bytes, four times the
        # instructions) breaks the width rule; with the fewest 128-bit loads that lift its average
        # to 12 bytes a lane (two for each scalar one), or 16-byte copies to 7.5, the tile's traffic
        # breaks instead.
        for variant, calls in self.by_variant.items():
            if variant == "narrow_columns":
                continue
            measured = calls[0][1]
            scalar = dict(measured, ldg=measured["ldg_data"] / 128, ldgsts=measured["ldgsts_data"] / 128)
            with self.subTest(variant=variant, loads="scalar"):
                self.assertTrue(lab07_rules(variant, scalar, WIDTH_FACTS)[1])
            extra_ldg = 2 * scalar["ldg"]
            extra_copies = math.ceil(112 / 272 * scalar["ldgsts"])
            lifted = padded(
                scalar,
                ldg=extra_ldg,
                ldg_data=512 * extra_ldg,
                ldgsts=extra_copies,
                ldgsts_data=512 * extra_copies,
            )
            with self.subTest(variant=variant, loads="scalar plus wide dummies"):
                held, broke = lab07_rules(variant, lifted, WIDTH_FACTS)
                self.assertTrue(any(WIDTH_RULE in rule for rule in held), held)
                self.assertTrue(broke, "the dummies' bytes met the tile's traffic")

    def test_only_lab07_reads_the_data_bytes_and_ldg_bytes_stays_l1s(self):
        # The other labs' rules on ldg_bytes read what they read before: L1's bytes.
        for number, lab in RUBRIC.labs.items():
            if not lab.technique:
                continue
            with self.subTest(lab=number):
                self.assertEqual(lab.technique.metrics["ldg_bytes"], "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum")
                reads_data = any("_data" in rule.require for rule in lab.technique.rules)
                self.assertEqual(reads_data, number == "07")


NARROW128_RECORD = REPO / "docs" / "data" / "history" / "lab07_load_width_narrow128_nvidia-h200"


class Lab07NarrowWideLoadsTest(unittest.TestCase):
    """The narrow kernel with 128-bit loads (its H200 record, the same problem as WIDTH_RECORD's) meets
    the width rule and its traffic bound on the grader's kind of probe (beta = 0); at beta = 0.5 only
    its reads of C, 4 bytes an instruction, pull the average under the rule."""

    @classmethod
    def setUpClass(cls):
        calls, _ = width_record(NARROW128_RECORD)
        names = RECORDED_VARIANTS
        cls.by_variant = {}
        for index, (kernel_names, measured) in enumerate(calls):
            cls.by_variant.setdefault(names[index // 2], []).append((kernel_names, measured))

    def test_every_variant_holds_on_the_probe_s_kind_of_call(self):
        for variant, calls in self.by_variant.items():
            kernel_names, measured = calls[0]
            with self.subTest(variant=variant):
                for name, piece in zip(kernel_names, WIDTH_KERNELS[variant]):
                    self.assertIn(piece, name)
                held, broke = lab07_rules(variant, measured, WIDTH_FACTS)
                self.assertEqual(broke, [])
                self.assertEqual(len(held), 2, "the width rule and the tile's traffic")

    def test_the_narrow_kernel_loads_16_bytes_a_lane_and_c_s_reads_4(self):
        beta0, beta_half = (measured for _, measured in self.by_variant["narrow_columns"])
        self.assertGreater(beta0["ldg_data"], 15 * 32 * beta0["ldg"])
        c_loads = beta_half["ldg"] - beta0["ldg"]
        self.assertEqual(c_loads, WIDTH_FACTS["m"] * WIDTH_FACTS["n"])
        self.assertEqual(beta_half["ldg_data"] - beta0["ldg_data"], 4 * c_loads)
        self.assertIn(WIDTH_RULE, " ".join(lab07_rules("narrow_columns", beta_half, WIDTH_FACTS)[1]))


SMALL_TILE_RECORD = REPO / "docs" / "data" / "history" / "lab07_small_tiles_s32_nvidia-h200" / "call_5"


class Lab07SmallTileTest(unittest.TestCase):
    """wide_32x32 (2 warps, 4 x 4 a lane) on the H200 at the width record's problem, beside wide_64x64
    and best in the same run: every rule of its variant holds, its loads are 16 bytes a lane, it
    reads A once per 32 columns and B once per 32 rows (mnk / 4 bytes), and it does 85 multiply-adds
    a shared-memory wavefront, above the reuse rule's 56 (wide_64x64: 102)."""

    @classmethod
    def setUpClass(cls):
        calls, _ = width_record(SMALL_TILE_RECORD, "lab07_counters.csv")
        names = ["wide_64x64", "wide_32x32", "best"]  # the run's --variant order, two calls each
        cls.by_variant = {}
        for index, (kernel_names, measured) in enumerate(calls):
            cls.by_variant.setdefault(names[index // 2], []).append((kernel_names, measured))

    def test_every_rule_of_each_variant_holds(self):
        self.assertEqual(sorted(self.by_variant), ["best", "wide_32x32", "wide_64x64"])
        for variant, calls in self.by_variant.items():
            for index, (kernel_names, measured) in enumerate(calls):
                with self.subTest(variant=variant, call=index):
                    self.assertIn("wide_gemm_kernel<lab07::TileShape<", kernel_names[0])
                    held, broke, _ = verdict("07", variant, measured, WIDTH_FACTS)
                    self.assertEqual(broke, [])
                    self.assertGreaterEqual(len(held), 3)

    def test_the_small_tile_reads_what_its_tile_needs(self):
        _, measured = self.by_variant["wide_32x32"][0]
        mnk = WIDTH_FACTS["mnk"]
        self.assertEqual(measured["ldg_data"], 512 * measured["ldg"])
        self.assertAlmostEqual(measured["ldg_data"] / mnk, 0.25, places=3)
        self.assertGreater(measured["ffma"], 56 * measured["shared_ld_wavefronts"])
        self.assertLess(measured["ffma"], 102 * measured["shared_ld_wavefronts"])


class EveryRuleBoundsBothSidesTest(unittest.TestCase):
    """The lesson's arithmetic or traffic is judged against the useful work from below and above:
    every variant of a GEMM lab has an upper bound on its FFMA (or its MMA), so padding cannot meet
    a ratio; every rule says what padding costs, for the instructors' guide."""

    def test_every_rule_says_what_padding_costs(self):
        for number, lab in RUBRIC.labs.items():
            for rule in lab.technique.rules if lab.technique else ():
                with self.subTest(lab=number, rule=rule.require):
                    self.assertTrue(rule.padding, "the rule does not say what padding costs")

    def test_every_gemm_variant_has_an_upper_bound_on_its_arithmetic(self):
        gemm_labs = [lab.number for lab in declared_labs() if lab.family.endswith("_gemm")]
        self.assertTrue(gemm_labs, "no lab declares a GEMM family")
        for number in gemm_labs:
            lab = RUBRIC.labs[number]
            for variant in lab.variants:
                rules = " and ".join(r.require for r in lab.technique.rules if r.applies_to(variant.name))
                with self.subTest(lab=number, variant=variant.name):
                    self.assertRegex(
                        rules, r"(ffma|hmma - hfma2 - gmma\) \* 4096|gmma \* 131072) <= [\d.]+ \* (mnk|flops)"
                    )


class ProbeDrawTest(unittest.TestCase):
    """The probe's problem is drawn at grading time: on the rubric's grid, different between gradings,
    the same for every variant of one grading."""

    def test_draws_stay_on_the_grid_and_vary(self):
        rules = RUBRIC.labs["05"].technique
        seen = set()
        chooser = random.Random(1)
        for _ in range(200):
            args = rules.draw_probe(chooser)
            values = dict(zip(args[::2], (int(v) for v in args[1::2])))
            for flag, (low, high, step) in rules.probe_draw.items():
                self.assertTrue(low <= values[flag] <= high and (values[flag] - low) % step == 0, args)
            seen.add(args)
        self.assertGreater(len(seen), 50)

    def test_every_technique_lab_draws_its_probe(self):
        for number, lab in RUBRIC.labs.items():
            if lab.technique:
                with self.subTest(lab=number):
                    self.assertTrue(lab.technique.probe_draw, "the probe's shape is fixed in the rubric")

    def test_a_bad_draw_is_refused_naming_the_key(self):
        data = json.loads((paths.RUBRIC).read_text())
        for bad in ([512, 256, 64], [512, 1024, 0], [512, 1000, 256], ["512", 1024, 256], [512, 1024]):
            data["labs"]["05"]["technique"]["probe_draw"] = {"--m": bad}
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "rubric.json"
                path.write_text(json.dumps(data))
                with self.assertRaises(RubricError) as caught:
                    load_rubric(path, with_test_lists=False)
                self.assertIn("labs.05.technique.probe_draw.--m", str(caught.exception))


class MemcheckAtTheTimedSizeTest(unittest.TestCase):
    """After the small shapes' tools, memcheck watches one call of each timed variant that passed its
    tests, on the rubric's timed problem, in one runner."""

    def test_the_timed_variants_are_probed_at_the_benchmark_problem(self):
        rubric = load_rubric(paths.RUBRIC)
        lab = rubric.labs["11"]
        run = LabRun("11", "11_tensor_cores")
        run.unavailable = {"wgmma": "needs compute capability 9"}
        calls = []

        def sanitizer(ctx, lab_, rubric_, folder, env, run_, tool, referee_args=None):
            calls.append((tool, referee_args))
            return True

        context = mock.Mock()
        context.work = Path("/work-folder")
        with mock.patch.object(lab_grader, "_sanitizer", sanitizer), mock.patch.object(
            LabRun, "timed", mock.MagicMock()
        ):
            passed = ["wmma_global", "wmma_pipelined", "wgmma", "mma_swizzled"]
            self.assertTrue(lab_grader._sanitizers(context, mock.Mock(number="11"), lab, None, {}, run, passed))
        self.assertEqual([tool for tool, _ in calls], [*lab.sanitizers, "memcheck"])
        probe = calls[-1][1]
        # wmma_pipelined is given code worth no points (not timed); wgmma cannot run on this GPU.
        self.assertEqual(probe[:2], ["--probe", "wmma_global,mma_swizzled"])
        self.assertEqual(probe[4:], list(lab.benchmark.args))
        self.assertIn("memcheck on one call of 2 variants at the timed problem", run.sanitizers)


if __name__ == "__main__":
    unittest.main()
