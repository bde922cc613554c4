"""The docs site's checks and generators, on the CPU and without Doxygen: the markup check finds broken
inline code in the sources (pages, handouts, the headers' Doxygen comments) and stray backticks on a
built page; the generator writes the navigation a lab page opens with; the references page links
every source it can to a public address."""
import pathlib
import re
import shutil
import tempfile
import unittest

from cudalabs.docs import check_markup, check_numbers, doxygen_text, handouts
from cudalabs.labs import lab_numbers

REPO = pathlib.Path(__file__).resolve().parents[2]


def page(body):
    return f'<html><body><div class="contents">{body}</div></body></html>'


class InlineCodeTest(unittest.TestCase):
    def test_the_sources_have_no_broken_inline_code(self):
        self.assertEqual(check_markup.source_problems(REPO), [])

    def test_an_unclosed_code_span_is_found_in_a_paragraph(self):
        found = check_markup.code_span_problems("Set `cmake -DX=ON and run `ctest`.")
        self.assertEqual([what for what, _ in found], ["inline code that does not close (a stray backtick)"])
        self.assertEqual(check_markup.code_span_problems("A ``code with ` inside`` and `x`."), [])

    def test_doxygen_quirks_are_found_in_header_comments(self):
        quote = check_markup.code_span_problems("run (`ctest -R 'lab07.*'`) first")
        self.assertIn("quotation", quote[0][0])
        double = check_markup.code_span_problems('rank 0 prints "`program`: line" for it')
        self.assertIn("double quote", double[0][0])
        # In the markdown pages the generator rewrites the quote case, so only unbalanced code counts there.
        self.assertEqual(check_markup.code_span_problems("run (`ctest -R 'x'`) first", quotes=False), [])

    def test_a_planted_header_and_page_are_named_with_their_line(self):
        with tempfile.TemporaryDirectory() as scratch:
            root = pathlib.Path(scratch)
            (root / "common").mkdir()
            (root / "docs" / "pages").mkdir(parents=True)
            (root / "common" / "x.h").write_text(
                "/// @file x.h\n/// Fine `a` here.\n///\n/// Broken `ptxas -v and more.\nvoid f();\n"
                "/// @code\n/// a = `b\n/// @endcode\nint y;  ///< trailing `ok`\n"
            )
            (root / "docs" / "pages" / "p.md").write_text(
                "# P\n\nFine `x`.\n\n```\nnot `checked\n```\n\n" "| a | `b |\n"
            )
            found = sorted(check_markup.source_problems(root))
            self.assertEqual(len(found), 2, found)
            self.assertTrue(found[0].startswith("common/x.h:4: inline code that does not close"), found)
            self.assertTrue(found[1].startswith("docs/pages/p.md:9: inline code that does not close"), found)

    def test_a_stray_backtick_on_a_built_page_is_caught(self):
        found = check_markup.leftovers(page("<p>run (&lsquo;ctest -R 'x&rsquo;<code>) and</code>ptxas -v` then</p>"))
        whats = " ".join(what for what, _ in found)
        self.assertIn("stray backtick", whats)
        self.assertIn("quotation", whats)
        self.assertEqual(check_markup.leftovers(page("<p>fine <code>a`b</code></p><pre>`x`</pre>")), [])

    def test_the_generator_gives_quote_spans_two_backticks(self):
        self.assertEqual(
            doxygen_text.doxygen_markdown("run (`ctest -R 'lab07.*step1'`) and `it's` `x`"),
            "run (`` ctest -R 'lab07.*step1' ``) and `it's` `x`",
        )

    def test_a_folded_hint_passes_to_doxygen_as_raw_html(self):
        """Doxygen 1.9 would cut a <details> block into one empty block per paragraph: the generator hands
        it the two tags as raw HTML blocks, the markdown between them as it is."""
        source = "<details>\n<summary>Hint 1, a nudge</summary>\n\nUse **this** `x`.\n\n</details>"
        self.assertEqual(
            doxygen_text.doxygen_markdown(source),
            "\\htmlonly[block]<details><summary>Hint 1, a nudge</summary>\\endhtmlonly\n\n"
            "Use <b>this</b> `x`.\n\n\\htmlonly[block]</details>\\endhtmlonly",
        )
        self.assertEqual(doxygen_text.doxygen_markdown("```\n<details>\n```"), "```\n<details>\n```")


