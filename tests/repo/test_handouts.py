"""The handouts make the student predict: each has a blank "Predict first" table before its measured results,
and its answer key (the predictions and an answer per question) lives only in its solution's folder
(solutions/NN_name/answers.md). And they read well wherever a student opens them: each labs/NN_name/README.md
is rendered from its source (docs/handouts/NN_name.md) and the records, holds no placeholder, and is current
(make handouts).
The pages a README links read as well (rendered from docs/page_sources/ where they need it), and one text
serves both editions: the instructors' and the student release's (editions.py).
The DCGAN's per-layer tables put each layer against its floor: that arithmetic is checked on a synthetic record."""
import json
import re
import tempfile
import unittest
from pathlib import Path

from cudalabs.docs import dcgan_tables, editions, handouts
from cudalabs.labs import core_labs, declared_labs
from cudalabs.paths import ANSWER_KEY, GRADING_POLICY, RUBRIC_IN_SUITE, answer_key
from cudalabs.docs.render import Renderer
from cudalabs.records import labdata
from cudalabs.records.benchmark import Record

REPO = Path(__file__).resolve().parents[2]
LABS = [REPO / "labs" / lab.folder for lab in declared_labs(REPO)]


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
                self.assertNotRegex(text, r"(?m)^Prediction: |Predicted order", "a prediction made for the student")

    def test_nothing_the_student_reads_first_answers_a_prediction(self):
        """What a prediction table asks (a bank conflict's ways, a kernel's registers) is not given away
        before "Measured": neither by the handout's text nor by the lab's given files (lab.h, launch.cuh,
        the skeleton's comments, which the driver's --list also prints)."""
        answers = {
            "conflict": re.compile(r"\b\d+-way\b|conflict-free|conflict free|no bank conflicts", re.I),
            "register": re.compile(r"\b\d+ registers\b|registers per thread: \d+|~\s*\d+ registers", re.I),
        }
        for lab in LABS:
            text = (lab / "README.md").read_text()
            predict = section(text, "Predict first")
            header = next((line for line in predict.splitlines() if line.startswith("|")), "").lower()
            # The text before "Measured", less the prediction's own table (whose header asks the question).
            before = text[: text.index("## Measured")].replace(predict, "")
            given = [lab / "kernels.cu", *sorted(lab.glob("*.h")), *sorted(lab.glob("*.cuh"))]
            for asked, answer in answers.items():
                if asked not in header:
                    continue
                with self.subTest(lab=lab.name, asks=asked):
                    self.assertEqual(answer.findall(before), [], "the handout answers it before 'Measured'")
                    for path in given:
                        self.assertEqual(answer.findall(path.read_text()), [], f"{path.name} answers it")

    @unittest.skipUnless((REPO / "solutions").is_dir(), "a student release carries no answer keys")
    def test_every_question_and_prediction_has_an_answer(self):
        for lab in LABS:
            answers = REPO / answer_key(lab.name)
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
            self.assertNotIn(answer_key(lab.name).as_posix(), (lab / "README.md").read_text())
            self.assertNotIn(ANSWER_KEY, (lab / "README.md").read_text())


class PredictionsKeptOpenTest(unittest.TestCase):
    """No measured answer stands above or beside an open "Predict first" table: every figure of the lab's
    own records is folded behind "open after you have filled in Predict first" (predictions.py)."""

    def test_no_handout_or_front_page_shows_a_measured_answer_open(self):
        from cudalabs.docs import predictions

        self.assertEqual(predictions.problems(REPO), [])
        names = [name for name, _, _ in predictions.pages(REPO)]
        self.assertIn("the progression table (labs/NN_name/lab.json)", names)
        self.assertIn("docs/pages/mainpage.md", names)
        self.assertGreaterEqual(len(names), len(LABS) + 2)

    def test_the_rule_finds_an_open_answer_and_passes_a_folded_one(self):
        from cudalabs.docs import predictions

        fold = "<details>\n<summary>Measured: " + predictions.FOLD_SUMMARY + "</summary>\n\n{body}\n\n</details>"
        hint = "<details>\n<summary>Hint 1, a nudge</summary>\n\n{body}\n\n</details>"
        cases = {
            "{{ms:rt_2d}} ms": 1,  # this lab's record, open
            fold.format(body="{{ms:rt_2d}} ms, {{metric:rt_2d:launch__registers_per_thread:count}}"): 0,
            hint.format(body="{{gflops:rt_2d}}"): 1,  # a hint is no prediction's fold
            "lab 02's {{calc:gflops(tiled_coalesced#02):f0}} GFLOP/s": 0,  # an earlier lab: the student's own past
            "{{calc:gflops(rt_2d)/gflops(tiled_coalesced#02):x1}}": 1,  # one term of this lab is enough
            "{{ceiling:fma}}": 0,  # lab 00's, on lab 05's page
            "{{const:132}} SMs, {{quote:94.7 %}}, {{effort:hours}}, {{pending:results/x}}": 0,
            "{{plot:lab05_tiles.svg}}": 0,  # drawn from the code's constants
            "{{plot:lab05_variants.svg}} {{plot:gemm_sweep.svg}}": 2,  # measured
            "{{lab:07}}{{gflops:best}}": 1,  # a later lab named by {{lab:NN}}
            "```\n{{ms:rt_2d}}\n```": 1,  # a code block hides nothing from a reader
            "{{record:logs/lab04_x.txt:1.5}} {{record:logs/lab05_x.txt:1.5}}": 1,
        }
        for text, expected in cases.items():
            with self.subTest(text=text):
                self.assertEqual(len(predictions.open_answers(text, "05")), expected)

    def test_the_front_table_gives_no_lab_away(self):
        from cudalabs.docs import predictions

        self.assertEqual(len(predictions.open_answers("| 07 | {{fastest_pct:07}} |", "00")), 1)
        readme = (REPO / "README.md").read_text()
        table = readme.split(handouts.BEGIN, 1)[1].split(handouts.END, 1)[0]
        self.assertNotRegex(table, r"GFLOP/s|% of cuBLAS|images/s|GB/s", "a measured result in the README's table")
        for lab in LABS:
            self.assertIn(f"({lab.relative_to(REPO).as_posix()}/README.md)", table, "every lab in the table")


