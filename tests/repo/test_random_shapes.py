"""scripts/gemm-random-shapes (cudalabs.records.random_shapes) without a GPU: the distribution it draws, the
summary of the timing program's record (synthetic), the docs' placeholder, the dry run, the one-line
refusals, and a whole run through a stand-in timing program that writes its record as the real one does."""
import json
import math
import statistics
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from cudalabs.docs.render import Renderer
from cudalabs.records import random_shapes
from cudalabs.records.random_shapes import Distribution, Shape

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "gemm-random-shapes"
SEEDS = (1, 2, 3, 2026, 987654321)


class DistributionTest(unittest.TestCase):
    def setUp(self):
        self.dist = Distribution()
        self.draws = {seed: random_shapes.draw(self.dist, seed)[0] for seed in SEEDS}

    def test_the_shares_are_exact_for_every_seed(self):
        for seed, shapes in self.draws.items():
            with self.subTest(seed=seed):
                self.assertEqual(len(shapes), 120)
                small_m = [s for s in shapes if s.m <= 64]
                small_n = [s for s in shapes if s.n <= 64]
                self.assertEqual((len(small_m), len(small_n)), (15, 15))  # 25 %, half M, half N
                self.assertFalse(set(small_m) & set(small_n), "a shape small in both M and N")
                self.assertEqual(sum(s.k % 8 != 0 for s in shapes), 36)  # 30 %
                self.assertGreaterEqual(sum(s.n % 8 == 0 for s in shapes), 30)  # the N-aligned 25 %, and chance
                shares = random_shapes.shares(shapes, self.dist)
                self.assertAlmostEqual(shares["small_mn"], 0.25)
                self.assertAlmostEqual(shares["k_tail"], 0.30)

    def test_n_is_any_integer_outside_its_aligned_share(self):
        """Rows of B and C off 16-byte alignment are most shapes' case: the draw must not pick the alignment.
        Outside the stated share N is any integer, so about one in eight is a multiple of 8 by chance, and
        every remainder modulo 8 comes up."""
        for share, aligned in ((0.0, 0), (1.0, 120), (0.5, 60)):
            with self.subTest(share=share):
                self.assertIn(f"N-aligned share ({100 * share:g} %", Distribution(n_aligned_share=share).describe())
                shapes, _ = random_shapes.draw(Distribution(n_aligned_share=share), 5)
                self.assertGreaterEqual(sum(s.n % 8 == 0 for s in shapes), aligned)
        free = [s for seed in range(20) for s in random_shapes.draw(Distribution(n_aligned_share=0.0), seed)[0]]
        chance = sum(s.n % 8 == 0 for s in free) / len(free)
        self.assertTrue(0.07 < chance < 0.19, chance)
        self.assertEqual({s.n % 8 for s in free}, set(range(8)))
        everything = [s for seed in range(20) for s in random_shapes.draw(self.dist, seed)[0]]
        unaligned = random_shapes.shares(everything, self.dist)["n_unaligned"]
        self.assertAlmostEqual(unaligned, 0.75 * 7 / 8, delta=0.05)

    def test_the_shares_round_half_up_for_other_counts(self):
        self.assertEqual(Distribution(count=101).counts(), (13, 12, 30))
        self.assertEqual(Distribution(count=5).counts(), (1, 0, 2))
        self.assertEqual(Distribution(count=7, small_share=0.0, k_tail_share=1.0).counts(), (0, 0, 7))
        shapes, _ = random_shapes.draw(Distribution(count=7, small_share=0.0, k_tail_share=1.0), 4)
        self.assertTrue(all(s.k % 8 and s.m > 64 and s.n > 64 for s in shapes))

    def test_every_shape_is_within_its_bounds_and_under_the_caps(self):
        for seed, shapes in self.draws.items():
            for s in shapes:
                with self.subTest(seed=seed, shape=s.label):
                    self.assertTrue(16 <= s.k <= 16384)
                    for size, other in ((s.m, s.n), (s.n, s.m)):
                        self.assertTrue(1 <= size <= 64 and other > 64 or 65 <= size <= 16384)
                    self.assertLessEqual(s.fp32_bytes(), 4 * 2**30)
            self.assertEqual(len({s.label for s in shapes}), len(shapes), "a shape drawn twice")

    def test_the_sizes_are_log_uniform(self):
        """Over many shapes the median of a log-uniform size is the geometric middle of its range."""
        shapes = [s for seed in range(20) for s in random_shapes.draw(self.dist, seed)[0]]
        for name, values, low, high in (
            ("K", [s.k for s in shapes], 16, 16384),
            ("M", [s.m for s in shapes if s.m > 64], 65, 16384),
            ("N", [s.n for s in shapes if s.n > 64], 65, 16384),
        ):
            with self.subTest(size=name):
                middle = math.sqrt(low * (high + 1))
                self.assertAlmostEqual(sum(v <= middle for v in values) / len(values), 0.5, delta=0.05)
                quarter = math.exp(math.log(low) + 0.25 * (math.log(high + 1) - math.log(low)))
                self.assertAlmostEqual(sum(v <= quarter for v in values) / len(values), 0.25, delta=0.05)

    def test_a_seed_reproduces_its_list_and_another_seed_differs(self):
        again = random_shapes.draw(self.dist, 2026)[0]
        self.assertEqual([s.label for s in again], [s.label for s in self.draws[2026]])
        labels = [tuple(s.label for s in shapes) for shapes in self.draws.values()]
        self.assertEqual(len(set(labels)), len(labels))
        self.assertNotEqual(set(labels[0]), set(labels[1]))

    def test_tight_caps_redraw_and_impossible_caps_are_refused(self):
        dist = Distribution(max_gib=0.05, max_operand_gib=0.02)
        shapes, redrawn = random_shapes.draw(dist, 7)
        self.assertGreater(redrawn["caps"], 0)
        for s in shapes:
            self.assertLessEqual(s.fp32_bytes(), 0.05 * 2**30)
            self.assertTrue(all(4 * e <= 0.02 * 2**30 for e in s.operand_elements()))
        with self.assertRaisesRegex(random_shapes.BadInput, "leave no shape to draw"):
            random_shapes.draw(Distribution(count=2, max_gib=1e-9), 1)

    def test_the_drivers_take_the_list(self):
        shapes = self.draws[1]
        text = random_shapes.shapes_argument(shapes)
        self.assertEqual(text.split(","), [s.label for s in shapes])
        self.assertLess(len(text), random_shapes.MAX_ARGUMENT_BYTES)
        self.assertTrue(all(max(s.m, s.n, s.k) <= 1 << 20 for s in shapes))
        many = [Shape(16384, 16384, 16000 + i) for i in range(9000)]
        with self.assertRaisesRegex(random_shapes.BadInput, "more than one argument may hold"):
            random_shapes.shapes_argument(many)

    def test_the_peak_memory_counts_the_operands_and_the_check(self):
        big = Shape(4096, 2048, 1024)
        a, b, c = 4096 * 1024, 1024 * 2048, 4096 * 2048
        self.assertEqual(random_shapes.peak_bytes(big), 4 * (2 * (a + b) + 3 * c))


