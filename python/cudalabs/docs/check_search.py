"""Searches the built site as a reader would: serves it on the loopback address, opens the full-text
search page (fulltext.html?q=...) in headless Chromium (browser.py), waits until the page shows its
results, and reads them out of the page. Fails when a search does not find the page that teaches its subject
among the first results, or finds nothing; and when a lab page lacks its frame (the links it opens with, the table of
contents, copy buttons on code blocks, the search box).

  check_search.py HTML_DIR [QUERY=PAGE ...]      default: the queries below

Each query is a reader's word; each expected page is the lab page that teaches it.
"""
from __future__ import annotations

import pathlib
import sys
import urllib.parse

from cudalabs.docs.browser import Browser, serve

QUERIES = {
    "bank conflict": "lab02.html",
    "coalesced": "lab01.html",
    "coalesc": "lab01.html",
    "roofline": "lab00.html",
    "cp.async": "lab06.html",
    "double buffering": "lab06.html",
    "stream-K": "lab07.html",
    "wgmma": "lab11.html",
    "occupancy": "lab04.html",
    "thread coarsening": "lab08.html",
    "MPI_Igatherv": "lab10.html",
}
TOP = 5  # the expected page must be among the first results
DONE = (
    "(m => m && m.textContent && !m.textContent.startsWith('Searching'))(document.getElementById('fulltext-message'))"
)


def search(browser, base, query):
    """(pages found in order, the page's message) for one query, as the search page shows them."""
    if not browser.open(f"{base}/fulltext.html?q={urllib.parse.quote(query)}", DONE, timeout=30):
        return [], "no answer within 30 s"
    links = browser.evaluate(
        "[...document.querySelectorAll('a.fulltext-result-link')].map(a => a.getAttribute('href'))"
    )
    message = browser.evaluate("document.getElementById('fulltext-message').textContent")
    return [pathlib.PurePosixPath(urllib.parse.urlparse(link).path).name for link in links], message


def more_problems(browser, base, query="kernel"):
    """A search with more results than the first page shows offers the rest: its button adds the next ones."""
    search(browser, base, query)
    count = "document.querySelectorAll('a.fulltext-result-link').length"
    before = browser.evaluate(count)
    total = int(browser.evaluate("document.getElementById('fulltext-message').textContent").split()[0])
    if total <= before:
        return [f"'{query}' finds {total} pages, too few to show the button for more"]
    if not browser.evaluate("(b => b && b.offsetParent !== null)(document.getElementById('fulltext-more'))"):
        return [f"'{query}': {total} pages, {before} shown, and no button for more"]
    browser.evaluate("document.getElementById('fulltext-more').click()")
    if not browser.wait_for(f"{count} > {before}", timeout=15):
        return [f"'{query}': the button for more shows nothing more than the first {before}"]
    return []


FRAME = """({copy: document.querySelectorAll('doxygen-awesome-fragment-copy-button').length,
  fragments: document.querySelectorAll('div.fragment').length,
  toc: !!document.querySelector('div.toc.interactive'),
  nav: [...document.querySelectorAll('div.lab-nav a')].map(a => a.getAttribute('href')),
  search: !!document.querySelector('#textsearch input')})"""


def frame_problems(browser, base, html_dir):
    """What a lab page lacks of its frame, as a reader sees it: the links it opens with (each to a page
    and anchor that exist), the table of contents that follows the reader, a copy button on every code
    block, and the full-text search box."""
    problems = []
    for page in sorted(pathlib.Path(html_dir).glob("lab[0-9][0-9].html")):
        # Loaded means this page (not the last one, mid-navigation) with its own scripts run: the
        # theme adds the copy buttons from a ready handler that may run after readyState is complete.
        ready = (
            f"location.pathname.endsWith('/{page.name}') && document.readyState === 'complete' && "
            "(document.querySelectorAll('div.fragment').length === 0 || "
            "document.querySelectorAll('doxygen-awesome-fragment-copy-button').length > 0)"
        )
        if not browser.open(f"{base}/{page.name}", ready=ready) and not browser.wait_for(
            f"location.pathname.endsWith('/{page.name}')", timeout=5
        ):
            problems.append(f"{page.name}: did not load")
            continue
        frame = browser.evaluate(FRAME)
        if len(frame["nav"]) < 3:
            problems.append(
                f"{page.name}: opens with {len(frame['nav'])} links, not the walkthrough, profile and results"
            )
        for href in frame["nav"]:
            target, _, anchor = href.partition("#")
            text = (pathlib.Path(html_dir) / (target or page.name)).read_text(errors="replace")
            if anchor and f'id="{anchor}"' not in text:
                problems.append(f"{page.name}: its link {href} goes nowhere")
        if not frame["toc"]:
            problems.append(f"{page.name}: no table of contents")
        if frame["copy"] < frame["fragments"]:
            problems.append(f"{page.name}: {frame['fragments'] - frame['copy']} code blocks without a copy button")
        if not frame["search"]:
            problems.append(f"{page.name}: no search box")
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    html_dir = pathlib.Path(argv[1])
    queries = dict(arg.split("=", 1) for arg in argv[2:]) or QUERIES
    if not (html_dir / "fulltext.html").exists() or not (html_dir / "pagefind" / "pagefind.js").exists():
        print(f"check_search: {html_dir} has no search page or no Pagefind index", file=sys.stderr)
        return 1
    failures = []
    with serve(html_dir) as base, Browser() as browser:
        for query, expected in queries.items():
            pages, message = search(browser, base, query)
            where = pages.index(expected) + 1 if expected in pages[:TOP] else None
            print(
                f"check_search: '{query}': {message}; {expected} "
                + (f"is result {where}" if where else f"not among the first {TOP}: {pages[:TOP]}")
            )
            if not where:
                failures.append(query)
        frame = frame_problems(browser, base, html_dir) + more_problems(browser, base)
    for problem in frame:
        print(f"check_search: {problem}", file=sys.stderr)
    if frame:
        return 1
    if failures:
        print(f"check_search: the search does not find what it should for: {', '.join(failures)}", file=sys.stderr)
        return 1
    print(
        f"check_search: {len(queries)} searches in headless Chromium, each finds its page; every lab page opens "
        "with its links, a table of contents and copy buttons; a long result list shows more on request"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
