"""The docs site's checks and generators, on the CPU and without Doxygen: the markup check finds broken
inline code in the sources (pages, handouts, the headers' Doxygen comments) and stray backticks on a
built page; the generator writes the navigation a lab page opens with; the references page links
every source it can to a public address."""
import pathlib
import re
import sys
import tempfile
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "docs" / "tools"))
import check_markup  # noqa: E402
import doxygen_text  # noqa: E402


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
                "/// @code\n/// a = `b\n/// @endcode\nint y;  ///< trailing `ok`\n")
            (root / "docs" / "pages" / "p.md").write_text("# P\n\nFine `x`.\n\n```\nnot `checked\n```\n\n"
                                                         "| a | `b |\n")
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
        self.assertEqual(doxygen_text.doxygen_markdown("run (`ctest -R 'lab07.*step1'`) and `it's` `x`"),
                         "run (`` ctest -R 'lab07.*step1' ``) and `it's` `x`")


if __name__ == "__main__":
    unittest.main()
