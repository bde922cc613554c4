"""What a student opens on a Git host: every handout (labs/NN_name/README.md), the main README and every
page of the repository they lead to (handouts.linked_pages: links and named paths, page to page),
rendered as GitHub renders Markdown (cmark-gfm, GitHub's own CommonMark implementation, with its table,
autolink, strikethrough and tag-filter extensions), must read cleanly. Fails on:

- a generator placeholder left over ({{...}}) outside code;
- a Doxygen heading anchor ({#name}) shown in a heading (hide it in an HTML comment: `<!-- {#name} -->`);
- accidental emphasis: an <em> or <strong> that opens or closes inside a word, as the `*` of a glob
  path (lab05_*.json ... lab05_*.csv) or the `_` of a name makes it (write such paths as code);
- a path of the machine a record was made on (`<outside>/...`) or a record's raw problem name as a table's
  title.

  python3 -m cudalabs.docs.check_github REPO      one line per problem, exit 1 if any
"""
from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

from cudalabs.docs.handouts import linked_pages

RENDERER = "cmark-gfm"
EXTENSIONS = ("table", "autolink", "strikethrough", "tagfilter")
CODE = re.compile(r"<(pre|code)\b[^>]*>.*?</\1>", re.S)
COMMENT = re.compile(r"<!--.*?-->", re.S)
HEADING = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1>", re.S)
# An emphasis tag glued to a word on its outer side: lab05_<em>.json ... lab05_</em>.csv.
INNER_EMPHASIS = re.compile(r"[\w/*](<(?:em|strong)>)|(</(?:em|strong)>)\w")
RAW_PROBLEM_TITLE = re.compile(r"<p><strong>([a-z]+_?[a-z]*\d[\w+]*)</strong></p>")


def render(path: Path) -> str:
    """The page as GitHub's renderer makes it (HTML)."""
    command = [RENDERER] + [arg for extension in EXTENSIONS for arg in ("-e", extension)] + [str(path)]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def pages(repo: Path) -> list[Path]:
    """The handouts, the main README, and every page of the repository they lead to."""
    handouts = sorted((repo / "labs").glob("[0-9][0-9]_*/README.md"))
    return handouts + [repo / "README.md"] + linked_pages(repo)


def problems_in(rendered: str) -> list[str]:
    """What is wrong with one rendered page, one line each."""
    found = []
    prose = COMMENT.sub("", CODE.sub("", rendered))
    for match in re.finditer(r"\{\{[^}]*\}\}", prose):
        found.append(f"a placeholder left over: {match.group(0)[:60]}")
    for _, heading in HEADING.findall(COMMENT.sub("", rendered)):
        if re.search(r"\{#[\w-]+\}", heading):
            found.append(f"a heading shows its anchor: {html.unescape(re.sub('<[^>]+>', '', heading)).strip()[:80]}")
    for match in INNER_EMPHASIS.finditer(prose):
        start = max(0, match.start() - 40)
        found.append(f"accidental emphasis (write the path or name as code): ...{prose[start:match.end() + 40]}...")
    if "&lt;outside&gt;" in rendered or "<outside>" in rendered:
        found.append("a path of the machine a record was made on (<outside>/...)")
    for match in RAW_PROBLEM_TITLE.finditer(prose):
        found.append(f"a record's raw problem name as a title: {match.group(1)}")
    return found


def problems(repo: Path) -> list[str]:
    return [f"{path.relative_to(repo)}: {problem}" for path in pages(repo) for problem in problems_in(render(path))]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    if not shutil.which(RENDERER):
        print(f"check_github: {RENDERER} not found (apt-get install cmark-gfm, or scripts/setup)", file=sys.stderr)
        return 1
    repo = Path(argv[1]).resolve()
    found = problems(repo)
    for problem in found:
        print(f"check_github: {problem}", file=sys.stderr)
    if not found:
        print(f"check_github: {len(pages(repo))} pages read as a Git host renders them, none shows markup or a slip")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
