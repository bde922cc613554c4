"""The docs site's page frame and full-text search (scripts/build-docs calls both steps).

  site_frame.py header DEFAULT_HEADER OUT_HEADER   Doxygen's own header (doxygen -w html) with the theme's
                                             extensions (copy buttons on code blocks, the page table of
                                             contents that follows the reader, paragraph links) and a
                                             box that searches the text of every page
  site_frame.py index HTML_DIR                     marks what Pagefind indexes: each page's contents and its
                                             title (source listings and indexes of symbols are left out)

The search itself is Pagefind (npm, installed by scripts/setup docs): `pagefind --site HTML_DIR` writes
the index beside the pages, and fulltext.html (docs/pages/search.md) shows the results.
"""
import pathlib
import re
import sys

EXTENSIONS = (
    "doxygen-awesome-fragment-copy-button.js",
    "doxygen-awesome-interactive-toc.js",
    "doxygen-awesome-paragraph-link.js",
)

HEAD = """<script type="text/javascript" src="$relpath^doxygen-awesome-fragment-copy-button.js"></script>
<script type="text/javascript" src="$relpath^doxygen-awesome-interactive-toc.js"></script>
<script type="text/javascript" src="$relpath^doxygen-awesome-paragraph-link.js"></script>
<script type="text/javascript">
  DoxygenAwesomeFragmentCopyButton.init();
  DoxygenAwesomeInteractiveToc.init();
  DoxygenAwesomeParagraphLink.init();
</script>
<style>
  #textsearch { text-align: right; padding-right: 12px; }
  #textsearch input { width: 13em; padding: 4px 8px; border-radius: 6px; border: 1px solid var(--separator-color, #ccc);
                      background: var(--page-background-color, white); color: var(--page-foreground-color, black); }
  .lab-nav { padding: 6px 10px; border-left: 4px solid var(--primary-color, #1779c4);
             background: var(--code-background, #f5f7fa); border-radius: 4px; }
  /* Tables fit the text column (check_layout.py): the column takes the window's width, and a cell's words and
     code wrap anywhere, so that no table's body scrolls sideways at 1400 px. */
  html { --content-maxwidth: 1600px; }
  .contents table.markdownTable td, .contents table.markdownTable th { overflow-wrap: anywhere; }
  .contents table.markdownTable code { white-space: normal; overflow-wrap: anywhere; }
  /* Below 1280 px the page's contents sit above its text instead of beside it: the text keeps its width. */
  @media screen and (min-width: 1000px) and (max-width: 1279px) {
    #doc-content > div > div.contents, .PageDoc > div.contents { display: block; }
    div.contents .toc { position: relative; top: 0; float: none; width: auto; max-height: 40vh; overflow: auto;
                        margin: 0 0 16px 0; border: 1px solid var(--separator-color);
                        border-radius: var(--border-radius-medium, 6px); }
  }
</style>
"""

SEARCH_BOX = """  <td id="textsearch"><form action="$relpath^fulltext.html" method="get" role="search">
    <input name="q" type="search" placeholder="Search the text" aria-label="Search the text of every page"/>
  </form></td>
"""


def write_header(default, out):
    """Doxygen's default header with the extensions in its head and the text search in its title row."""
    text = pathlib.Path(default).read_text()
    if "</head>" not in text or '<tr id="projectrow">' not in text:
        raise SystemExit(f"site_frame.py: {default} is not Doxygen's HTML header")
    text = text.replace("</head>", HEAD + "</head>", 1)
    # The pages are in English: Pagefind picks its stemmer by the page's language, as a screen reader does.
    text = re.sub(
        r"<html( [^>]*)?>",
        lambda m: m.group(0) if "lang=" in m.group(0) else m.group(0)[:-1] + ' lang="en">',
        text,
        count=1,
    )
    # After the project's name and brief, before Doxygen's own (symbol) search box.
    text = re.sub(
        r'(<tr id="projectrow">.*?<!--END PROJECT_NAME-->\n)',
        lambda m: m.group(1) + SEARCH_BOX,
        text,
        count=1,
        flags=re.S,
    )
    if 'id="textsearch"' not in text:
        raise SystemExit("site_frame.py: no place for the search box in the header")
    pathlib.Path(out).write_text(text)


SKIPPED_PAGES = re.compile(
    r"(_source|-members|^globals.*|^functions.*|^namespacemembers.*|^files|^annotated|^classes|"
    r"^hierarchy|^namespaces|^dir_.*|^graph_legend|^fulltext|^search)\.html$"
)


READER_PAGES = {"index", "results", "profiling", "architecture", "references", "instructors", "reliability", "answers"}


def mark_for_index(html_dir):
    """Pagefind indexes only what carries data-pagefind-body: every page's contents (not the menus),
    with the page title as its result title. Returns how many pages were marked."""
    marked = 0
    for page in sorted(pathlib.Path(html_dir).glob("*.html")):
        if SKIPPED_PAGES.search(page.name):
            continue
        text = page.read_text(errors="replace")
        if "data-pagefind-body" in text:
            marked += 1
            continue
        # The pages written for readers (labs, guides) weigh more than the library's reference pages.
        weight = ' data-pagefind-weight="3"' if page.stem in READER_PAGES or re.match(r"lab\d\d$", page.stem) else ""
        new = text.replace('<div class="contents">', f'<div class="contents" data-pagefind-body{weight}>', 1)
        new = new.replace('<div class="title">', '<div class="title" data-pagefind-meta="title">', 1)
        if new != text:
            page.write_text(new)
            marked += 1
    return marked


def main(argv):
    if len(argv) == 4 and argv[1] == "header":
        write_header(argv[2], argv[3])
        return 0
    if len(argv) == 3 and argv[1] == "index":
        print(f"site: {mark_for_index(argv[2])} pages marked for the full-text index")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
