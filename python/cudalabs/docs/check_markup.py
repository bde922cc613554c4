"""Fails when a page of the built site shows markup as text: markdown that Doxygen did not render
(`**bold**`, a code fence, a link written out, a stray backtick of broken inline code), an HTML tag
escaped into the page (`<tt>`), or a generator placeholder or Doxygen command left over. With
--sources it checks the markdown sources and the Doxygen comments of the headers instead, before any
build: inline code that does not close in its paragraph, and code spans Doxygen would read as a
`quotation' (a single backtick closed by a quote mark).

  check_markup.py HTML_DIR
  check_markup.py --sources REPO
"""
import html.parser
import pathlib
import re
import sys

from cudalabs.docs import handouts
from cudalabs.paths import answer_key

# What a reader should never see as text. Code blocks and inline code are skipped: there, these are
# the code itself.
LEFTOVERS = [
    (re.compile(r"\*\*"), "markdown bold (**) shown as text"),
    (re.compile(r"```"), "a markdown code fence shown as text"),
    (re.compile(r"\]\((?:[^)\s]+)\)"), "a markdown link written out"),
    (re.compile(r"</?(?:tt|b|i|em|code|strong|sup|sub|br)\s*/?>", re.IGNORECASE), "an HTML tag shown as text"),
    (re.compile(r"\{\{[^}]*\}\}"), "a generator placeholder left over"),
    (re.compile(r"(?<![\w`])[@\\](?:ref|page|section|subsection|dot|enddot)\b"), "a Doxygen command shown as text"),
    (re.compile(r"`"), "a stray backtick (inline code that did not render) shown as text"),
    (re.compile(r"\u2018[^\u2019]{0,200}\u2019"), "a code span Doxygen took for a `quotation' (shown in curly quotes)"),
]
SKIPPED_TAGS = {"pre", "code", "script", "style", "tt"}
# Code blocks, diagrams, and the declarations of the API pages (where `char **argv` is C++).
SKIPPED_CLASSES = {
    "fragment",
    "line",
    "dotgraph",
    "memItemLeft",
    "memItemRight",
    "memname",
    "memTemplParams",
    "paramname",
    "paramtype",
}
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
        self.stack.append(
            (tag, tag == "div" and "contents" in classes, tag in SKIPPED_TAGS or bool(classes & SKIPPED_CLASSES))
        )

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
            found.append((what, " ".join(text[start : match.end() + 30].split())))
    return found


FENCE = re.compile(r"^\s*(```|~~~)")
DOXYGEN_BLOCK_START = re.compile(r"[@\\](?:code|verbatim|dot|msc|f\[|htmlonly|startuml)\b")
DOXYGEN_BLOCK_END = re.compile(r"[@\\](?:endcode|endverbatim|enddot|endmsc|f\]|endhtmlonly|enduml)\b")


def code_span_problems(paragraph, quotes=True):
    """What is wrong with the inline code of one paragraph: a backtick run that no run of the same length
    closes, or (quotes) a single-backtick span whose last character is a quote mark (Doxygen shows `x'
    as a quotation and loses the span; the generator rewrites such spans in the markdown pages, not in
    the headers' comments)."""
    problems, i = [], 0
    while True:
        start = paragraph.find("`", i)
        if start < 0:
            return problems
        end = start
        while end < len(paragraph) and paragraph[end] == "`":
            end += 1
        ticks = paragraph[start:end]
        close = re.compile(r"(?<!`)" + ticks + r"(?!`)").search(paragraph, end)
        if close is None:
            problems.append(("inline code that does not close (a stray backtick)", paragraph[start : start + 60]))
            return problems
        if quotes and start > 0 and paragraph[start - 1] == '"':
            problems.append(
                (
                    "inline code right after a double quote, which Doxygen shows as text (it does not "
                    'read markup inside "...")',
                    paragraph[start - 1 : close.end()],
                )
            )
        if quotes and len(ticks) == 1 and paragraph[close.start() - 1] == "'":
            problems.append(
                (
                    "a code span ending in a quote mark, which Doxygen shows as a `quotation'",
                    paragraph[start : close.end()],
                )
            )
        i = close.end()