@unittest.skipUnless(shutil.which("cmark-gfm"), "cmark-gfm is missing: scripts/setup installs it")
class GitHostTest(unittest.TestCase):
    """The handouts, the main README and the pages a handout links, rendered as GitHub renders Markdown
    (cmark-gfm), read cleanly (check_github.py)."""

    def test_the_pages_a_student_opens_on_a_git_host_read_cleanly(self):
        from cudalabs.docs import check_github

        pages = [path.relative_to(REPO).as_posix() for path in check_github.pages(REPO)]
        self.assertIn("docs/pages/references.md", pages)
        self.assertIn("docs/pages/architecture.md", pages)  # the main README's link, rendered from its source
        self.assertIn("labs/13_attention/README.md", pages)
        self.assertEqual(check_github.problems(REPO), [])

    def test_each_slip_is_found_on_a_planted_page(self):
        from cudalabs.docs import check_github

        planted = {
            "Records: docs/data/results/lab05_*.json, profiles/lab05_*.csv.\n": "accidental emphasis",
            "The rate is {{gflops:rt_2d}} GFLOP/s.\n": "placeholder",
            "## References {#references}\n": "anchor",
            "_Device, `<outside>/lab12_solution`; medians._\n": "<outside>",
            "**sum_n268435456**\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n": "raw problem name",
        }
        clean = (
            "## References <!-- {#references} -->\n\nRecords: `lab05_*.json`, *italic* and **bold**.\n\n"
            "**sum of 268,435,456 floats (`sum_n268435456`)**\n\n`{{gflops:x}}` in code\n"
        )
        with tempfile.TemporaryDirectory() as scratch:
            page = pathlib.Path(scratch) / "page.md"
            for text, what in planted.items():
                page.write_text(text)
                found = check_github.problems_in(check_github.render(page))
                with self.subTest(what=what):
                    self.assertEqual(len(found), 1, found)
                    self.assertIn(what, found[0])
            page.write_text(clean)
            self.assertEqual(check_github.problems_in(check_github.render(page)), [])

    def test_a_link_to_a_page_by_its_file_becomes_a_link_by_its_name(self):
        """Doxygen would resolve `profiling.md` to its absolute path, which it splits at spaces."""
        self.assertEqual(
            doxygen_text.page_links(
                "[guide](profiling.md), [x](results.md#results_lab07), [y](other.md), [z](https://x.org/a.md)\n"
                "```\n[guide](profiling.md)\n```",
                {"profiling", "results"},
            ),
            "[guide](@ref profiling), [x](@ref results_lab07), [y](other.md), [z](https://x.org/a.md)\n"
            "```\n[guide](profiling.md)\n```",
        )

    def test_a_hidden_anchor_comes_back_for_doxygen(self):
        self.assertEqual(
            doxygen_text.doxygen_markdown("## [GEMM-BOOK] GEMM <!-- {#src_gemm_book} -->\n`x` <!-- {#y} -->"),
            "## [GEMM-BOOK] GEMM {#src_gemm_book}\n`x` <!-- {#y} -->",
        )


class EditionTest(unittest.TestCase):
    def test_the_student_editions_main_page_does_not_promise_the_solutions(self):
        from cudalabs.docs.render import Renderer

        with tempfile.TemporaryDirectory() as scratch:
            (pathlib.Path(scratch) / "docs" / "data").mkdir(parents=True)
            student = Renderer(pathlib.Path(scratch) / "docs" / "data", "x", "00").render("{{edition_commands}}")
            (pathlib.Path(scratch) / "solutions").mkdir()
            instructor = Renderer(pathlib.Path(scratch) / "docs" / "data", "x", "00").render("{{edition_commands}}")
        self.assertNotIn("solution", student)
        self.assertIn("your kernels", student)
        self.assertIn("reference solutions", instructor)
        self.assertIn("{{edition_commands}}", (REPO / "docs" / "pages" / "mainpage.md").read_text())


class CountsTest(unittest.TestCase):
    def test_a_hand_written_count_of_counts_is_caught(self):
        self.assertEqual(check_numbers.unbacked("The solutions scored 322 of 322 points."), [(1, "322 of 322")])
        self.assertEqual(
            check_numbers.unbacked(
                "They scored {{json:grading/x.json:points:count}} of {{rubric_total}}; "
                "{{const:32 of 48}} warps; 2 of 3 ranks."
            ),
            [],
        )


class ReferencesTest(unittest.TestCase):
    def test_every_lab_has_a_read_more_list_of_public_sources(self):
        labs = lab_numbers(REPO)
        for lab in labs:
            with self.subTest(lab=lab):
                section = handouts.read_more(REPO, lab)
                self.assertTrue(section, f"the handout source of lab {lab} has no '## Read more' list")
                links = re.findall(r"\]\((https://[^)\s]+)\)", section)
                self.assertGreaterEqual(len(links), 2, "at least two public sources")

    def test_the_named_public_sources_are_cited(self):
        text = (REPO / "docs" / "pages" / "references.md").read_text()
        for needle in (
            "Programming Massively Parallel Processors",
            "CUDA C++ Programming Guide",
            "parallel-thread-execution",
            "wgmma",
            "cp-async-bulk-tensor",
            "mma",
            "ProfilingGuide",
        ):
            self.assertIn(needle, text)


