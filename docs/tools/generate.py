#!/usr/bin/env python3
"""Generates the docs site's pages and plots from the handouts, the walkthrough templates and docs/data/.

  generate.py --repo ROOT --out DIR [--device SLUG]

writes DIR/pages/*.md (the main page, one page per lab: handout + walkthrough, results, guides) and
DIR/plots/*.svg. Templates may use:
  {{results}} {{sweep}}                  the lab's timing tables (docs/data/results)
  {{section:sol|occupancy|memory|stalls|banks|issue}}   an Nsight Compute section as a table
  {{plot:NAME.svg}}                      an image drawn by plots.py
  {{gflops:VARIANT}} {{ms:VARIANT}} {{pct:VARIANT}}    one timing (default problem), also VARIANT@PROBLEM
  {{metric:VARIANT:NCU_METRIC:FORMAT}}   one profile value (FORMAT: pct, ratio, count, gb, ms, float1)
  {{ceiling:fma|bandwidth|ridge}}        lab 00's measured ceilings
  {{coarsening:case1|case2}}             lab 08: every factor, H100 next to seed 002's table
  {{coarsening_speedup:case1|case2}}     lab 08: the best factor's speedup over factor 1
  {{bad_input_tests}}                    the command-line bad-input tests (tests/cli/CliTests.cmake)
  {{lab:NN}}                             set the lab the placeholders above refer to
A placeholder whose data is missing fails the build, so a page never shows a stale or invented number.
"""
import argparse
import pathlib
import re
import shutil
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import labdata  # noqa: E402
import reliability  # noqa: E402
import plots  # noqa: E402

FORMATS = {
    "pct": lambda v: f"{v:.1f} %",
    "ratio": lambda v: f"{v:.2f}",
    "count": lambda v: f"{v:,.0f}",
    "gb": lambda v: f"{v / 1e9:.2f} GB",
    "ms": lambda v: f"{v / 1e6:.2f} ms",
    "float1": lambda v: f"{v:.1f}",
}


PLOT_CAPTIONS = {
    "progression.svg": "Best variant of every lab at 4096^3 against cuBLAS and the measured FP32 ceiling",
    "roofline.svg": "The measured roofline with every profiled kernel placed by its DRAM intensity",
    "gemm_sweep.svg": "Labs 05-07 and cuBLAS across problem sizes",
    "lab04_block_size.svg": "Rate and occupancy against the block edge",
    "lab08_coarsening.svg": "Speedup and achieved occupancy against the coarsening factor, H100 and seed 002",
}


class Renderer:
    def __init__(self, data_dir, device, lab):
        self.data_dir = data_dir
        self.device = device
        self.lab = lab
        self.cache = {}

    def data(self):
        if self.lab not in self.cache:
            self.cache[self.lab] = labdata.LabData(self.data_dir, self.lab, self.device)
        return self.cache[self.lab]

    def require(self, thing, what):
        if thing is None:
            raise KeyError(f"lab {self.lab}: no {what} for {self.device}")
        return thing

    def replace(self, match):
        key, _, arg = match.group(1).partition(":")
        if key == "lab":
            self.lab = arg
            return ""
        d = self.data()
        if key == "results":
            return self.require(d.results, "results").tables()
        if key == "coarsening":
            self.require(d.results, "results")
            return labdata.coarsening_table(d, self.data_dir, arg)
        if key == "bad_input_tests":
            return reliability.table(pathlib.Path(self.data_dir).parent.parent)
        if key == "coarsening_speedup":
            self.require(d.results, "results")
            best = max(labdata.coarsening_rows(d, arg), key=lambda r: r["speedup"])
            return f"{best['speedup']:.2f}x faster than factor 1"
        if key == "sweep":
            return self.require(d.sweep, "sweep").tables()
        if key == "section":
            return self.require(d.profile, "profile").table(labdata.SECTIONS[arg])
        if key == "plot":
            caption = PLOT_CAPTIONS.get(arg, f"Every variant of lab {self.lab} against cuBLAS and the FP32 ceiling")
            return f"![{caption}]({arg})"
        if key in ("gflops", "ms", "pct"):
            results = self.require(d.results, "results")
            variant, _, problem = arg.partition("@")
            if key == "pct":
                return f"{results.percent_of_cublas(variant, problem or None):.1f} %"
            entry = results.cublas(problem or results.problems()[0]) if variant == "cublas" else results.entry(variant, problem or None)
            return f"{entry['gflops']:,.0f}" if key == "gflops" else f"{entry['real_time']:.2f}"
        if key == "metric":
            variant, metric, fmt = arg.split(":")
            return FORMATS[fmt](self.require(d.profile, "profile").value(variant, metric))
        if key == "ceiling":
            fma, bandwidth = plots.ceilings(self.data_dir, self.device)
            return {"fma": f"{fma:,.0f} GFLOP/s", "bandwidth": f"{bandwidth:,.0f} GB/s",
                    "ridge": f"{fma / bandwidth:.1f} FLOP/byte"}[arg]
        raise KeyError(f"unknown placeholder {{{{{match.group(1)}}}}}")

    def render(self, text):
        return re.sub(r"\{\{([^}]+)\}\}", self.replace, text)


def lab_folders(repo):
    return sorted(p for p in (repo / "labs").glob("[0-9][0-9]_*") if (p / "README.md").exists())


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
    drawn = plots.draw_all(data_dir, args.device, out / "plots")

    for folder in lab_folders(repo):
        number = folder.name[:2]
        renderer = Renderer(data_dir, args.device, number)
        text = (folder / "README.md").read_text()
        walkthrough = repo / "docs" / "walkthroughs" / f"lab{number}.md"
        if walkthrough.exists():
            text += "\n\n" + walkthrough.read_text()
        (pages / f"lab{number}.md").write_text(renderer.render(text))

    for page in sorted((repo / "docs" / "pages").glob("*.md")):
        (pages / page.name).write_text(Renderer(data_dir, args.device, "00").render(page.read_text()))
    print(f"generate: {len(list(pages.glob('*.md')))} pages, {len(drawn)} plots in {out}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyError as error:
        print(f"generate: {error.args[0]}", file=sys.stderr)
        sys.exit(1)