def paragraphs(lines):
    """(first line number, text) of each paragraph outside code blocks; lines are (number, text)."""
    block, first, inside = [], None, False
    for number, line in lines:
        if FENCE.match(line) or (inside and DOXYGEN_BLOCK_END.search(line)) or DOXYGEN_BLOCK_START.search(line):
            if block:
                yield first, "\n".join(block)
            block, first = [], None
            if FENCE.match(line):
                inside = not inside
            else:
                inside = bool(DOXYGEN_BLOCK_START.search(line)) and not DOXYGEN_BLOCK_END.search(line)
            continue
        if inside:
            continue
        if not line.strip() or line.startswith("    ") and not line.lstrip().startswith(("-", "*", "|", "1")):
            if block:
                yield first, "\n".join(block)
            block, first = [], None
            continue
        if line.lstrip().startswith("|"):  # a table row is a paragraph of its own
            if block:
                yield first, "\n".join(block)
            yield number, line
            block, first = [], None
            continue
        block.append(line)
        first = first or number
    if block:
        yield first, "\n".join(block)


def comment_lines(text):
    """The Doxygen comment lines of a C++ header, (line number, text without the comment marker); a
    blank line between comments ends a paragraph."""
    out, in_block = [], False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if in_block:
            body = re.sub(r"^\*\s?", "", stripped.replace("*/", ""))
            out.append((number, body))
            in_block = "*/" not in stripped
        elif stripped.startswith(("///", "//!")):
            out.append((number, stripped[3:].lstrip(" ") if not stripped[3:4] == "<" else stripped[4:].lstrip()))
        elif stripped.startswith(("/**", "/*!")) and "*/" not in stripped[3:]:
            out.append((number, stripped[3:]))
            in_block = True
        elif "///<" in line:
            out.append((number, line.split("///<", 1)[1]))
            out.append((number, ""))
        else:
            out.append((number, ""))
    return out


def source_files(repo):
    """The markdown sources of the site and the headers whose comments Doxygen reads."""
    repo = pathlib.Path(repo)
    folders = ("docs/handouts", "docs/walkthroughs")
    markdown = [p for folder in folders for p in sorted((repo / folder).glob("*.md"))]
    markdown += sorted(repo.glob(answer_key("[0-9][0-9]_*").as_posix()))
    markdown += handouts.site_pages(repo).values()  # a rendered page's source, not the page
    headers = [
        p
        for folder in ("common", "labs")
        for pattern in ("*.h", "*.cuh")
        for p in sorted((repo / folder).rglob(pattern))
    ]
    return markdown, headers


def source_problems(repo):
    """Every broken inline code span in the sources: 'path:line: what: excerpt'."""
    repo = pathlib.Path(repo)
    markdown, headers = source_files(repo)
    found = []
    for path in markdown + headers:
        text = path.read_text(errors="replace")
        header = path.suffix in (".h", ".cuh")
        lines = comment_lines(text) if header else list(enumerate(text.splitlines(), start=1))
        for number, paragraph in paragraphs(lines):
            for what, excerpt in code_span_problems(paragraph, quotes=header):
                found.append(f"{path.relative_to(repo)}:{number}: {what}: {' '.join(excerpt.split())}")
    return found


def main(argv):
    if len(argv) == 3 and argv[1] == "--sources":
        problems = source_problems(argv[2])
        if problems:
            print("check_markup: broken inline code in the sources:\n  " + "\n  ".join(problems), file=sys.stderr)
            return 1
        markdown, headers = source_files(argv[2])
        print(
            f"check_markup: {len(markdown)} markdown sources and the comments of {len(headers)} headers, "
            "no broken inline code"
        )
        return 0
    if len(argv) != 2:
        print("usage: check_markup.py HTML_DIR | check_markup.py --sources REPO", file=sys.stderr)
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
