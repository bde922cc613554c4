"""The repository stands on its own: nothing refers to files outside it, nothing generated or local
sits at the top level, citations use the references page's keys, and the docs checks catch what they
are for."""
import importlib.util
import pathlib
import re
import subprocess
import sys
import unittest

from cudalabs.docs import check_markup, check_numbers, doxygen_text

REPO = pathlib.Path(__file__).resolve().parents[2]

# What the top level holds; anything else there is a stray log or local file.
TOP_LEVEL = {
    ".ci",
    ".clang-format",
    ".flake8",
    ".gitignore",
    "CMakeLists.txt",
    "Makefile",
    "README.md",
    "cmake",
    "common",
    "docs",
    "grader",
    "labs",
    "programs",
    "pyproject.toml",
    "python",
    "scripts",
    "solutions",
    "tests",
    "tools",
    "RELEASE.md",
}


# The grading policy's folder, or the one it left (tests/grading/), as code would spell it.
POLICY_SPELLING = re.compile(
    r"""grader(["']\)?\s*/\s*["']|/|["'],\s*["'])policy\b|grading(["']\s*/\s*["']|/)(rubric\.json|tests\b)"""
)


def tracked_files():
    """The project's files: what git tracks or would track (not ignored), as they are on disk. (A copy
    whose git index is older than its files, as on a lent GPU machine, still lists them right.)"""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted({REPO / name for name in listing.stdout.split("\0") if name and (REPO / name).is_file()})


def text_of(path):
    try:
        return path.read_text()
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        return ""