def times_record(times, seed, device="Fake GPU 80GB", untimed=()):
    """The timing program's record: times is {lab: {label: (best ms, reference ms)}}; untimed shapes of lab 07
    failed their check."""
    entries = []
    for lab, by_label in times.items():
        for label, (best, reference) in by_label.items():
            entries.append(
                {
                    "lab": lab,
                    "shape": label,
                    "check": "PASS",
                    "passed": True,
                    "rounds": 7,
                    "best_ms": best,
                    "reference_ms": reference,
                }
            )
    for label in untimed:
        entries.append({"lab": "07", "shape": label, "check": "FAIL: 3 elements over their bound", "passed": False})
    context = {"device": device, "seed": str(seed), "git_commit": "abc1234", "date": "2026-01-02T03:04:05+00:00"}
    context["command"] = "build/labs/gemm_random_shapes --shapes ..."
    protocol = {"rounds": 7, "min_rounds": 3, "round_ms": 5.0, "shape_ms": 400.0}
    return {"context": context, "protocol": protocol, "elapsed_s": 31.5, "shapes": entries}


class SummaryTest(unittest.TestCase):
    """The summary of synthetic records: every figure checked against arithmetic done here."""

    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.out = Path(self.scratch.name)
        self.dist = Distribution()
        self.seed = 99
        self.shapes, _ = random_shapes.draw(self.dist, self.seed)
        random_shapes.write_draw(self.out, self.dist, self.seed, self.shapes, "gemm-random-shapes test", ["07"])

    def tearDown(self):
        self.scratch.cleanup()

    def write(self, ratios_by_lab, seed=None, device="Fake GPU 80GB", untimed=()):
        """Records best at 2 ms everywhere and the reference at 2 ms times the ratio, per lab."""
        times = {
            lab: {label: (2.0, 2.0 * ratio) for label, ratio in ratios.items()} for lab, ratios in ratios_by_lab.items()
        }
        path = self.out / random_shapes.TIMES_FILE
        path.write_text(json.dumps(times_record(times, self.seed if seed is None else seed, device, untimed)))

    def summary(self):
        summaries = random_shapes.summarize(self.out, "gemm-random-shapes --summarize OUT", REPO)
        self.assertEqual(list(summaries), ["fake-gpu-80gb"])
        return summaries["fake-gpu-80gb"]

    def test_the_percentile_interpolates_and_the_geomean_is_geometric(self):
        self.assertAlmostEqual(random_shapes.percentile(list(range(1, 11)), 0.10), 1.9)
        self.assertAlmostEqual(random_shapes.percentile([5.0, 1.0, 3.0], 0.5), 3.0)
        self.assertAlmostEqual(random_shapes.percentile([2.0], 0.1), 2.0)
        self.assertAlmostEqual(random_shapes.geomean([0.5, 2.0, 1.0]), 1.0)
        self.assertAlmostEqual(random_shapes.geomean([1.0, 4.0]), 2.0)

    def test_a_run_that_meets_the_goals(self):
        labels = [s.label for s in self.shapes]
        ratios = {label: 1.0 + 0.001 * i for i, label in enumerate(labels)}  # 1.000 ... 1.119
        self.write({"07": ratios})
        summary = self.summary()
        part = summary["labs"]["07"]
        values = sorted(ratios.values())
        self.assertAlmostEqual(part["geomean"], math.exp(statistics.fmean(math.log(v) for v in values)))
        self.assertAlmostEqual(part["p10"], values[11] + 0.9 * (values[12] - values[11]))
        self.assertEqual([w["shape"] for w in part["worst"]], labels[:5])
        self.assertEqual(part["measured"], 120)
        self.assertEqual(part["missing"], [])
        self.assertEqual(part["verdict"], "met")
        self.assertTrue(part["goals"]["geomean"]["met"] and part["goals"]["p10"]["met"])
        self.assertEqual(summary["not_run"], ["11"])
        self.assertEqual(summary["context"]["seed"], self.seed)
        self.assertEqual(summary["context"]["device"], "Fake GPU 80GB")
        self.assertEqual(summary["context"]["git_commit"], "abc1234")  # the drivers' commit
        self.assertEqual(summary["context"]["date"], "2026-01-02T03:04:05+00:00")  # the drivers' run
        self.assertEqual(summary["shapes"], labels)
        self.assertEqual(summary["distribution"]["count"], 120)
        self.assertIn("log-uniform", summary["distribution"]["description"])
        self.assertEqual(part["run"]["git_commit"], "abc1234")
        self.assertEqual(part["repetitions"], 7)
        self.assertAlmostEqual(part["least"], 1.0)
        self.assertTrue(part["goals"]["least"]["met"])
        self.assertEqual(summary["context"]["gpu_seconds"], 31.5)
        self.assertIn("120 shapes", summary["context"]["size"])
        classes = part["classes"]
        self.assertEqual((classes["small_mn"]["count"], classes["k_tail"]["count"]), (30, 36))
        self.assertEqual(classes["other"]["count"], sum(min(s.m, s.n) > 64 and s.k % 8 == 0 for s in self.shapes))
        aligned = [label for label in labels if Shape.parse(label).n % 8 == 0]
        self.assertEqual(classes["n_aligned"]["count"] + classes["n_unaligned"]["count"], 120)
        self.assertEqual(classes["n_aligned"]["count"], len(aligned))
        # Each class's statistics are its own shapes' (the ratios rise with the index in the draw).
        self.assertEqual(classes["n_aligned"]["worst"][0]["shape"], aligned[0])
        self.assertAlmostEqual(classes["n_aligned"]["least"], ratios[aligned[0]])
        self.assertAlmostEqual(
            classes["n_aligned"]["geomean"], math.exp(statistics.fmean(math.log(ratios[a]) for a in aligned))
        )
        text = random_shapes.text_summary(summary)
        self.assertIn("goals: met", text)
        self.assertIn("lab 11: not run", text)
        self.assertIn(f"five worst: {labels[0]} 1.000, {labels[1]} 1.001", text)
        self.assertIn(f"N % 8 == 0 ({len(aligned)} shapes): geometric mean", text)
        self.assertIn("the timing program ran 31.5 s", text)

    def test_a_run_that_misses_a_goal_says_which(self):
        labels = [s.label for s in self.shapes]
        # Geometric mean above 1, but a fifth of the shapes at 0.8: the 10th percentile misses 0.90.
        ratios = {label: (0.8 if i % 5 == 0 else 1.2) for i, label in enumerate(labels)}
        self.write({"11": ratios})
        part = self.summary()["labs"]["11"]
        self.assertAlmostEqual(part["geomean"], math.exp(0.2 * math.log(0.8) + 0.8 * math.log(1.2)))
        self.assertGreater(part["geomean"], 1.0)
        self.assertAlmostEqual(part["p10"], 0.8)
        self.assertTrue(part["goals"]["geomean"]["met"])
        self.assertFalse(part["goals"]["p10"]["met"])
        self.assertEqual(part["verdict"], "not met")
        self.assertEqual({w["ratio"] for w in part["worst"]}, {0.8})
        self.assertEqual(part["reference"], "cublas_bf16")  # not the TF32 entries beside it

    def test_a_geomean_just_below_its_goal_is_not_shown_as_met(self):
        labels = [s.label for s in self.shapes]
        self.write({"07": {label: 0.99996 for label in labels}})
        summary = self.summary()
        part = summary["labs"]["07"]
        self.assertFalse(part["goals"]["geomean"]["met"])
        self.assertEqual(part["verdict"], "not met")
        text = random_shapes.text_summary(summary)
        self.assertIn("geometric mean 0.9999 (goal >= 1.00: not met)", text)
        self.assertIn("10th percentile 1.000 (goal >= 0.90: met)", text)  # rounded up where that misleads nobody

    def test_shapes_without_a_timing_fail_the_goals_and_are_named(self):
        labels = [s.label for s in self.shapes]
        self.write({"07": {label: 1.5 for label in labels[3:]}}, untimed=labels[:1])
        part = self.summary()["labs"]["07"]
        self.assertEqual(part["missing"], labels[:3])
        self.assertEqual(part["measured"], 117)
        self.assertEqual(part["verdict"], "not met")
        self.assertIn("3 of 120 shapes have no timing", part["reason"])
        self.assertEqual(part["untimed"], {labels[0]: "FAIL: 3 elements over their bound"})
        text = random_shapes.text_summary(self.summary())
        self.assertIn(f"{labels[0]} (FAIL: 3 elements over their bound)", text)
        self.assertIn(f"{labels[1]} (not in the record)", text)

    def test_a_shape_under_the_floor_misses_the_goals(self):
        labels = [s.label for s in self.shapes]
        self.write({"07": {label: (0.59 if i == 7 else 1.3) for i, label in enumerate(labels)}})
        part = self.summary()["labs"]["07"]
        self.assertTrue(part["goals"]["geomean"]["met"] and part["goals"]["p10"]["met"])
        self.assertFalse(part["goals"]["least"]["met"])
        self.assertEqual(part["verdict"], "not met")

    def test_too_few_shapes_are_not_judged(self):
        dist = Distribution(count=20)
        shapes, _ = random_shapes.draw(dist, self.seed)
        random_shapes.write_draw(self.out, dist, self.seed, shapes, "test", ["07"])
        self.write({"07": {s.label: 2.0 for s in shapes}})
        self.assertEqual(self.summary()["labs"]["07"]["verdict"], "not judged")

    def test_records_of_another_draw_are_left_out(self):
        labels = [s.label for s in self.shapes]
        self.write({"07": {label: 1.1 for label in labels}}, seed=self.seed + 1)
        self.assertEqual(random_shapes.summarize(self.out, "test", REPO), {})
        self.write({"07": {"17x17x17": 1.1}})  # the right seed, a shape not drawn
        self.assertEqual(random_shapes.summarize(self.out, "test", REPO), {})

    def test_the_results_page_shows_the_record_or_says_it_is_pending(self):
        data = self.out / "data"
        (data / "results").mkdir(parents=True)
        renderer = Renderer(str(data), "fake-gpu-80gb", "00")
        pending = renderer.render("{{random_shapes:results/gemm_random_shapes}}")
        self.assertIn("Not measured yet on the fake-gpu-80gb", pending)
        self.assertIn("docs/data/results/gemm_random_shapes_fake-gpu-80gb.json", pending)
        self.assertIn("geometric mean at least 1.00, 10th percentile at least 0.90, no shape under 0.60", pending)
        self.assertNotRegex(pending, r"\d\.\d{3}")  # no measured figure
        labels = [s.label for s in self.shapes]
        self.write(
            {
                "07": {label: 1.25 for label in labels},
                "11": {label: (0.5 if i < 5 else 1.0) for i, label in enumerate(labels)},
            }
        )
        summary = self.summary()
        (data / "results" / "gemm_random_shapes_fake-gpu-80gb.json").write_text(json.dumps(summary))
        shown = renderer.render("{{random_shapes:results/gemm_random_shapes}}")
        self.assertIn(
            "| 07 | FP32 (cuBLAS SGEMM) | 120 of 120 | 1.250 | at least 1.00 | 1.250 | at least 0.90 | met |", shown
        )
        self.assertRegex(
            shown, r"\| 11 \| BF16 .* \| 120 of 120 \| 0\.\d{3} \| at least 1\.00 \| 1\.000 \| .* \| not met \|"
        )
        self.assertIn(f"`{labels[0]}` 0.500", shown)
        self.assertIn(f"seed {self.seed}", shown)
        self.assertIn("`gemm-random-shapes test`; both labs in one process", shown)  # the run's command
        self.assertIn("![", shown)  # the plot
        self.assertIn("gemm_random_shapes.svg", shown)

    def test_the_docs_draw_the_distribution_of_the_ratios(self):
        try:
            from cudalabs.docs import plots
        except ImportError as missing:  # matplotlib draws; the docs build installs it
            self.skipTest(f"no matplotlib: {missing}")
        data = self.out / "data"
        (data / "results").mkdir(parents=True)
        self.assertNotIn("gemm_random_shapes.svg", plots.draw_all(data, "fake-gpu-80gb", self.out / "plots"))
        labels = [s.label for s in self.shapes]
        self.write(
            {
                "07": {label: 0.7 + 0.005 * i for i, label in enumerate(labels)},
                "11": {label: 1.5 - 0.004 * i for i, label in enumerate(labels)},
            }
        )
        (data / "results" / "gemm_random_shapes_fake-gpu-80gb.json").write_text(json.dumps(self.summary()))
        (data / "results" / "gemm_random_shapes_seed2_fake-gpu-80gb.json").write_text(json.dumps(self.summary()))
        drawn = plots.draw_all(data, "fake-gpu-80gb", self.out / "plots")
        self.assertIn("gemm_random_shapes.svg", drawn)
        self.assertIn("gemm_random_shapes_seed2.svg", drawn)
        picture = (self.out / "plots" / "gemm_random_shapes.svg").read_text()
        self.assertIn("10th percentile", picture)
        self.assertIn("seed 99", picture)


