"""Text rewrites between the markdown sources and Doxygen: citations of the five source reports
(docs/pages/references.md), and the markdown Doxygen does not render.

In the handouts and pages a citation is a markdown link from the source's key to the references page,
which GitHub follows; on the site it becomes a link to that source's own section.
"""
import re

SOURCE_KEYS = {
    "DCGAN-SHPC": "src_dcgan_shpc",
    "SGEMM-V100": "src_sgemm_v100",
    "COARSEN-KGP": "src_coarsen_kgp",
    "GEMM-BOOK": "src_gemm_book",
    "SGEMM-3080": "src_sgemm_3080",
}
CITATION = re.compile(r"\[(" + "|".join(SOURCE_KEYS) + r")\]\([^)]*references\.md\)")


def link_citations(text):
    """`[KEY](.../references.md)` -> a Doxygen reference to the key's section, shown as [KEY]; in a
    heading, where Doxygen shows a reference as text, the plain key."""

    def one_line(line):
        if line.startswith("#"):
            return CITATION.sub(lambda m: f"[{m.group(1)}]", line)
        return CITATION.sub(lambda m: f'\\ref {SOURCE_KEYS[m.group(1)]} "[{m.group(1)}]"', line)

    return "\n".join(one_line(line) for line in text.split("\n"))


BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
# A single-backtick code span that ends in a quote mark: Doxygen reads `x' as a typographic quotation
# and loses the span; a double-backtick span is read as code.
QUOTE_SPAN = re.compile(r"(?<!`)`([^`\n]*')`(?!`)")
HEADING = re.compile(r"^(#{1,6} .*)$")
# A heading's anchor hidden from a Git host in an HTML comment (`## Title <!-- {#name} -->`): the page reads
# cleanly on GitHub, and Doxygen gets the anchor back.
COMMENTED_ANCHOR = re.compile(r"^(#{1,6} .*?)[ \t]*<!--[ \t]*(\{#[\w-]+\})[ \t]*-->[ \t]*$")
# A folded block (a hint): GitHub renders <details> with markdown inside; Doxygen 1.9 would cut it into
# one empty <details> per paragraph, so the two tags pass through as raw HTML blocks instead.
DETAILS_OPEN = re.compile(r"^<details>\s*(<summary>.*</summary>)?\s*$")


# A link to a page of the site by its file (`[guide](profiling.md)`, `[x](results.md#results_lab07)`), as a
# page a Git host shows links it: Doxygen would resolve the file to its absolute path, which it splits at
# spaces (a checkout's path may hold some), so the site links the page's (or the section's) name instead.
PAGE_LINK = re.compile(r"\]\(([a-z_]+)\.md(?:#([\w-]+))?\)")


def page_links(text, page_names):
    """`](name.md)` as `](@ref name)` and `](name.md#anchor)` as `](@ref anchor)`, for each page of
    `page_names` (a page's name is its file's stem); other links as they are. Fenced code is left alone."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced:
            line = PAGE_LINK.sub(
                lambda m: f"](@ref {m.group(2) or m.group(1)})" if m.group(1) in page_names else m.group(0), line
            )
        out.append(line)
    return "\n".join(out)


def doxygen_markdown(text):
    """Rewrites what Doxygen would show as text: bold that starts with code or holds a reference
    (`**`x` is**`) becomes <b>...</b>, and code spans in headings (shown as <tt> in the page's table of
    contents) become plain words, a heading's anchor hidden in an HTML comment (`<!-- {#name} -->`, so that a
    Git host shows none) becomes Doxygen's, a code span ending in a quote mark gets two backticks, and a folded
    block (`<details>`, its `<summary>` on the same or the next line, `</details>`) passes through as raw
    HTML. Fenced code blocks are left alone."""
    out, fenced, lines = [], False, text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and DETAILS_OPEN.match(line):
            summary = DETAILS_OPEN.match(line).group(1) or ""
            if not summary and index < len(lines) and lines[index].strip().startswith("<summary>"):
                summary = lines[index].strip()
                index += 1
            out.append(f"\\htmlonly[block]<details>{summary}\\endhtmlonly")
            continue
        elif not fenced and line.strip() == "</details>":
            out.append("\\htmlonly[block]</details>\\endhtmlonly")
            continue
        elif not fenced:
            line = COMMENTED_ANCHOR.sub(r"\1 \2", line)
            if HEADING.match(line):
                line = line.replace("`", "")
            line = BOLD.sub(r"<b>\1</b>", line)
            line = QUOTE_SPAN.sub(r"`` \1 ``", line)
        out.append(line)
    return "\n".join(out)
