"""The class's results from each student's grade-report.json: the gradebook (CSV an LMS imports) and
the class summary (markdown and HTML): points per lab as histograms, the tests most often failed with
their shapes, speed relative to the solution, integrity findings and the most similar submissions.
"""
from __future__ import annotations

import csv
import html
import json
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .gtest import finding
from .lab_run import INTEGRITY
from .technique import RULE_DETAIL


@dataclass
class StudentResult:
    student: str
    status: str  # graded | no submission | grader error: ... | timed out after N s
    report_dir: Path
    report: dict | None = None  # grade-report.json, when graded
    seconds: float = 0.0


@dataclass
class SimilarPair:
    lab: str
    first: str
    second: str  # a student id, or "solution"
    percent: int


@dataclass
class ClassSummary:
    title: str
    labs: list[str]  # lab numbers in order
    results: list[StudentResult]
    similar: list[SimilarPair] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # devices, commit, date, time taken


def lab_points(result: StudentResult) -> dict[str, tuple[float, float]]:
    """Lab number -> (points, max points) of one graded student."""
    if not result.report:
        return {}
    return {lab["lab"]: (lab["points"], lab["max_points"]) for lab in result.report["labs"]}


SIMILAR_PAIRS_LISTED = 3  # per student in the gradebook


def _clause(variant: dict) -> str:
    """What one variant's state cost, in a few words ("" when nothing): every state but "passed" says
    something, and an optional challenge left unwritten costs nothing (its points are extra)."""
    state, note, name = variant.get("state", ""), variant.get("note", ""), variant["name"]
    if state == "passed" or (variant.get("challenge") and state in ("not implemented yet", "not run here")):
        return ""
    if state == "failed" and variant["failing"]:
        cases = ", ".join(f["case"] for f in variant["failing"][:4])
        more = len(variant["failing"]) - 4
        return f"{name} failing: {cases}" + (f" and {more} more" if more > 0 else "")
    if state == "not distinct":
        return f"{name} {note.split(':')[0]}"
    what = note.split(RULE_DETAIL)[0]  # a technique rule's own words, without its formula and counts
    what = what if len(what) <= 120 else what[:117] + "..."
    return f"{name} {state}" + (f": {what}" if what and state != "not implemented yet" else "")


def findings(result: StudentResult, similar: list[SimilarPair]) -> str:
    """What cost the student points, one clause per lab (the reason a lab scored 0) or per variant that
    did not pass (whatever its state), and the pairs the similarity check lists with them."""
    clauses = []
    for lab in (result.report or {}).get("labs", []):
        if lab.get("fatal") == "missing":
            continue
        if lab.get("fatal"):
            clauses.append(f"lab {lab['lab']}: {lab['fatal']}: {lab['reason']}")
            continue
        clauses += [f"lab {lab['lab']}: {c}" for c in map(_clause, lab["variants"]) if c]
    pairs = [pair for pair in similar if result.student in (pair.first, pair.second)]
    for pair in pairs[:SIMILAR_PAIRS_LISTED]:  # highest first; the class report lists them all
        clauses.append(
            f"lab {pair.lab}: similar pair: {', '.join(sorted((pair.first, pair.second)))} "
            f"({pair.percent} % of {pair.first} is {pair.second}'s)"
        )
    if len(pairs) > SIMILAR_PAIRS_LISTED:
        clauses.append(f"{len(pairs) - SIMILAR_PAIRS_LISTED} more similar pairs in the class report")
    return "; ".join(clauses)