def run_script(*args, **kwargs):
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, **kwargs)


FAKE_PROGRAM = """#!{python}
# A stand-in for build/labs/gemm_random_shapes: writes the record the real one would (entries, context).
import json, os, pathlib, sys
args = sys.argv[1:]
value = lambda flag: args[args.index(flag) + 1]
pathlib.Path(os.environ["FAKE_LOG"]).open("a").write(" ".join(sys.argv) + "\\n")
entries = []
for shape in value("--shapes").split(","):
    m, n, k = (int(x) for x in shape.split("x"))
    ms = 2.0 * m * n * k / 5e10 + 0.01
    for lab in value("--labs").split(","):
        if os.environ.get("FAKE_FAIL") == lab:
            entries.append({{"lab": lab, "shape": shape, "check": "FAIL: 2 elements never written", "passed": False}})
            continue
        entries.append({{"lab": lab, "shape": shape, "check": "PASS", "passed": True, "rounds": 7,
                        "best_ms": ms, "reference_ms": ms * 1.02}})
context = {{"device": "Fake GPU 80GB", "seed": value("--seed"), "git_commit": "abc1234",
           "date": "2026-01-02T03:04:05+00:00", "command": " ".join(sys.argv)}}
protocol = {{"rounds": int(value("--rounds")), "round_ms": float(value("--round-ms"))}}
pathlib.Path(value("--output")).write_text(json.dumps({{"context": context, "protocol": protocol,
                                                       "elapsed_s": 12.5, "shapes": entries}}))
print("gemm_random_shapes: timed", len(entries), "entries")
sys.exit(1 if os.environ.get("FAKE_FAIL") else 0)
"""