class OneRecordPerClaimTest(unittest.TestCase):
    """A lab's pages quote each variant's timing at a problem, on a device and a commit, from one record
    (claims.py), with one definition of % of cuBLAS, and counts of instructions from the SASS record."""

    def test_every_claim_of_a_labs_pages_comes_from_one_record(self):
        from cudalabs.docs import claims

        self.assertEqual(claims.problems(REPO), [])

    def test_a_claim_drawn_from_two_records_of_one_commit_is_found(self):
        from cudalabs.docs import claims

        with tempfile.TemporaryDirectory() as scratch:
            data = Path(scratch) / "docs" / "data"
            (data / "results").mkdir(parents=True)
            context = {"device": "Test GPU", "date": "2030-01-02", "git_commit": "abc1234"}
            for name, rate in (("lab07", 100.0), ("lab07_shapes", 104.0), ("lab07_sweep", 90.0)):
                commit = {**context, "git_commit": "0ld0ld0" if name == "lab07_sweep" else "abc1234"}
                benchmarks = [
                    median("cublas/4096x4096x4096", gflops=100.0),
                    median("lab07/best/4096x4096x4096", gflops=rate),
                ]
                (data / "results" / f"{name}_x.json").write_text(
                    json.dumps({"context": commit, "benchmarks": benchmarks})
                )
            found = claims.Claims(data, "x")
            found.read("{{pct:best}} and {{calc:pct(best@4096x4096x4096&results/lab07_shapes):f1}}", "07", "page")
            self.assertEqual(len(found.conflicts()), 1)
            self.assertIn("best at 4096x4096x4096", found.conflicts()[0])
            calm = claims.Claims(data, "x")
            calm.read(
                "{{pct:best}}; then {{calc:pct(best@4096x4096x4096&results/lab07_sweep):f1}} (an older commit), "
                "{{calc:pct(best@4096x4096x4096&history/lab07_v1):f1}} (history), and the relation "
                "{{calc:gflops(best@4096x4096x4096&results/lab07_shapes)/gflops(best):x2}}",
                "07",
                "page",
            )
            self.assertEqual(calm.conflicts(), [])

    def test_one_definition_of_the_share_of_cublas_and_of_the_default_problem(self):
        renderer = Renderer(REPO / "docs" / "data", "nvidia-h100-80gb-hbm3", "11")
        with self.assertRaisesRegex(KeyError, "pct_cublas"):
            renderer.render("{{calc:counter(best@4096x4096x4096,pct_cublas):f1}}")
        # Lab 11's record lists 8192^3 first (interleaved repetitions): a figure naming no problem means 4096^3.
        results = renderer.data().results
        self.assertEqual(results.problems()[0], "8192x8192x8192")
        self.assertEqual(renderer.render("{{pct:best}}"), renderer.render("{{pct:best@4096x4096x4096}}"))

    def test_instruction_counts_come_from_the_sass_record(self):
        renderer = Renderer(REPO / "docs" / "data", "nvidia-h100-80gb-hbm3", "05")
        ffma = renderer.render("{{sass:lab05_sass_sm90:register_tiled_kernelILi128ELi128:FFMA}}")
        text = (REPO / "docs" / "data" / "profiles" / "lab05_sass_sm90.csv").read_text()
        self.assertIn(f"ILi128ELi128ELi8ELi8ELi8EEEvN8cudalabs8GemmArgsE,FFMA,{ffma}", text)
        with self.assertRaisesRegex(KeyError, "matches 2 kernels"):
            renderer.render("{{sass:lab05_sass_sm90:register_tiled_kernel:FFMA}}")


