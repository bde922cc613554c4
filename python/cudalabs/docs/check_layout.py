"""The built site as a reader's screen shows it: serves it on the loopback address and opens every page
written for readers (the lab pages, their walkthroughs, the guides) in headless Chromium (browser.py).
Fails when a table's body scrolls sideways at 1400 px (a column the reader cannot see without scrolling
inside the table), and when the page's text is squeezed narrower than MIN_TEXT_PX at 1024 px (the
contents sidebar beside it).

  check_layout.py HTML_DIR [PAGE.html ...]      default: every reader's page
"""
from __future__ import annotations

import pathlib
import re
import sys

from cudalabs.docs.browser import Browser, serve
from cudalabs.docs.site_frame import READER_PAGES

WIDE, NARROW = 1400, 1024
MIN_TEXT_PX = 640
# Every table in a page's contents but Doxygen's own declarations; a table scrolls when it, or the body the
# theme makes its scrolling box, is wider inside than it shows.
SCROLLING_TABLES = """[...document.querySelectorAll('div.contents table')]
  .filter(t => !t.closest('table.memberdecls, table.fieldtable, table.memname, table.mlabels, div.fragment'))
  .filter(t => t.offsetParent !== null)
  .filter(t => [t, ...t.tBodies].some(box => box.scrollWidth > box.clientWidth + 1))
  .map(t => (t.rows[0] ? t.rows[0].textContent : '').replace(/\\s+/g, ' ').trim().slice(0, 70))"""
TEXT_WIDTH = """(b => b ? Math.round(b.getBoundingClientRect().width) : null)(
  document.querySelector('div.contents div.textblock') || document.querySelector('div.contents'))"""


def reader_pages(html_dir: pathlib.Path) -> list[str]:
    names = sorted(p.name for p in html_dir.glob("*.html"))
    return [n for n in names if pathlib.Path(n).stem in READER_PAGES or re.match(r"lab\d\d(_walkthrough)?\.html$", n)]


def loaded(page: str) -> str:
    return f"location.pathname.endsWith('/{page}') && document.readyState === 'complete'"


def problems(html_dir: pathlib.Path, pages: list[str]) -> list[str]:
    found = []
    with serve(html_dir) as base:
        with Browser(width=WIDE) as browser:
            for page in pages:
                if not browser.open(f"{base}/{page}", ready=loaded(page)):
                    found.append(f"{page}: did not load")
                    continue
                for header in browser.evaluate(SCROLLING_TABLES) or []:
                    found.append(f"{page}: a table scrolls sideways at {WIDE} px: '{header}'")
        with Browser(width=NARROW) as browser:
            for page in pages:
                if not browser.open(f"{base}/{page}", ready=loaded(page)):
                    continue
                width = browser.evaluate(TEXT_WIDTH)
                if width is not None and width < MIN_TEXT_PX:
                    found.append(f"{page}: the text is {width} px wide at {NARROW} px (less than {MIN_TEXT_PX})")
    return found


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    html_dir = pathlib.Path(argv[1])
    pages = argv[2:] or reader_pages(html_dir)
    found = problems(html_dir, pages)
    for problem in found:
        print(f"check_layout: {problem}", file=sys.stderr)
    if found:
        return 1
    print(f"check_layout: {len(pages)} pages, no table scrolls at {WIDE} px, text {MIN_TEXT_PX} px or more at {NARROW}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