class ScriptTest(unittest.TestCase):
    def test_the_dry_run_prints_the_shapes_and_their_summary(self):
        done = run_script("--dry-run", "--seed", "2026")
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertIn("120 shapes drawn with seed 2026", lines[0])
        expected = [s.label for s in random_shapes.draw(Distribution(), 2026)[0]]
        listed = [line.split()[1] for line in lines if line.split() and line.split()[0].isdigit()]
        self.assertEqual(listed, expected)
        self.assertIn("shares: M or N <= 64: 25.0 % (M 12.5 %, N 12.5 %); K % 8 != 0: 30.0 %", done.stdout)
        self.assertIn("--shapes " + ",".join(expected), done.stdout)
        self.assertIn("device memory at the largest shape", done.stdout)
        self.assertEqual(run_script("--dry-run", "--seed", "2026").stdout, done.stdout)
        other = run_script("--dry-run", "--count", "100", "--max-gib", "0.5", "--small-share", "0.3")
        self.assertEqual(other.returncode, 0, other.stderr)
        self.assertIn("100 shapes drawn with seed", other.stdout)
        self.assertIn("M or N <= 64: 30.0 %", other.stdout)

    def test_bad_arguments_are_refused_in_one_line(self):
        cases = [
            (["--dry-run", "--count", "0"], "--count: invalid value '0' (expected an integer from 1 to 2000)"),
            (["--dry-run", "--max-gib", "-1"], "--max-gib: invalid value '-1' (expected a number above 0"),
            (["--dry-run", "--max-operand-gib", "0"], "--max-operand-gib: invalid value '0'"),
            (["--dry-run", "--small-share", "1.5"], "--small-share: invalid value '1.5' (expected a number from 0"),
            (["--dry-run", "--k-tail-share", "nan"], "--k-tail-share: invalid value 'nan'"),
            (["--dry-run", "--n-aligned-share", "-0.1"], "--n-aligned-share: invalid value '-0.1'"),
            (["--dry-run", "--seed", "abc"], "--seed: invalid value 'abc' (expected an integer from 0 to"),
            (["--dry-run", "--seed", "-1"], "--seed: invalid value '-1' (expected an integer from 0 to"),
            (["--dry-run", "--labs", "12"], "--labs: invalid value '12' (expected 07, 11 or 07,11)"),
            (["--dry-run", "--rounds", "1"], "--rounds: invalid value '1' (expected an integer from 2"),
            (["--dry-run", "--round-ms", "0"], "--round-ms: invalid value '0' (expected a number from 0.01"),
            (
                ["--dry-run", "--rounds", "3", "--min-rounds", "4"],
                "--min-rounds: invalid value '4' (more than --rounds 3)",
            ),
            (["--dry-run", "--bogus"], "unknown flag '--bogus'"),
            (["--dry-run", "somewhere"], "--dry-run runs nothing: unexpected 'somewhere'"),
            (["build"], "expected BUILD_DIR OUT_DIR"),
            (["/nonexistent/build", "out"], "BUILD_DIR: '/nonexistent/build' has no labs/gemm_random_shapes"),
            (["--summarize", "/nonexistent"], "OUT_DIR: '/nonexistent' holds no readable gemm_random_shapes_draw.json"),
            (["--summarize", "--count", "5", "out"], "--summarize reads the draw from OUT_DIR's files: --count"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                done = run_script(*args)
                self.assertEqual(done.returncode, 2, done.stderr)
                self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
                self.assertTrue(done.stderr.startswith(f"gemm-random-shapes: {message}"), done.stderr)
                self.assertEqual(done.stdout, "")

    def test_a_whole_run_through_a_stand_in_program(self):
        with tempfile.TemporaryDirectory() as scratch:
            build, out, log = Path(scratch) / "build", Path(scratch) / "out", Path(scratch) / "program.log"
            (build / "labs").mkdir(parents=True)
            program = build / "labs" / "gemm_random_shapes"
            program.write_text(FAKE_PROGRAM.format(python=sys.executable))
            program.chmod(0o755)
            env = {"FAKE_LOG": str(log), "PATH": "/usr/bin:/bin", "PYTHONPATH": ""}
            done = run_script(
                "--seed", "5", "--count", "100", "--rounds", "9", str(build), str(out), "--", "--extra", "1", env=env
            )
            self.assertEqual(done.returncode, 0, done.stderr + done.stdout)
            calls = log.read_text().splitlines()
            self.assertEqual(len(calls), 1, "both labs in one process")
            shapes = random_shapes.draw(Distribution(count=100), 5)[0]
            argv = calls[0].split()
            self.assertTrue(argv[0].endswith("labs/gemm_random_shapes"))
            self.assertEqual(argv[argv.index("--shapes") + 1], random_shapes.shapes_argument(shapes))
            self.assertEqual(argv[argv.index("--labs") + 1], "07,11")
            self.assertEqual(argv[argv.index("--seed") + 1], "5")
            self.assertEqual(argv[argv.index("--rounds") + 1], "9")
            self.assertEqual(argv[argv.index("--min-rounds") + 1], "3")
            self.assertEqual(argv[argv.index("--round-ms") + 1], "5")
            self.assertEqual(argv[argv.index("--shape-ms") + 1], "400")
            self.assertEqual(argv[argv.index("--output") + 1], str(out / random_shapes.TIMES_FILE))
            self.assertEqual(argv[-2:], ["--extra", "1"])
            summary = json.loads((out / "gemm_random_shapes_fake-gpu-80gb.json").read_text())
            self.assertEqual(summary["context"]["seed"], 5)
            self.assertIn("--seed 5 --count 100", summary["context"]["command"])
            self.assertEqual(summary["context"]["gpu_seconds"], 12.5)
            self.assertEqual(summary["distribution"]["k_tail_share"], 0.3)
            self.assertEqual(sorted(summary["labs"]), ["07", "11"])
            for part in summary["labs"].values():
                self.assertEqual(part["measured"], 100)
                self.assertAlmostEqual(part["geomean"], 1.02)
                self.assertEqual(part["verdict"], "met")
            self.assertTrue((out / "gemm_random_shapes_fake-gpu-80gb.txt").read_text().startswith("gemm-random-shapes"))
            self.assertIn("timed 200 entries", (out / random_shapes.LOG_FILE).read_text())
            # The summary again from the files alone.
            again = run_script("--summarize", str(out), env=env)
            self.assertEqual(again.returncode, 0, again.stderr)
            self.assertIn("goals: met", again.stdout)
            # One lab only.
            alone = run_script(
                "--seed", "5", "--count", "100", "--labs", "11", str(build), str(Path(scratch) / "11"), env=env
            )
            self.assertEqual(alone.returncode, 0, alone.stderr)
            self.assertIn("--labs 11 ", log.read_text().splitlines()[-1])
            self.assertIn("lab 07: not run", alone.stdout)
            # A check that fails: the script says so and exits non-zero, with the other lab summarized.
            failed = run_script("--seed", "6", str(build), str(Path(scratch) / "failed"), env=dict(env, FAKE_FAIL="11"))
            self.assertEqual(failed.returncode, 1)
            self.assertIn("the timing program exited with 1", failed.stderr)
            self.assertIn("lab 07 (FP32", failed.stdout)
            self.assertIn("FAIL: 2 elements never written", failed.stdout)


if __name__ == "__main__":
    unittest.main()