class RenderedHandoutTest(unittest.TestCase):
    def test_every_lab_has_a_source_and_a_rendered_handout(self):
        for lab in LABS:
            with self.subTest(lab=lab.name):
                self.assertTrue((REPO / "docs" / "handouts" / f"{lab.name}.md").is_file(), "no handout source")
                self.assertTrue((lab / "README.md").is_file(), "no rendered README.md (make handouts)")

    def test_no_placeholder_or_doxygen_markup_is_left_in_a_readme(self):
        for path in [lab / "README.md" for lab in LABS] + [REPO / "README.md"]:
            text = path.read_text()
            with self.subTest(path=str(path.relative_to(REPO))):
                self.assertNotRegex(text, r"\{\{[^}]*\}\}", "a placeholder left over")
                self.assertNotRegex(text, r"(?m)^#{1,6} .*\{#[\w-]+\}\s*$", "a Doxygen heading anchor")
                self.assertNotRegex(text, r"(?<![\w`])\\(?:ref|snippet|page|dot)\b", "a Doxygen command")

    def test_the_readmes_are_current(self):
        problems = handouts.stale(REPO)
        self.assertEqual(problems, [], "run make handouts (scripts/render-handouts) and commit the result")

    def test_every_link_and_picture_of_a_readme_exists(self):
        for path in [lab / "README.md" for lab in LABS] + [REPO / "README.md"]:
            for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                with self.subTest(path=str(path.relative_to(REPO)), target=target):
                    self.assertTrue((path.parent / target.split("#")[0]).exists())

    def test_a_sources_cross_references_become_links_in_the_readme(self):
        source = REPO / "docs" / "handouts" / f"{LABS[5].name}.md"
        text = handouts.render_markdown(
            REPO,
            'See \\ref lab06 and \\ref results "the results", \\ref nowhere.\n' "```\n\\ref lab06\n```\n",
            LABS[5].name[:2],
            source,
            LABS[5] / "README.md",
        )
        self.assertIn(f"[lab06](../{LABS[6].name}/README.md)", text)
        self.assertIn("[the results](../../docs/pages/results.md)", text)
        self.assertIn("\\ref nowhere", text)  # unknown: left for the test above to name
        self.assertIn("```\n\\ref lab06\n```", text)

    def test_the_check_sees_a_stale_readme_and_a_stale_record(self):
        """A copy of the suite where one source changed and one record changed: both READMEs are named."""
        import shutil
        import tempfile

        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch) / "suite"
            # What the handouts and pages render from; the instructor's edition's guide reads the solutions and
            # the rubric and links the answer keys (a student release has none of them, and renders its own edition).
            parts = ["labs", "docs/handouts", "docs/data", "docs/pages", "docs/page_sources", "README.md"]
            for part in parts + ["solutions", GRADING_POLICY.as_posix(), "tests/grading"]:
                source = REPO / part
                if source.exists():
                    (shutil.copytree if source.is_dir() else shutil.copy)(source, copy / part)
            self.assertEqual(handouts.stale(copy), [])
            source = copy / "docs" / "handouts" / f"{LABS[1].name}.md"
            source.write_text(source.read_text() + "\nOne more line.\n")
            record = copy / "docs" / "data" / "results" / "lab05_nvidia-h100-80gb-hbm3.json"
            record.write_text(record.read_text().replace('"gflops": 3', '"gflops": 4'))
            named = " ".join(handouts.stale(copy))
            self.assertIn(f"labs/{LABS[1].name}/README.md", named)
            self.assertIn(f"labs/{LABS[5].name}/README.md", named)
            self.assertNotIn(f"labs/{LABS[2].name}/README.md", named)


# What a Git host would show as markup rather than render: a placeholder, an edition mark, a Doxygen command.
SHOWN_MARKUP = {
    "a placeholder": re.compile(r"\{\{[^}]*\}\}"),
    "an edition mark": re.compile(r"<!--/?(?:instructors|students)\b"),
    "a Doxygen command": re.compile(r"(?<![\w`])\\(?:ref|snippet|page|dot|enddot|htmlonly)\b"),
}


def shown_markup(text: str) -> list[str]:
    return [what for what, pattern in SHOWN_MARKUP.items() if pattern.search(text)]


class LinkedPageTest(unittest.TestCase):
    """Every page a reader reaches from the README or a handout (links and named paths, followed from page
    to page) reads as well on a Git host as the handouts: no placeholder, edition mark or Doxygen command,
    never a source, every link there. In the instructors' copy and, through its own make test, the release."""

    def test_the_pages_a_readme_links_show_no_markup(self):
        pages = handouts.linked_pages(REPO)
        names = {str(p.relative_to(REPO)) for p in pages}
        self.assertTrue({"docs/pages/architecture.md", "docs/pages/without_a_gpu.md"} <= names, names)
        for page in pages:
            text = page.read_text()
            with self.subTest(page=str(page.relative_to(REPO))):
                self.assertEqual(shown_markup(text), [])
                self.assertFalse(page.is_relative_to(REPO / "docs" / "page_sources"), "a reader lands on a source")
                self.assertFalse(page.is_relative_to(REPO / "docs" / "handouts"), "a reader lands on a source")
                for target in re.findall(r"\]\(([^)\s]+)\)", text):
                    if not re.match(r"^[a-z]+:", target) and not target.startswith("#"):
                        self.assertTrue((page.parent / target.split("#")[0]).exists(), target)

    def test_every_page_source_is_rendered(self):
        sources = sorted((REPO / "docs" / "page_sources").glob("*.md"))
        self.assertGreaterEqual(len(sources), 3)
        for source in sources:
            with self.subTest(source=source.name):
                self.assertTrue((REPO / "docs" / "pages" / source.name).is_file(), "not rendered: make handouts")

    def test_the_crawl_finds_a_planted_page_and_its_placeholder(self):
        """The control: a copy whose README names a new page, which links one more with a placeholder."""
        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch)
            (copy / "labs").mkdir()
            (copy / "docs" / "pages").mkdir(parents=True)
            (copy / "README.md").write_text("See docs/pages/first.md.\n")
            (copy / "docs" / "pages" / "first.md").write_text("The [second](second.md#part) page.\n")
            (copy / "docs" / "pages" / "second.md").write_text("Measured: {{gflops:best}}.\n")
            (copy / "docs" / "pages" / "unlinked.md").write_text("{{gflops:best}}\n")
            pages = handouts.linked_pages(copy)
            self.assertEqual([p.name for p in pages], ["first.md", "second.md"])
            self.assertEqual(shown_markup(pages[1].read_text()), ["a placeholder"])
        self.assertEqual(shown_markup("<!--students:x--> and \\ref lab01"), ["an edition mark", "a Doxygen command"])