def write_gradebook(path: Path, summary: ClassSummary, base: Path) -> None:
    """One row per student: points per lab, total, maximum, status, what cost points, report folder
    (relative to base)."""
    with open(path, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(
            ["Student ID", *[f"Lab {n}" for n in summary.labs], "Total", "Max", "Status", "Findings", "Report"]
        )
        for result in summary.results:
            points = lab_points(result)
            cells = [f"{points[n][0]:g}" if n in points else "" for n in summary.labs]
            total = sum(p for p, _ in points.values())
            maximum = sum(m for _, m in points.values())
            report = (
                result.report_dir.relative_to(base) if result.report_dir.is_relative_to(base) else result.report_dir
            )
            writer.writerow(
                [
                    result.student,
                    *cells,
                    f"{total:g}" if points else "",
                    f"{maximum:g}" if points else "",
                    result.status,
                    findings(result, summary.similar),
                    str(report),
                ]
            )


def _histogram(values: list[float], bins: int = 10) -> list[int]:
    """Counts of values (fractions in [0, 1]) in `bins` equal bins; 1.0 falls in the last."""
    counts = [0] * bins
    for value in values:
        counts[min(bins - 1, max(0, int(value * bins)))] += 1
    return counts


def points_histograms(summary: ClassSummary) -> dict[str, list[int]]:
    """Lab -> students per tenth of the lab's points (0-10 %, ..., 90-100 %)."""
    by_lab: dict[str, list[float]] = {n: [] for n in summary.labs}
    for result in summary.results:
        for number, (points, maximum) in lab_points(result).items():
            if maximum > 0 and number in by_lab:
                by_lab[number].append(points / maximum)
    return {n: _histogram(values) for n, values in by_lab.items()}


def most_failed(summary: ClassSummary, limit: int = 15) -> list[tuple[str, str, str, int, str]]:
    """(lab, variant, case, students, one message) of the tests failed by the most students. A test of a
    variant not written yet is no failure here: the gradebook names those, and a class's skeleton
    parts would fill the table."""
    counts: Counter = Counter()
    example: dict[tuple[str, str, str], str] = {}
    for result in summary.results:
        for lab in (result.report or {}).get("labs", []):
            for variant in lab["variants"]:
                for failure in variant["failing"]:
                    if failure["status"] == "not_implemented":
                        continue
                    key = (lab["lab"], variant["name"], failure["case"])
                    counts[key] += 1
                    example.setdefault(key, finding(failure["message"], 220) or failure["status"])
    return [(*key, count, example[key]) for key, count in counts.most_common(limit)]


def speed_fractions(summary: ClassSummary) -> dict[tuple[str, str], list[float]]:
    """(lab, variant) -> each student's rate as a fraction of the solution's, where measured."""
    fractions: dict[tuple[str, str], list[float]] = {}
    for result in summary.results:
        for lab in (result.report or {}).get("labs", []):
            for variant in lab["variants"]:
                rate = variant.get("rate") or {}
                if rate.get("fraction_of_solution") is not None:
                    fractions.setdefault((lab["lab"], variant["name"]), []).append(rate["fraction_of_solution"])
    return fractions


def integrity_findings(summary: ClassSummary) -> list[tuple[str, str, str]]:
    """(student, lab, reason) of every lab scored 0 for an integrity rule."""
    return [
        (result.student, lab["lab"], lab["reason"])
        for result in summary.results
        for lab in (result.report or {}).get("labs", [])
        if lab.get("fatal") == INTEGRITY
    ]


def _quartiles(values: list[float]) -> tuple[float, float, float, float, float]:
    ordered = sorted(values)
    if len(ordered) == 1:
        return (ordered[0],) * 5
    q1, q2, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    return ordered[0], q1, q2, q3, ordered[-1]


def _cell(text: str) -> str:
    """Text for a pipe-table cell: its own pipes ("|err|" in a check's message) escaped."""
    return text.replace("|", "\\|")


_CELL_BORDER = re.compile(r"(?<!\\)\|")


def markdown(summary: ClassSummary) -> str:
    out = [f"# {summary.title}", "", *[f"- {note}" for note in summary.notes], ""]
    statuses = Counter(
        r.status if not r.status.startswith(("grader error", "timed out")) else r.status.split(":")[0]
        for r in summary.results
    )
    out += ["## Students", "", ", ".join(f"{count} {status}" for status, count in statuses.most_common()), ""]
    problems = [r for r in summary.results if r.status != "graded"]
    out += [f"- {r.student}: {r.status}" for r in problems]
    out += ["", "## Points per lab", "", "Students per tenth of the lab's points (0-10 % ... 90-100 %):", ""]
    out += ["| lab | " + " | ".join(f"{10 * i}-{10 * i + 10} %" for i in range(10)) + " |", "|---" * 11 + "|"]
    for number, counts in points_histograms(summary).items():
        out.append(f"| {number} | " + " | ".join(str(c) for c in counts) + " |")
    out += ["", "## Tests most often failed", ""]
    failed = most_failed(summary)
    if failed:
        out += ["| lab | variant | shape | students | what the check found (one of them) |", "|---|---|---|---|---|"]
        out += [
            f"| {lab} | {variant} | {case} | {count} | {_cell(message)} |"
            for lab, variant, case, count, message in failed
        ]
    else:
        out.append("No test failed.")
    out += [
        "",
        "## Speed relative to the solution",
        "",
        "Each student's median rate over the reference solution's, measured in the same run on the same GPU:",
        "",
        "| lab | variant | students | min | 25 % | median | 75 % | max |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (lab, variant), values in sorted(speed_fractions(summary).items()):
        cells = " | ".join(f"{v:.2f}" for v in _quartiles(values))
        out.append(f"| {lab} | {variant} | {len(values)} | {cells} |")
    out += ["", "## Integrity", ""]
    findings = integrity_findings(summary)
    out += [f"- {student}, lab {lab}: {reason}" for student, lab, reason in findings] or ["No rule broken."]
    out += [
        "",
        "## Most similar submissions",
        "",
        "What the compiler sees (preprocessed tokens, names and literals normalized, runs the skeleton has "
        "removed), each pair and each against the solution's whole code; read the pairs before drawing any "
        "conclusion:",
        "",
    ]
    if summary.similar:
        out += ["| lab | submission | similar to | % of it |", "|---|---|---|---|"]
        out += [f"| {p.lab} | {p.first} | {p.second} | {p.percent} |" for p in summary.similar]
    else:
        out.append("No pair above the threshold.")
    return "\n".join(out) + "\n"


def html_page(summary: ClassSummary) -> str:
    """The same summary as a self-contained page, the histograms drawn as bars."""
    esc = html.escape
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>" + esc(summary.title) + "</title><style>",
        "body{font-family:sans-serif;max-width:70em;margin:2em auto}table{border-collapse:collapse;margin:1em 0}",
        "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}td:first-child{text-align:left}",
        ".bar{background:#4c72b0;height:1em;display:inline-block}</style></head><body>",
        f"<h1>{esc(summary.title)}</h1><ul>" + "".join(f"<li>{esc(n)}</li>" for n in summary.notes) + "</ul>",
        "<h2>Points per lab</h2><p>Students per tenth of the lab's points.</p><table><tr><th>lab</th>",
    ]
    parts += [f"<th>{10 * i}-{10 * i + 10} %</th>" for i in range(10)] + ["</tr>"]
    for number, counts in points_histograms(summary).items():
        widest = max(counts) or 1
        cells = "".join(
            f"<td title='{c} students'><span class='bar' style='width:{3 * c / widest:.2f}em'></span> {c}</td>"
            for c in counts
        )
        parts.append(f"<tr><td>{number}</td>{cells}</tr>")
    parts.append("</table>")
    body = "## Tests most often failed" + markdown(summary).split("\n## Tests most often failed", 1)[1]
    parts.append(markdown_html(body) + "</body></html>")
    return "".join(parts)


def markdown_html(text: str) -> str:
    """The class report's own markdown (headings, lists, pipe tables, paragraphs) as HTML: tables stay
    tables, so a gradebook's findings can be sorted and read in a browser."""
    esc = html.escape
    out, table, items = [], [], []

    def flush() -> None:
        if table:
            rows = [
                [esc(c.strip().replace("\\|", "|")) for c in _CELL_BORDER.split(line.strip()[1:-1])]
                for line in table
                if not set(line.replace("|", "").strip()) <= set("-: ")
            ]
            out.append(
                "<table><tr>"
                + "".join(f"<th>{c}</th>" for c in rows[0])
                + "</tr>"
                + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows[1:])
                + "</table>"
            )
            table.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in items) + "</ul>")
            items.clear()

    for line in text.splitlines():
        if line.startswith("|"):
            if items:
                flush()
            table.append(line)
            continue
        if line.startswith("- "):
            if table:
                flush()
            items.append(line[2:])
            continue
        flush()
        if line.startswith("## "):
            out.append(f"<h2>{esc(line[3:])}</h2>")
        elif line.strip():
            out.append(f"<p>{esc(line)}</p>")
    flush()
    return "".join(out)


def write_class_reports(out: Path, summary: ClassSummary) -> list[Path]:
    paths = [out / "gradebook.csv", out / "class-report.md", out / "class-report.html", out / "class-report.json"]
    write_gradebook(paths[0], summary, out)
    paths[1].write_text(markdown(summary))
    paths[2].write_text(html_page(summary))
    paths[3].write_text(
        json.dumps(
            {
                "title": summary.title,
                "labs": summary.labs,
                "notes": summary.notes,
                "students": [
                    {
                        "student": r.student,
                        "status": r.status,
                        "seconds": round(r.seconds, 1),
                        "points": {n: p for n, (p, _) in lab_points(r).items()},
                    }
                    for r in summary.results
                ],
                "similar": [p.__dict__ for p in summary.similar],
            },
            indent=1,
        )
        + "\n"
    )
    return paths
