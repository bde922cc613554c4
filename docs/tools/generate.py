#!/usr/bin/env python3
"""Generates the docs site's pages and plots from the handout sources (docs/handouts/), the walkthrough
templates and docs/data/.

  generate.py --repo ROOT --out DIR [--device SLUG]

writes DIR/pages/*.md (the main page, one page per lab: handout + walkthrough, results, guides) and
DIR/plots/*.svg. The placeholders the templates may use are listed in render.py.
"""
import argparse
import pathlib
import shutil
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from doxygen_text import doxygen_markdown, link_citations  # noqa: E402
import diagrams  # noqa: E402
import labdata  # noqa: E402
import plots  # noqa: E402
import handouts  # noqa: E402
from render import RECORDED_PICTURES, Renderer  # noqa: E402

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
    drawn = plots.draw_all(data_dir, args.device, out / "plots") + diagrams.draw_all(repo, out / "plots")
    # Pictures that are records themselves: lab 09's generator output, and lab 11's (the same 64 latent
    # vectors through the FP32, BF16 and TF32 generators).
    for name, record in RECORDED_PICTURES.items():
        if (data_dir / record).exists():
            shutil.copy(data_dir / record, out / "plots" / name)
            drawn.append(name)
    Renderer.drawn = set(drawn)

    for folder in lab_folders(repo):
        number = folder.name[:2]
        renderer = Renderer(data_dir, args.device, number)
        text = handouts.source_of(repo, folder).read_text()
        walkthrough = repo / "docs" / "walkthroughs" / f"lab{number}.md"
        if walkthrough.exists():
            text += "\n\n" + walkthrough.read_text()
        text += "\n\n" + lab_footer(number, [f.name[:2] for f in lab_folders(repo)])
        (pages / f"lab{number}.md").write_text(doxygen_markdown(link_citations(renderer.render(text))))

    # The answer keys: one instructor page from docs/answers/, each lab's part rendered with its data.
    # The student release (make release-students) leaves docs/answers/ out, and so this page.
    answers = sorted((repo / "docs" / "answers").glob("lab[0-9][0-9].md"))
    if answers:
        parts = [ANSWERS_INTRO] + [Renderer(data_dir, args.device, path.stem[3:]).render(path.read_text())
                                   for path in answers]
        (pages / "answers.md").write_text(doxygen_markdown(link_citations("\n\n".join(parts))))

    for page in sorted((repo / "docs" / "pages").glob("*.md")):
        (pages / page.name).write_text(doxygen_markdown(link_citations(
            Renderer(data_dir, args.device, "00").render(page.read_text()))))
    print(f"generate: {len(list(pages.glob('*.md')))} pages, {len(drawn)} plots in {out}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyError as error:
        print(f"generate: {error.args[0]}", file=sys.stderr)
        sys.exit(1)