class RepositoryTest(unittest.TestCase):
    def test_nothing_refers_outside_the_repository(self):
        this = pathlib.Path(__file__).resolve()
        outside = [str(p.relative_to(REPO)) for p in tracked_files() if p != this and "../shared" in text_of(p)]
        self.assertEqual(outside, [])

    def test_top_level_holds_only_the_project(self):
        top = {p.relative_to(REPO).parts[0] for p in tracked_files()}
        self.assertEqual(sorted(top - TOP_LEVEL), [])

    def test_no_lab_includes_a_later_lab(self):
        # A lab builds on earlier labs only; the finished programs (programs/) compose later labs with
        # earlier ones. A lab's code that named a later lab would make its student program another
        # program than its solution's.
        include = re.compile(r'^\s*#\s*include\s*"labs/(\d\d)_', re.M)
        later = []
        for path in tracked_files():
            parts = path.relative_to(REPO).parts
            if len(parts) < 3 or parts[0] != "labs" or not re.match(r"\d\d_", parts[1]):
                continue
            if path.suffix not in (".h", ".cuh", ".cu", ".cpp"):
                continue
            for number in include.findall(text_of(path)):
                if number > parts[1][:2]:
                    later.append(f"{path.relative_to(REPO)} includes lab {number}")
        self.assertEqual(later, [])

    def test_no_header_asks_which_build_it_is_in(self):
        # A lab's given sources that do not ask compile once for both builds (cmake/CudaLabs.cmake looks
        # in the source itself): a header of labs/ or common/ that asked would hide the question there.
        asks = re.compile(r"CUDALABS_BUILD_|CUDALABS_EARLIER_LABS_OWN")
        headers = [
            str(path.relative_to(REPO))
            for path in tracked_files()
            if path.relative_to(REPO).parts[0] in ("labs", "common")
            and path.suffix in (".h", ".cuh")
            and asks.search(text_of(path))
        ]
        self.assertEqual(headers, [])

    def test_the_architecture_page_names_the_layout_as_it_is(self):
        """docs/pages/architecture.md is the maintainer's map: every path it names under a folder of the
        project exists (NN, <name> and * stand for any part; a path without a suffix may be a folder or
        a file's stem), and its layers table has a row for every folder that holds code."""
        page = (REPO / "docs" / "pages" / "architecture.md").read_text()
        files = {str(path.relative_to(REPO)) for path in tracked_files()}
        folders = {str(parent) for name in files for parent in pathlib.PurePosixPath(name).parents}
        present = {name.split("/")[0] for name in files}
        # Each edition renders its own page (a student release's names none of the instructor's files it
        # leaves out), so every path it names must be there, in either edition.
        missing = []
        for named in sorted(set(re.findall(r"`([A-Za-z_.][^`\s]*/[^`\s]*)`", page))):
            top = named.split("/")[0]
            if top not in TOP_LEVEL:
                continue  # not a path of the project (a record's name)
            pattern = re.escape(named.rstrip("/"))
            for wildcard in (r"NN_name", r"NN", r"\\\*", r"<[^>]*>"):  # re.escape left the * as \*
                pattern = re.sub(wildcard, "[^/]*", pattern)
            if not any(re.fullmatch(pattern + r"(\.[^/]+)?", name) for name in files | folders):
                missing.append(named)
        self.assertEqual(missing, [])
        rows = set(re.findall(r"^\| `([^`]+)/`", page, re.M))
        for folder in ("common", "labs/NN_*", "solutions/NN_*", "programs", "grader", "tests", "python/cudalabs"):
            if folder.split("/")[0] in present:
                self.assertIn(folder, rows, f"the layers table has no row for {folder}/")

    def test_the_grading_policy_is_placed_by_one_constant(self):
        """Where the rubric and its test lists lie is spelled in code once, in python/cudalabs/paths.py: a
        second spelling (a string, a joined path), the old place's included, is a reader a move leaves
        behind. The pages name the place for their readers; the records under docs/ keep their history."""
        this = pathlib.Path(__file__).resolve()
        owner = REPO / "python" / "cudalabs" / "paths.py"
        found = []
        for path in tracked_files():
            name = path.relative_to(REPO)
            if path in (this, owner) or name.parts[0] == "docs" or path.suffix == ".md":
                continue
            for number, line in enumerate(text_of(path).splitlines(), start=1):
                if POLICY_SPELLING.search(line):
                    found.append(f"{name}:{number}: {line.strip()}")
        self.assertEqual(found, [])
        self.assertTrue(POLICY_SPELLING.search(text_of(owner)), "paths.py no longer places the policy")

    def test_the_control_a_second_spelling_of_the_policy_is_found(self):
        for line in (
            'RUBRIC = REPO / "grader" / "policy" / "rubric.json"',
            'default=str(REPO / "tests" / "grading" / "rubric.json")',
            "${PROJECT_SOURCE_DIR}/grader/policy/tests",
            'shutil.copytree(REPO / "tests" / "grading" / "tests", folder)',
            'Path("grader", "policy")',
        ):
            self.assertRegex(line, POLICY_SPELLING)
        for line in ("the lab's grading tests", "tests/grading/test_class.py", "grader/labs/lab12_proxy.cpp"):
            self.assertNotRegex(line, POLICY_SPELLING)

    def test_only_the_packages_entry_points_change_the_python_path(self):
        """The Python tooling is one package (python/cudalabs/): its command scripts directly under scripts/
        put python/ on the path; the package, the tests and the tools import it as it is (PYTHONPATH)."""
        change = re.compile(r"\bsys\.path\.(insert|append)\(|\bsys\.path\s*(\+=|=[^=])")
        this = pathlib.Path(__file__).resolve()
        outside = []
        for path in tracked_files():
            name = path.relative_to(REPO)
            if path == this or path.suffix not in ("", ".py") or not change.search(text_of(path)):
                continue
            if name.parts[0] != "scripts" or len(name.parts) != 2:
                outside.append(str(name))
        self.assertEqual(outside, [])

    def test_sources_are_cited_by_key(self):
        # Records printed before the keys existed keep the old names (the references page says so).
        old_names = [
            str(p.relative_to(REPO))
            for p in tracked_files()
            if "docs/data/logs/" not in str(p)
            and "docs/data/sanitize/" not in str(p)
            and p.name != "references.md"
            and p.suffix in (".md", ".cu", ".cuh", ".h", ".cpp", ".py", ".json", ".cmake", ".sbatch")
            and __import__("re").search(r"\b[Ss]eed 00[0-4]\b", text_of(p))
        ]
        self.assertEqual(old_names, [])
        references = (REPO / "docs" / "pages" / "references.md").read_text()
        for key, label in doxygen_text.SOURCE_KEYS.items():
            self.assertIn(f"## [{key}]", references)
            self.assertIn(f"{{#{label}}}", references)

    def test_records_name_no_local_folder(self):
        # Paths in records are relative to the repository or <outside>/NAME (common/json_record.h);
        # system folders such as /usr/local/cuda may stay.
        local = __import__("re").compile(r'(?<![\w.<>-])/(?:root|home|tmp|work|mnt|scratch|Users)/[^\s"]*')
        found = []
        for path in (REPO / "docs" / "data").rglob("*"):
            if path.is_file():
                found += [f"{path.relative_to(REPO)}: {m.group(0)}" for m in local.finditer(text_of(path))]
        self.assertEqual(found[:10], [])


