"""Screenshots of the built site in headless Chromium (browser.py), served on the loopback address so
that the full-text search works: to check by eye that the pages, their navigation, pictures and the
search render (scripts/screenshot-docs).

  screenshots.py HTML_DIR OUT_DIR [SPEC ...]

A SPEC is PAGE:OUT.png[:HEIGHT], where PAGE is a page of the site (lab07.html), a page and the element
to scroll to first (lab07.html@object[data='lab07_waves.svg'], a CSS selector), or a full-text search
(search:bank conflict). Without specs: the default set below.
"""
import pathlib
import sys
import time
import urllib.parse

from cudalabs.docs.browser import Browser, serve

DEFAULT = [
    "index.html:mainpage.png:1500",
    "lab01.html:lab01.png:1100",
    "lab01.html@object[data='lab01_coalescing.svg']:lab01_coalescing.png:900",
    "lab06.html:lab06.png:1100",
    "lab06.html@object[data='lab06_pipeline.svg']:lab06_pipeline.png:1000",
    "lab06.html@object[data='lab06_variants.svg']:lab06_chart.png:800",
    "lab07.html:lab07.png:1100",
    "lab07.html@object[data='lab07_waves.svg']:lab07_waves.png:1000",
    "lab07.html@object[data='lab07_roofline.svg']:lab07_roofline.png:900",
    "lab10.html:lab10.png:1100",
    "lab10.html@object[data='lab10_mpi_flow.svg']:lab10_mpi_flow.png:900",
    "lab11.html:lab11.png:1100",
    "lab11.html@object[data='lab11_warpgroups.svg']:lab11_warpgroups.png:900",
    "lab11.html@object[data='lab11_shapes.svg']:lab11_shapes.png:1100",
    "search:bank conflict:search_bank_conflict.png:1200",
]
SEARCH_DONE = (
    "(m => m && m.textContent && !m.textContent.startsWith('Searching'))"
    "(document.getElementById('fulltext-message'))"
)


def shoot(browser, base, spec, out_dir):
    if spec.startswith("search:"):
        _, query, name, *height = spec.split(":")
        ready = browser.open(f"{base}/fulltext.html?q={urllib.parse.quote(query)}", SEARCH_DONE)
        target = None
    else:
        page, name, *height = spec.split(":")
        page, _, target = page.partition("@")
        ready = browser.open(f"{base}/{page}")
    if not ready:
        raise SystemExit(f"screenshots: {spec}: the page did not finish loading")
    if target:
        found = browser.evaluate(
            f"(e => {{ if (!e) return false; e.scrollIntoView({{block: 'start'}}); "
            f"window.scrollBy(0, -70); return true; }})(document.querySelector({target!r}))"
        )
        if not found:
            raise SystemExit(f"screenshots: {spec}: no element {target} on the page")
    time.sleep(0.8)  # pictures decoded, the table of contents placed
    path = pathlib.Path(out_dir) / name
    browser.screenshot(path, height=int(height[0]) if height else None)
    print(f"screenshots: {path}")


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    html, out = pathlib.Path(argv[1]), pathlib.Path(argv[2])
    out.mkdir(parents=True, exist_ok=True)
    with serve(html) as base, Browser(width=1400, height=1000) as browser:
        for spec in argv[3:] or DEFAULT:
            shoot(browser, base, spec, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