class EditionsTest(unittest.TestCase):
    """One text, two editions: what holds only in the instructors' copy or only in the student release is
    marked once (editions.py), and each copy renders its own edition."""

    TEXT = (
        "Run <!--instructors-->the solution<!--/instructors--><!--students:your lab-->.\n\n"
        "```\nmake lab\n<!--instructors-->\nmake solution\n<!--/instructors-->\n<!--students:\n# compare\n-->\n```\n\n"
        "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n"
        "<!--instructors-->\n\n## For instructors\n\nText.\n\n<!--/instructors-->\n\nEnd.\n"
    )

    def test_each_edition_gets_its_parts_and_no_blank_line_is_doubled(self):
        self.assertEqual(
            editions.resolve(self.TEXT, editions.INSTRUCTORS),
            "Run the solution.\n\n```\nmake lab\nmake solution\n```\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n"
            "## For instructors\n\nText.\n\nEnd.\n",
        )
        self.assertEqual(
            editions.resolve(self.TEXT, editions.STUDENTS),
            "Run your lab.\n\n```\nmake lab\n# compare\n```\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\nEnd.\n",
        )

    def test_a_marker_without_its_partner_is_named(self):
        for text in ("a <!--instructors-->b\n", "<!--/instructors--> a\n", "a <!--students:b\n"):
            with self.subTest(text=text), self.assertRaisesRegex(ValueError, "without its partner on line 1"):
                editions.resolve(text, editions.STUDENTS, "t")
        with self.assertRaisesRegex(ValueError, "is not"):
            editions.resolve("a", "teachers")

    def test_this_copy_is_the_edition_its_files_say(self):
        self.assertEqual(
            editions.of(REPO), editions.INSTRUCTORS if (REPO / "solutions").is_dir() else editions.STUDENTS
        )

    def test_the_readmes_marks_are_safe_on_a_git_host(self):
        """The main README keeps its marks as HTML comments: a student part must not hold "--" (GitHub's markdown
        stops seeing a comment there), and an inline mark must not open a line (a line that opens with a
        comment is a block of raw HTML, its text shown unrendered); both editions must resolve."""
        text = (REPO / "README.md").read_text()
        for edition in (editions.INSTRUCTORS, editions.STUDENTS):
            editions.resolve(text, edition, "README.md")
        for part in editions.student_parts(text):
            self.assertNotIn("--", part)
        blocks = {"<!--instructors-->", "<!--/instructors-->", "<!--students:", "-->"}
        mark, fenced = SHOWN_MARKUP["an edition mark"], False
        for number, line in enumerate(text.splitlines(), start=1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            if re.match(r"\s*<!--/?(?:instructors|students)", line):
                self.assertIn(line.strip(), blocks, f"README.md:{number}: an inline edition mark opens the line")
            # Code shows a comment as text: a mark inside a code block or an inline code span would be seen.
            shown = [line] if fenced else re.findall(r"`[^`]*`", line)
            self.assertFalse(any(mark.search(code) for code in shown), f"README.md:{number}: a mark inside code")


def median(name, **counters):
    return {
        "name": f"{name}_median",
        "run_name": name,
        "run_type": "aggregate",
        "aggregate_name": "median",
        "repetitions": 5,
        "real_time": 1.0,
        **counters,
    }


class LayerFloorTest(unittest.TestCase):
    """Each DCGAN layer against its floor (dcgan_tables): the arithmetic, the layer sizes against the records'
    FLOP counts, and the tables and calc terms drawn from a small synthetic suite of records."""

    DEVICE = "test-gpu"
    FLOPS = (2e9, 4e9, 4e9, 4e9, 2e6)  # per layer, for the synthetic records' batch of 2
    MS = (8.0, 4.0, 4.0, 4.0, 0.037966)

    def test_the_floor_arithmetic(self):
        compute = dcgan_tables.floor(2e12, 3e9, 4.0, 1e15, 3e12)  # 2 ms of arithmetic, 1 ms of bytes
        self.assertAlmostEqual(compute["compute_ms"], 2.0)
        self.assertAlmostEqual(compute["memory_ms"], 1.0)
        self.assertEqual(compute["bound"], "compute")
        self.assertAlmostEqual(compute["reached"], 0.5)
        memory = dcgan_tables.floor(1e12, 6e9, 8.0, 1e15, 3e12)  # 1 ms against 2 ms
        self.assertEqual(memory["bound"], "memory")
        self.assertAlmostEqual(memory["reached"], 0.25)
        unknown = dcgan_tables.floor(1e12, 6e9, 8.0, None, 3e12)  # no recorded ceiling: the bytes only
        self.assertIsNone(unknown["compute_ms"])
        self.assertIsNone(unknown["bound"])
        self.assertFalse(unknown["complete"])
        self.assertAlmostEqual(unknown["reached"], 0.25)

    def test_the_minimum_bytes_of_a_layer(self):
        # The RGB layer, 2 images in BF16: 32 x 32 x 64 BF16 inputs, 5 x 5 x 3 x 64 FP32 filter, 3 FP32 biases,
        # 64 x 64 x 3 FP32 outputs.
        rgb = 2 * 32 * 32 * 64 * 2 + 25 * 3 * 64 * 4 + 3 * 4 + 2 * 64 * 64 * 3 * 4
        self.assertEqual(dcgan_tables.minimum_bytes(4, 2, (2, 4, 4)), rgb)
        # The linear layer in FP32: latents, weight, a scale and a shift per output, outputs.
        linear = 2 * 100 * 4 + 100 * 8192 * 4 + 2 * 8192 * 4 + 2 * 8192 * 4
        self.assertEqual(dcgan_tables.minimum_bytes(0, 2, (4, 4, 4)), linear)

    def test_the_layer_sizes_give_the_records_flop_counts(self):
        """The sizes the bytes are counted from are the code's: their FLOPs are the records' (GFLOP/s x ms)."""
        records = sorted((REPO / "docs" / "data" / "results").glob("lab11_dcgan_*.json"))
        records += sorted((REPO / "docs" / "data" / "results").glob("lab09_nvidia-*.json"))
        self.assertTrue(records, "no lab 09 or lab 11 DCGAN record")
        for path in records:
            for name, table in Record.load(path).layers.items():
                for layer, (ms, gflops) in enumerate(zip(table["ms"], table["gflops"])):
                    with self.subTest(record=path.name, run=name, layer=layer):
                        ours = dcgan_tables.useful_flops(layer, table["batch"])
                        self.assertAlmostEqual(gflops * ms * 1e6 / ours, 1.0, delta=1e-5)

    def synthetic_records(self, data, lab11_date="2026-11-24T00:00:00+00:00"):
        """lab 00's FMA (1 TFLOP/s) and copy (100 GB/s) ceilings, a wgmma ceiling of 2 TFLOP/s, and the three
        generators' layers at batch 2 (FLOPS in MS), in the layout the docs read; the generators' record dated
        `lab11_date` (by default before the linear and TF32 RGB layers went onto tensor cores)."""
        (data / "results").mkdir(parents=True)
        (data / "logs").mkdir()
        context = {"device": "Test GPU", "date": "2030-01-02T00:00:00+00:00", "git_commit": "abc1234def"}
        lab00 = [
            median("lab00/fma/1x1", gflops=1000.0),
            median("lab00/copy/1MiB", gbytes_per_s=100.0),
            median("reference/cudaMemcpy/1MiB", gbytes_per_s=50.0),
        ]
        (data / "results" / f"lab00_{self.DEVICE}.json").write_text(
            json.dumps({"context": context, "benchmarks": lab00})
        )
        (data / "logs" / f"lab11_ceiling_{self.DEVICE}.txt").write_text(
            "# Test (x1), 2030-01-03, commit 7654321\nlab11_ceiling: Test GPU (sm_90, 1 SMs)\n"
            "mma.sync m16n8k16      1.0  PASS\nwgmma m64n256k16        2.0  PASS\n"
        )
        table = {
            "batch": 2,
            "ms": list(self.MS),
            "gflops": [f / m / 1e6 for f, m in zip(self.FLOPS, self.MS)],
            "methods": "subpixel,subpixel,subpixel,subpixel",
        }
        pytorch = {"winner": "eager", "torch": "0.0", "cudnn": "0", "configurations_images_per_s": {}}
        lab11 = {
            "context": {**context, "date": lab11_date, "pytorch_bf16": pytorch, "pytorch_tf32": pytorch},
            "benchmarks": [],
            "layers": {f"{v}/b2": table for v in ("dcgan_bf16", "dcgan_tf32", "subpixel")},
        }
        (data / "results" / f"lab11_dcgan_{self.DEVICE}.json").write_text(json.dumps(lab11))
        (data / "results" / f"lab09_{self.DEVICE}.json").write_text(
            json.dumps({"context": context, "benchmarks": [], "layers": {"subpixel/b2": table}})
        )

    def test_a_synthetic_record_against_its_floors(self):
        with tempfile.TemporaryDirectory() as scratch:
            data = Path(scratch) / "docs" / "data"
            self.synthetic_records(data)
            text = dcgan_tables.tensor_core_layers(data, self.DEVICE, "2")
            rows = text.splitlines()
            # Linear, FP32: 2 GFLOP at 1 TFLOP/s is 2 ms of the 8 measured; its 3,375,904 bytes 0.034 ms.
            self.assertIn(
                "| linear + bn0 + ReLU | `dcgan_bf16` | FP32 (FFMA) | 8.000 | 250 | 2.000 | 0.034 | "
                "compute | 25 % |",
                rows,
            )
            # tconv1 in BF16: 4 GFLOP at wgmma's 2 TFLOP/s, 2 ms of 4; in TF32 no compute floor, the bytes only;
            # in FP32 4 ms of 4.
            self.assertIn(
                "| tconv1 4x4x512 -> 8x8x256 | `dcgan_bf16` | BF16 (tensor cores) | 4.000 | 1,000 | "
                "2.000 | 0.067 | compute | 50 % |",
                rows,
            )
            self.assertIn(
                "|  | `dcgan_tf32` | TF32 (tensor cores) | 4.000 | 1,000 | - | 0.133 | - | " "at least 3.3 % |", rows
            )
            self.assertIn("|  | `subpixel` | FP32 (FFMA) | 4.000 | 1,000 | 4.000 | 0.133 | compute | 100 % |", rows)
            # The RGB layer in BF16: 379,660 bytes at 100 GB/s, a tenth of its time.
            self.assertIn(
                "| tconv4 -> 64x64x3 + tanh | `dcgan_bf16` | BF16 (tensor cores) | 0.038 | 53 | 0.001 | "
                "0.004 | memory | 10 % |",
                rows,
            )
            # All layers: the floors summed; 8.0038 ms of larger floors in 20.038 (TF32: 2.19 ms known).
            self.assertIn("| all layers | `dcgan_bf16` | | 20.038 | 699 | 8.001 | 0.130 | | 40 % |", rows)
            self.assertIn("|  | `dcgan_tf32` | | 20.038 | 699 | - | 0.226 | | at least 11 % |", rows)
            for source in (
                "1.0 TFLOP/s",
                "100 GB/s",
                "Test GPU, 2030-01-02, commit `abc1234`",
                "2.0 TFLOP/s (Test GPU, 2030-01-03, commit `7654321`",
                "TF32: no record measures",
            ):
                self.assertIn(source, text)
            lab09 = dcgan_tables.layers(data, self.DEVICE, "2")
            # Layers across, variants down; the floors on rows of their own, each layer's kernel in a second table.
            self.assertIn("| compute floor, ms | 2.000 | 4.000 | 4.000 | 4.000 | 0.002 |", lab09)
            self.assertIn("| memory floor, ms | 0.034 | 0.133 | 0.037 | 0.016 | 0.006 |", lab09)
            self.assertIn("| `subpixel` | 8.000 ms (250 GFLOP/s; 25 %) | 4.000 ms (1,000 GFLOP/s; 100 %) |", lab09)
            self.assertIn("| `subpixel` | `subpixel` | `subpixel` | `subpixel` | `subpixel` |", lab09)
            self.assertNotIn("Methods per layer:", lab09)
            self.assertNotIn("TF32", lab09)

            renderer = Renderer(data, self.DEVICE, "11", mode="readme")
            v = "dcgan_bf16@b2&results/lab11_dcgan"
            self.assertEqual(renderer.render(f"{{{{calc:100*floor({v},1)/layer({v},1):pct0}}}}"), "50 %")
            self.assertEqual(renderer.render(f"{{{{calc:memory_floor({v},4):f3}}}}"), "0.004")
            self.assertEqual(renderer.render(f"{{{{calc:layer({v},4)/memory_floor({v},4):x1}}}}"), "10.0x")
            with self.assertRaises(KeyError):  # no TF32 ceiling: no compute floor to quote
                renderer.render("{{calc:floor(dcgan_tf32@b2&results/lab11_dcgan,1):f3}}")

    def test_a_tf32_row_gives_tf32_layers_a_compute_floor(self):
        with tempfile.TemporaryDirectory() as scratch:
            data = Path(scratch) / "docs" / "data"
            self.synthetic_records(data)
            log = data / "logs" / f"lab11_ceiling_{self.DEVICE}.txt"
            log.write_text(log.read_text() + "wgmma m64n256k8 (TF32)  0.5  PASS\n")
            self.assertEqual(labdata.tensor_ceiling(data, self.DEVICE), 2.0e3)
            self.assertEqual(labdata.tensor_ceiling(data, self.DEVICE, "tf32"), 0.5e3)
            text = dcgan_tables.tensor_core_layers(data, self.DEVICE, "2")
            # tconv1 in TF32: 4 GFLOP at 0.5 TFLOP/s is an 8 ms floor, against the 4 ms this synthetic record says
            # it took: 200 % (a time under its floor reads over 100 %).
            self.assertIn(
                "|  | `dcgan_tf32` | TF32 (tensor cores) | 4.000 | 1,000 | 8.000 | 0.133 | compute | 200 % |",
                text.splitlines(),
            )
            self.assertIn("0.5 TFLOP/s (Test GPU, 2030-01-03, commit `7654321`", text)
            self.assertNotIn("TF32: no record measures", text)
            # A log without the row (the H100's of 2026-11-24) still gives BF16's ceiling and no TF32 one.
            log.write_text(log.read_text().replace("wgmma m64n256k8 (TF32)  0.5  PASS\n", ""))
            self.assertIsNone(labdata.tensor_ceiling(data, self.DEVICE, "tf32"))

    def test_a_record_of_the_later_code_reads_the_layers_it_put_on_tensor_cores(self):
        # From 2026-11-30 the linear layer runs three TF32 products and the TF32 RGB layer TF32 tensor cores.
        with tempfile.TemporaryDirectory() as scratch:
            data = Path(scratch) / "docs" / "data"
            self.synthetic_records(data, lab11_date="2026-12-02T00:00:00+00:00")
            log = data / "logs" / f"lab11_ceiling_{self.DEVICE}.txt"
            log.write_text(log.read_text() + "wgmma m64n256k8 (TF32)  0.6  PASS\n")
            rows = dcgan_tables.tensor_core_layers(data, self.DEVICE, "2").splitlines()
            # Linear: 2 GFLOP at a third of 0.6 TFLOP/s is a 10 ms floor under the 8 measured: 125 %.
            self.assertIn(
                "| linear + bn0 + ReLU | `dcgan_bf16` | FP32 as 3 TF32 products (tensor cores) | 8.000 | 250 | "
                "10.000 | 0.034 | compute | 125 % |",
                rows,
            )
            # The TF32 RGB layer: 2 MFLOP at 0.6 TFLOP/s (0.003 ms) under its bytes' 0.006 ms.
            self.assertIn(
                "|  | `dcgan_tf32` | TF32 (tensor cores) | 0.038 | 53 | 0.003 | 0.006 | memory | 17 % |", rows
            )
            self.assertEqual(dcgan_tables.computes_in("subpixel", "2026-12-02"), ("fp32",) * 5)
            self.assertEqual(dcgan_tables.computes_in("dcgan_tf32", "2026-11-24T00:00")[4], "fp32")

    def test_fp32_against_pytorch_only_where_the_session_timed_pytorch_fp32(self):
        with tempfile.TemporaryDirectory() as scratch:
            data = Path(scratch) / "docs" / "data"
            self.synthetic_records(data)
            path = data / "results" / f"lab11_dcgan_{self.DEVICE}.json"
            lab11 = json.loads(path.read_text())

            def timed(name, ms, batch):
                return median(name, real_time=ms, images_per_s=batch / ms * 1000)

            for batch in (1024, 5248):  # ms at 1024, in proportion at 5248
                for stem, ms in (
                    ("lab11/dcgan_bf16", 1),
                    ("pytorch_bf16", 2),
                    ("lab11/dcgan_tf32", 2),
                    ("pytorch_tf32", 5),
                    ("lab09/subpixel", 8),
                ):
                    lab11["benchmarks"].append(timed(f"{stem}/b{batch}", ms * batch / 1024, batch))
            for p in ("bf16", "tf32"):
                lab11["benchmarks"].append(timed(f"pytorch_{p}/end_to_end/n5248", 100.0, 5248))
            path.write_text(json.dumps(lab11))
            rows = dcgan_tables.tensor_cores(data, self.DEVICE).splitlines()
            self.assertIn("| lab 09 `subpixel` (FP32) | 8.00 | 128,000 | - | 41.00 | 128,000 | - |", rows)
            self.assertNotIn("FP32, best configuration", "\n".join(rows))

            lab11["context"]["pytorch"] = {
                "winner": "default_compiled",
                "torch": "0.0",
                "cudnn": "0",
                "configurations_images_per_s": {"default_compiled": 51200.0},
            }
            for batch in (1024, 5248):
                lab11["benchmarks"].append(timed(f"pytorch/b{batch}", 20 * batch / 1024, batch))
            path.write_text(json.dumps(lab11))
            text = dcgan_tables.tensor_cores(data, self.DEVICE)
            self.assertIn("| lab 09 `subpixel` (FP32) | 8.00 | 128,000 | 2.50 | 41.00 | 128,000 | 2.50 |", text)
            self.assertIn(
                "| PyTorch, FP32, best configuration | 20.00 | 51,200 | 1.00 | 102.50 | 51,200 | 1.00 |", text
            )
            self.assertIn("FP32 `default_compiled`", text)
            self.assertIn(
                "| FP32 | `default_compiled` (the baseline) | 51,200 |", dcgan_tables.pytorch_configs(data, self.DEVICE)
            )


LADDER = ("nudge", "approach", "detail")


class CourseTest(unittest.TestCase):
    """Every handout opens with what the student will learn, what they need first and the time it
    takes, and ends with hints folded as a ladder (a nudge, the approach, a detail), none of them a
    whole kernel (DESIGN.md, Handouts)."""

    def test_every_handout_opens_with_goals_prerequisites_and_time(self):
        for lab in LABS:
            text = (lab / "README.md").read_text()
            opening = text[: text.index("\n## ")]
            with self.subTest(lab=lab.name):
                self.assertRegex(opening, r"\*\*You will learn:\*\*")
                self.assertRegex(opening, r"\*\*You need( first)?:\*\*")
                self.assertRegex(opening, r"\*\*Time:\*\* about \d+(-\d+)? hours?")

    def test_every_handout_has_a_folded_hint_ladder(self):
        for lab in LABS:
            hints = section((lab / "README.md").read_text(), "Hints")
            with self.subTest(lab=lab.name):
                self.assertTrue(hints, "no '## Hints' section")
                summaries = re.findall(r"<details>\s*<summary>(.*?)</summary>", hints)
                self.assertGreaterEqual(len(summaries), 3, "three folded hints at least")
                self.assertEqual(hints.count("<details>"), hints.count("</details>"))
                for level, summary in zip(LADDER, summaries):
                    self.assertIn(level, summary.lower(), "the ladder: a nudge, the approach, a detail")
                blocks = re.findall(r"```.*?```", hints, re.S)
                self.assertTrue(all(block.count("\n") <= 6 for block in blocks), "a hint gives no whole kernel")

    def test_every_handout_says_what_changes_on_the_students_gpu_without_invented_figures(self):
        """An "On your GPU" section in every handout: what differs on other architectures, with lab 00's
        measured ceilings as the student's own yardstick. A figure measured on a GPU comes from a record
        through a placeholder, so the section's source types none by hand (a rate, a time, a share)."""
        measured = re.compile(r"\d[\d.,]*\s*(?:[GT]?B/s|[GT]FLOP/s|images/s|ms\b|us\b|µs|%)")
        for lab in LABS:
            source = (REPO / "docs" / "handouts" / f"{lab.name}.md").read_text()
            with self.subTest(lab=lab.name):
                notes = section(source, "On your GPU")
                self.assertTrue(notes.strip(), "no '## On your GPU' section")
                self.assertIn("lab 00's two measured", notes)
                self.assertEqual(measured.findall(re.sub(r"\{\{.*?\}\}", "", notes)), [])
                self.assertTrue(section((lab / "README.md").read_text(), "On your GPU").strip())

    @unittest.skipUnless((REPO / "solutions").is_dir(), "a student release has no solutions to count")
    def test_every_core_fits_a_week_and_every_challenge_is_marked(self):
        """No lab's core asks for more than about 150 lines of solution code (the solution's lines that
        the skeleton lacks, before the challenge marker); a lab whose rubric has challenge variants
        marks where the challenge starts, in the skeleton and in the solution, and one without has no
        marker."""
        import json

        from cudalabs.docs import grading_tables

        rubric = json.loads((REPO / RUBRIC_IN_SUITE).read_text())["labs"]
        for lab in LABS:
            core, challenge = grading_tables.code_lines_to_write(REPO, lab.name)
            variants = rubric.get(lab.name[:2], {}).get("variants", {})
            has_challenge = any(v.get("challenge") for v in variants.values())
            skeleton = (lab / "kernels.cu").read_text()
            with self.subTest(lab=lab.name, core=core, challenge=challenge):
                self.assertLessEqual(core, 160, "the core is more than about 150 lines of solution code")
                self.assertEqual(grading_tables.CHALLENGE_MARKER in skeleton, has_challenge, "the skeleton's marker")
                self.assertEqual(challenge > 0, has_challenge, "the solution's challenge lines after its marker")

    def test_the_challenge_marker_splits_a_file(self):
        from cudalabs.docs import grading_tables

        core, challenge = grading_tables.split_at_challenge("a\nb\n// ---- The optional challenge: x\nc\n")
        self.assertEqual((core, challenge), ("a\nb", "// ---- The optional challenge: x\nc"))
        self.assertEqual(grading_tables.split_at_challenge("a\nb"), ("a\nb", ""))

    def test_a_quick_class_run_gives_only_its_solutions_seconds_and_says_how_it_timed(self):
        from cudalabs.docs import grading_tables

        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)
            run = repo / "docs" / "data" / grading_tables.QUICK_CLASS_RECORDS[0]
            run.mkdir(parents=True)
            (run / "environment.txt").write_text(
                "name, compute_cap, driver_version, clocks.max.sm [MHz]\n"
                + "NVIDIA H200, 9.0, 580.159.04, 1980 MHz\n" * 2
                + "32\nSat Nov 28\ncommit abc\n"
            )
            (run / "step_seconds.csv").write_text(
                "student,lab,seconds,per_student_seconds,build\n"
                "version_09,09,400.0,,3\nsolution_09,09,430.5,400.0,10\nsolution_09,11,0,,\n"
            )
            seconds = grading_tables.grading_seconds(repo)
        self.assertEqual(list(seconds), ["09"], "the solution of its own lab only")
        self.assertEqual(seconds["09"][0], 400.0, "what a class pays once is no student's time")
        self.assertIn("2 x NVIDIA H200, one timed pair per variant", seconds["09"][1])

    @unittest.skipUnless((REPO / "tests" / "grading" / "student_versions").is_dir(), "no student versions here")
    def test_the_hours_follow_from_the_evidence(self):
        """The labs' declared hours (lab.json's effort, what the handouts quote) stay within an hour of the
        model's, from the handout's words and the lines of the lab's student version."""
        from cudalabs.docs import grading_tables

        effort = grading_tables.read_effort(REPO)
        for lab in LABS:
            entry = effort.get(lab.name[:2], {})
            if not entry.get("student_version") or grading_tables.student_version_lines(REPO, lab.name) is None:
                continue
            words = grading_tables.handout_words(REPO, lab.name)
            lines = grading_tables.student_version_lines(REPO, lab.name)
            low, high = grading_tables.model_hours(words, lines)
            stated_low, stated_high = (int(h) for h in entry["hours"].split("-"))
            with self.subTest(lab=lab.name, model=f"{low}-{high}", stated=entry["hours"]):
                self.assertLessEqual(abs(stated_low - low), 1)
                self.assertLessEqual(abs(stated_high - high), 1)

    @unittest.skipUnless((REPO / "solutions").is_dir(), "a student release has no instructors' table of effort")
    def test_no_program_writing_time_is_shown_as_a_students(self):
        """The versions were written by a program: the effort record and the instructors' table give no
        writing time, and the guide says plainly that the hours are an estimate and how it is made."""
        from cudalabs.docs import grading_tables

        for lab in LABS:
            self.assertNotIn('"seconds"', (lab / "lab.json").read_text())
        table = grading_tables.lab_effort(REPO)
        self.assertNotRegex(table, r"time to write|\d+ s;|written in")
        guide = (REPO / "docs" / "pages" / "instructors.md").read_text()
        self.assertIn("every hour on this page and in the\nhandouts is an estimate", guide)
        self.assertIn("their writing time is not used", guide)


