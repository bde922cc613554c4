"""Generates the docs site's pages and plots from the handout sources (docs/handouts/), the walkthrough
templates and docs/data/.

  python3 -m cudalabs.docs.generate --repo ROOT --out DIR [--device SLUG]   (scripts/build-docs runs it)

writes DIR/pages/*.md (the main page, one page per lab: handout + walkthrough, results, guides) and
DIR/plots/*.svg. The placeholders the templates may use are listed in render.py; the marks of what one
edition shows, in editions.py.
"""
import argparse
import pathlib
import re
import shutil
import sys

from cudalabs.docs.doxygen_text import doxygen_markdown, page_links, link_citations
from cudalabs import labs
from cudalabs.docs import handouts
from cudalabs.paths import answer_key
from cudalabs.records import labdata
from cudalabs.docs.render import RECORDED_PICTURES, Renderer

ANSWERS_INTRO = """# Answer keys {#answers}

For instructors: the expected predictions (each handout's "Predict first" table) and the answers to
each handout's questions. Measured figures come from docs/data/ like every other page; the reasoning is
what a student should be able to give. This page is not part of the student release."""


def lab_footer(number, numbers):
    """The way on from a lab page: the previous and next labs, the profiling guide, the results."""
    index = numbers.index(number)
    links = []
    if index > 0:
        links.append(f"previous: \\ref lab{numbers[index - 1]}")
    if index + 1 < len(numbers):
        links.append(f"next: \\ref lab{numbers[index + 1]}")
    links += ["how to profile your kernel and read the tables: \\ref profiling", "every measured table: \\ref results"]
    return "---\n\n" + "; ".join(links).capitalize() + "."


PROFILE_HEADING = re.compile(r"Speed Of Light|Nsight Compute|stall|[Oo]ccupancy|bank conflicts|Issue|profile", re.I)


def with_toc(text):
    """A page with a table of contents under its title (Doxygen's [TOC]; the theme makes it follow the
    reader), when it has sections enough to need one."""
    lines = text.split("\n")
    if "[TOC]" in text or sum(line.startswith("## ") for line in lines) < 3:
        return text
    first = next((i for i, line in enumerate(lines) if line.startswith("# ") or line.startswith("\\mainpage")), None)
    if first is None:
        return text
    return "\n".join(lines[: first + 1] + ["", "[TOC]"] + lines[first + 1 :])


def walkthrough_page(walkthrough, number):
    """A lab's walkthrough as a page of its own: it measures what the handout asks the student to predict,
    so it stands apart from the handout's page, opened on purpose. Its "## Walkthrough" heading becomes the
    page's title and every heading below it moves up one level."""
    lines = walkthrough.split("\n")
    first = next((i for i, line in enumerate(lines) if line.startswith("## ")), None)
    if first is None:
        raise KeyError(f"lab {number}: the walkthrough has no '## Walkthrough {{#lab{number}_walkthrough}}' heading")
    out, fenced = [], False
    for line in lines[first + 1 :]:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        out.append(line[1:] if not fenced and re.match(r"^#{3,6} ", line) else line)
    intro = (
        f"This page measures what \\ref lab{number} asks you to predict: open it after you have filled in the "
        "handout's Predict first table. It holds the solution's key lines, every measured table and the "
        "profiles that explain them."
    )
    title = f"# Lab {number} walkthrough: the measurements and the solution {{#lab{number}_walkthrough}}"
    return "\n".join([title, "", intro, ""] + out)


def anchor_profile_section(handout, walkthrough, number):
    """Gives the lab's first profiling section the anchor labNN_profile: the walkthrough's first Nsight
    Compute section, else the handout's "Run, test, profile" section. Returns both texts."""
    anchor = f"{{#lab{number}_profile}}"
    lines = walkthrough.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("## ") and "{#" not in line:
            section = "\n".join(lines[i : i + 40]).split("\n## ", 1)[0]
            if PROFILE_HEADING.search(line) or "{{section:" in section or "{{sass_hot:" in section:
                lines[i] = f"{line.rstrip()} {anchor}"
                return handout, "\n".join(lines)
    lines = handout.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("## Run") and "{#" not in line:
            lines[i] = f"{line.rstrip()} {anchor}"
            return "\n".join(lines), walkthrough
    raise KeyError(
        f"lab {number}: no profiling section to link to (a walkthrough section with a profile table, "
        "or a '## Run, test, profile' section in the handout)"
    )


def lab_page(repo, number, handout, results_anchors, numbers):
    """A lab's page and its walkthrough's page: the handout with its read-more list and the way on, opening
    with links to the walkthrough, the profiling section, the lab's place on the results page and the
    reading list; the walkthrough apart (walkthrough_page), or "" when the lab has none. Returns both."""
    walkthrough_path = repo / "docs" / "walkthroughs" / f"lab{number}.md"
    walkthrough = walkthrough_page(walkthrough_path.read_text(), number) if walkthrough_path.exists() else ""
    handout, walkthrough = anchor_profile_section(handout, walkthrough, number)
    if f"results_lab{number}" not in results_anchors:
        raise KeyError(f"lab {number}: docs/pages/results.md has no section {{#results_lab{number}}}")
    links = []
    if walkthrough:
        links.append(f'\\ref lab{number}_walkthrough "walkthrough (after your predictions)"')
    links += [f'\\ref lab{number}_profile "profile"', f'\\ref results_lab{number} "all results"']
    more = handouts.read_more(repo, number, site=True)
    if more:
        links.append(f'\\ref lab{number}_read_more "read more"')
    nav = '<div class="lab-nav">This page: ' + " &middot; ".join(links) + "</div>"
    lines = handout.split("\n")
    title = next(i for i, line in enumerate(lines) if line.startswith("# "))
    text = "\n".join(lines[: title + 1] + ["", nav, "", "[TOC]"] + lines[title + 1 :])
    if more:
        text += "\n\n" + more
    if walkthrough:
        walkthrough = with_toc(walkthrough) + f"\n\n---\n\nBack to the handout: \\ref lab{number}."
    return text + "\n\n" + lab_footer(number, numbers), walkthrough


