#!/usr/bin/env python3
"""Fails when a page of the built site shows markup as text: markdown that Doxygen did not render
(`**bold**`, a code fence, a link written out), an HTML tag escaped into the page (`<tt>`), or a
generator placeholder or Doxygen command left over.

  check_markup.py HTML_DIR
"""
import html.parser
import pathlib
import re
import sys

# What a reader should never see as text. Code blocks and inline code are skipped: there, these are
# the code itself.
LEFTOVERS = [
    (re.compile(r"\*\*"), "markdown bold (**) shown as text"),
    (re.compile(r"```"), "a markdown code fence shown as text"),
    (re.compile(r"\]\((?:[^)\s]+)\)"), "a markdown link written out"),
    (re.compile(r"</?(?:tt|b|i|em|code|strong|sup|sub|br)\s*/?>", re.IGNORECASE), "an HTML tag shown as text"),
    (re.compile(r"\{\{[^}]*\}\}"), "a generator placeholder left over"),
    (re.compile(r"(?<![\w`])[@\\](?:ref|page|section|subsection|dot|enddot)\b"), "a Doxygen command shown as text"),
]
SKIPPED_TAGS = {"pre", "code", "script", "style", "tt"}
# Code blocks, diagrams, and the declarations of the API pages (where `char **argv` is C++).
SKIPPED_CLASSES = {"fragment", "line", "dotgraph", "memItemLeft", "memItemRight", "memname", "memTemplParams",
                   "paramname", "paramtype"}
VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class VisibleText(html.parser.HTMLParser):
    """Collects the text inside the page's contents, outside code and diagrams."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # per open element: (tag, opens the contents, skipped)
        self.chunks = []

    def inside(self, index):
        return any(entry[index] for entry in self.stack)

    def handle_starttag(self, tag, attrs):
        if tag in VOID_TAGS:
            return
        classes = set((dict(attrs).get("class") or "").split())
        self.stack.append((tag, tag == "div" and "contents" in classes,
                           tag in SKIPPED_TAGS or bool(classes & SKIPPED_CLASSES)))

    def handle_endtag(self, tag):
        # Close up to the matching element; tolerate stray or unclosed tags.
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth][0] == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data):
        if self.inside(1) and not self.inside(2):
            self.chunks.append(data)


def leftovers(page_html):
    """The leftovers in one page: a list of (what, excerpt)."""
    parser = VisibleText()
    parser.feed(page_html)
    text = " ".join(parser.chunks)
    found = []
    for pattern, what in LEFTOVERS:
        for match in pattern.finditer(text):
            start = max(0, match.start() - 30)
            found.append((what, " ".join(text[start:match.end() + 30].split())))
    return found


def main(argv):
    if len(argv) != 2:
        print("usage: check_markup.py HTML_DIR", file=sys.stderr)
        return 2
    root = pathlib.Path(argv[1])
    pages = sorted(root.glob("*.html"))
    problems = []
    for page in pages:
        for what, excerpt in leftovers(page.read_text(errors="replace")):
            problems.append(f"{page.name}: {what}: ...{excerpt}...")
    if problems:
        print("check_markup: markup shown as text:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    print(f"check_markup: {len(pages)} pages, no markup shown as text")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