class SemesterTest(unittest.TestCase):
    """The instructors' fourteen weeks: every core lab (00-10 and 12) once, after what its handout says it
    needs first, no extension in it, and no week far heavier than a week holds."""

    def test_the_plan_holds_the_core_in_an_order_its_handouts_allow(self):
        from cudalabs.docs import grading_tables

        weeks = grading_tables.semester_weeks(REPO)
        self.assertEqual(len(weeks), 14)
        order = list(dict.fromkeys(lab for week in weeks for lab in week["labs"]))
        self.assertEqual(sorted(order), core_labs(REPO))
        for lab in LABS:
            number = lab.name[:2]
            if number not in order:
                continue
            needs = re.search(r"\*\*You need first:\*\*(.*?)(?=\n- \*\*|\n\n)", (lab / "README.md").read_text(), re.S)
            self.assertTrue(needs, f"lab {number}: no 'You need first' line")
            first_clause = needs.group(1).split(";")[0]
            for earlier in re.findall(r"\b(\d\d)\b", first_clause):
                with self.subTest(lab=number, needs=earlier):
                    self.assertLess(order.index(earlier), order.index(number), "a lab before what it needs")
        for week in weeks:
            with self.subTest(week=week["week"]):
                self.assertLessEqual(week["hours"][1], 12.5, "more than a slow student's week")
        self.assertFalse({"11", "13"} & set(order), "an extension in the core's weeks")
        self.assertIn("| 4 | 12 |", grading_tables.semester_plan(REPO), "lab 12's core right after lab 02")


if __name__ == "__main__":
    unittest.main()