class SiteTest(unittest.TestCase):
    HEADER = (
        '<html xmlns="http://www.w3.org/1999/xhtml">\n<head>\n<title>x</title>\n</head>\n<body>\n'
        '<tr id="projectrow">\n  <!--BEGIN PROJECT_NAME-->\n  <td id="projectalign">x</td>\n'
        "  <!--END PROJECT_NAME-->\n  <td>$searchbox</td>\n</tr>\n"
    )

    def test_the_header_carries_the_extensions_and_the_text_search(self):
        from cudalabs.docs import site_frame as module

        with tempfile.TemporaryDirectory() as scratch:
            source, out = pathlib.Path(scratch) / "in.html", pathlib.Path(scratch) / "out.html"
            source.write_text(self.HEADER)
            module.write_header(source, out)
            header = out.read_text()
            for script in module.EXTENSIONS:
                self.assertIn(f'src="$relpath^{script}"', header)
            self.assertIn('lang="en"', header)
            self.assertLess(header.index('id="textsearch"'), header.index("$searchbox"))
            self.assertIn('action="$relpath^fulltext.html"', header)
            pages = pathlib.Path(scratch) / "html"
            pages.mkdir()
            body = '<div class="header"><div class="title">T</div></div><div class="contents">x</div>'
            for name in ("lab02.html", "common_8h.html", "common_8h_source.html", "x-members.html"):
                (pages / name).write_text(body)
            self.assertEqual(module.mark_for_index(pages), 2)
            self.assertIn('data-pagefind-body data-pagefind-weight="3"', (pages / "lab02.html").read_text())
            self.assertIn('data-pagefind-meta="title"', (pages / "common_8h.html").read_text())
            self.assertNotIn("data-pagefind", (pages / "common_8h_source.html").read_text())

    def test_a_lab_page_opens_with_its_links_and_a_table_of_contents(self):
        from cudalabs.docs import generate

        handout = "# Lab 05: register tiling {#lab05}\n\nText.\n\n## Run, test, profile\n\nx\n"
        page, walkthrough = generate.lab_page(REPO, "05", handout, {"results_lab05"}, ["04", "05", "06"])
        first = page.split("\n")[:6]
        self.assertEqual(first[0], "# Lab 05: register tiling {#lab05}")
        nav = next(line for line in first if "lab-nav" in line)
        for anchor in ("lab05_walkthrough", "lab05_profile", "results_lab05", "lab05_read_more"):
            self.assertIn(f"\\ref {anchor} ", nav)
        self.assertIn("[TOC]", first)
        # The walkthrough measures what the handout asks to predict: a page of its own, never below the handout.
        self.assertNotIn("{#lab05_walkthrough}", page)
        self.assertTrue(
            walkthrough.startswith("# Lab 05 walkthrough: the measurements and the solution {#lab05_walkthrough}")
        )
        self.assertIn("after you have filled in the handout's Predict first table", walkthrough)
        self.assertIn("{#lab05_profile}", walkthrough)  # on the walkthrough's first Nsight Compute section
        self.assertNotRegex(walkthrough, r"(?m)^### ", "the walkthrough's sections move up a level")
        self.assertIn("## Read more {#lab05_read_more}", page)
        with self.assertRaises(KeyError):  # a lab without a section on the results page fails the build
            generate.lab_page(REPO, "05", handout, set(), ["05"])

    def test_every_lab_has_its_section_on_the_results_page(self):
        """The site's build gives every declared lab a section, in order, where the page writes none."""
        from cudalabs.docs import generate

        written = (REPO / "docs" / "pages" / "results.md").read_text()
        results = generate.results_page(REPO, written)
        anchors = re.findall(r"(?m)^## [^\n]*\{#results_lab(\d\d)\}", results)
        self.assertEqual(anchors, lab_numbers(REPO))
        for number in re.findall(r"\{#results_lab(\d\d)\}", written):  # what the page writes is kept
            section = re.search(rf"(?ms)^## [^\n]*\{{#results_lab{number}\}}.*?(?=^## |\Z)", written).group(0)
            self.assertIn(section.rstrip("\n"), results)
        self.assertEqual(results.count("## The GEMM sweep"), 1)
        # The control: a page without the section of a lab whose record there is gets one made from it, and a
        # section for a lab nobody declared fails the build.
        first = lab_numbers(REPO)[0]
        self.assertIn(f"{{{{lab:{first}}}}}{{{{results}}}}", generate.results_page(REPO, written))
        with self.assertRaises(KeyError):
            generate.results_page(REPO, written + "\n## Lab 98 {#results_lab98}\n\nx\n")


if __name__ == "__main__":
    unittest.main()