class DocsChecksTest(unittest.TestCase):
    def page(self, body):
        return f'<html><body><div class="contents">{body}</div></body></html>'

    def test_markup_check_passes_a_clean_page(self):
        clean = self.page(
            "<p>The <b>best</b> variant, 2 * 3 = 6.</p><pre>x ** 2</pre>"
            '<div class="fragment"><div class="line">a ** b</div></div><code>**</code>'
        )
        self.assertEqual(check_markup.leftovers(clean), [])

    def test_markup_check_catches_planted_leftovers(self):
        for planted, what in (
            ("see ** `best` ** here", "markdown bold"),
            ("&lt;tt&gt;lab10&lt;/tt&gt;", "HTML tag"),
            ("[the guide](profiling.md)", "markdown link"),
            ("{{gflops:best}}", "placeholder"),
            ("``` cpp", "code fence"),
            ("\\ref lab07", "Doxygen command"),
        ):
            found = check_markup.leftovers(self.page(f"<p>{planted}</p>"))
            self.assertTrue(any(what in entry[0] for entry in found), (planted, found))

    def test_markup_check_ignores_text_outside_the_contents(self):
        self.assertEqual(check_markup.leftovers("<div class='header'>**</div>"), [])

    def test_citations_link_to_the_source_section(self):
        text = "as [SGEMM-V100](../../docs/pages/references.md)'s kernel and [GEMM-BOOK](references.md) §2.3"
        self.assertEqual(
            doxygen_text.link_citations(text),
            'as \\ref src_sgemm_v100 "[SGEMM-V100]"\'s kernel and \\ref src_gemm_book "[GEMM-BOOK]" §2.3',
        )

    def test_citations_in_headings_stay_plain_keys(self):
        self.assertEqual(
            doxygen_text.link_citations("### Next to [COARSEN-KGP](../../docs/pages/references.md)"),
            "### Next to [COARSEN-KGP]",
        )

    def test_bold_that_doxygen_would_show_as_text_becomes_html(self):
        text = "- **`best`** picks a tile\n```\nx = a ** b; **kept**\n```\n## What you write (`kernels.cu`)"
        self.assertEqual(
            doxygen_text.doxygen_markdown(text),
            "- <b>`best`</b> picks a tile\n```\nx = a ** b; **kept**\n```\n## What you write (kernels.cu)",
        )


class GeneratedSourceTest(unittest.TestCase):
    def test_wgmma_wrappers_are_what_their_generator_writes(self):
        script = REPO / "labs" / "11_tensor_cores" / "generate_wgmma_instructions.py"
        spec = importlib.util.spec_from_file_location("generate_wgmma_instructions", script)
        generator = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(generator)
        header = REPO / "labs" / "11_tensor_cores" / "wgmma_instructions.cuh"
        self.assertEqual(
            header.read_text(),
            generator.text(),
            "wgmma_instructions.cuh was edited by hand: change generate_wgmma_instructions.py " "and run it",
        )
        self.assertIn('"+f"(d[127])', generator.text())  # the 256-wide wrapper lists all 128 registers


class NumbersCheckTest(unittest.TestCase):
    def test_an_unbacked_figure_is_caught_and_backed_ones_pass(self):
        page = "\n".join(
            [
                "The kernel runs at 9,021 GFLOP/s, 2.4x faster.",  # two hand-written figures
                "It runs at {{gflops:tiled_coalesced}} GFLOP/s, {{calc:ms(a)/ms(b):x1}} faster.",
                "[SGEMM-3080] timed it at {{quote:1558 ms}} on {{const:132}} SMs.",
                "Code is not prose: `--min-time 0.05`, and neither is a link [x](a/1.5.md) or §2.3.",
                "```",
                "ms = 12.5 ms",
                "```",
                "A 4096^3 problem, 32 x 32 tiles, lab 05, 8 warps.",
            ]
        )  # counts and sizes are not figures
        self.assertEqual(check_numbers.unbacked(page), [(1, "9,021 GFLOP/s"), (1, "2.4x")])

    def test_the_suite_passes_and_the_pending_list_only_shrinks(self):
        done = subprocess.run(
            [sys.executable, "-m", "cudalabs.docs.check_numbers", str(REPO)], capture_output=True, text=True
        )
        self.assertEqual(done.returncode, 0, done.stdout)
        for name in check_numbers.pending(REPO):
            self.assertTrue((REPO / name).is_file(), f"numbers_pending.txt lists {name}, which does not exist")


if __name__ == "__main__":
    unittest.main()