LAB_RESULTS = re.compile(r"^## [^\n]*\{#results_lab(\d\d)\}[^\n]*\n", re.M)


def results_page(repo, text, device=labdata.DEFAULT_DEVICE):
    """The results page (docs/pages/results.md) with a section for every declared lab, in order: the section
    the page writes for a lab whose results need more than its record's tables, else one made here, the
    lab's tables from its record ({{results}}) or a line saying that no run of it is recorded. The labs'
    sections stand together where the page has its first; the page's other sections keep their places."""
    found = list(LAB_RESULTS.finditer(text))
    if not found:
        raise KeyError("docs/pages/results.md has no lab's section (## Lab NN ... {#results_labNN})")
    start = found[0].start()
    after = re.compile(r"^## ", re.M).search(text, found[-1].end())
    end = after.start() if after else len(text)
    written = {}
    for match, following in zip(found, found[1:] + [None]):
        written[match.group(1)] = text[match.start() : following.start() if following else end].rstrip("\n")
    sections = []
    for number in [lab.number for lab in labs.declared_labs(repo)]:
        if number in written:
            sections.append(written.pop(number))
        elif Renderer(repo / "docs" / "data", device, number).data().results is not None:
            sections.append(f"## Lab {number} {{#results_lab{number}}}\n\n{{{{lab:{number}}}}}{{{{results}}}}")
        else:
            sections.append(f"## Lab {number} {{#results_lab{number}}}\n\nNo run of this lab is recorded yet.")
    if written:
        raise KeyError(f"docs/pages/results.md: sections for labs that are not declared: {', '.join(sorted(written))}")
    return text[:start] + "\n\n".join(sections) + "\n\n" + text[end:]


def lab_folders(repo):
    """The labs that have a handout source (docs/handouts/NN_name.md)."""
    return [p for p in handouts.lab_folders(repo) if handouts.source_of(repo, p).exists()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", default=labdata.DEFAULT_DEVICE)
    args = parser.parse_args()
    repo = pathlib.Path(args.repo).resolve()
    out = pathlib.Path(args.out)
    data_dir = repo / "docs" / "data"
    pages = out / "pages"
    if pages.exists():
        shutil.rmtree(pages)
    pages.mkdir(parents=True)
    from cudalabs.docs import (
        diagrams,
    )  # matplotlib: only for drawing, so the page assembly above is testable without it
    from cudalabs.docs import plots

    drawn = plots.draw_all(data_dir, args.device, out / "plots") + diagrams.draw_all(repo, out / "plots")
    # Pictures that are records themselves: lab 09's generator output, and lab 11's (the same 64 latent
    # vectors through the FP32, BF16 and TF32 generators).
    for name, record in RECORDED_PICTURES.items():
        if (data_dir / record).exists():
            shutil.copy(data_dir / record, out / "plots" / name)
            drawn.append(name)
    Renderer.drawn = set(drawn)

    results_source = repo / "docs" / "pages" / "results.md"
    results = results_page(repo, results_source.read_text(), args.device) if results_source.exists() else ""
    results_anchors = set(re.findall(r"\{#(results_lab\d\d)\}", results))
    for folder in lab_folders(repo):
        number = folder.name[:2]
        renderer = Renderer(data_dir, args.device, number)
        text, walkthrough = lab_page(
            repo,
            number,
            handouts.without_read_more(handouts.source_of(repo, folder).read_text()),
            results_anchors,
            [f.name[:2] for f in lab_folders(repo)],
        )
        (pages / f"lab{number}.md").write_text(doxygen_markdown(link_citations(renderer.render(text))))
        if walkthrough:
            walkthrough = Renderer(data_dir, args.device, number).render(walkthrough)
            (pages / f"lab{number}_walkthrough.md").write_text(doxygen_markdown(link_citations(walkthrough)))

    # The answer keys: one instructor page from each lab's solutions/NN_name/answers.md, each lab's part
    # rendered with its data. The student release has no solutions/, and so no page.
    answers = [repo / answer_key(folder.name) for folder in handouts.lab_folders(repo)]
    answers = [path for path in answers if path.is_file()]
    if answers:
        parts = [ANSWERS_INTRO] + [
            Renderer(data_dir, args.device, path.parent.name[:2]).render(path.read_text()) for path in answers
        ]
        (pages / "answers.md").write_text(doxygen_markdown(link_citations(with_toc("\n\n".join(parts)))))

    # A page a README links is rendered in place too (make handouts); the site builds it from its source,
    # its links to other pages by their names.
    names = {page.stem for page in pages.glob("*.md")} | {page.stem for page in (repo / "docs" / "pages").glob("*.md")}
    for page, source in handouts.site_pages(repo).items():
        text = results if source == results_source else source.read_text()
        rendered = Renderer(data_dir, args.device, "00").render(with_toc(text))
        (pages / page.name).write_text(page_links(doxygen_markdown(link_citations(rendered)), names))
    print(f"generate: {len(list(pages.glob('*.md')))} pages, {len(drawn)} plots in {out}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (KeyError, ValueError) as error:
        print(f"generate: {error.args[0]}", file=sys.stderr)
        sys.exit(1)
