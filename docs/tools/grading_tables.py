"""The instructor's guide's tables that come from the grader's own files: the rubric's points and distinct rules,
and each lab's effort (the authors' estimate beside what is measured: the lines the solution adds to
the skeleton, the grading time of the recorded solutions' run)."""
import json
import pathlib
import sys

# Newest first: the class demonstration ran the full grader of today (three sanitizers, the distinct
# rule, three benchmark pairs); solutions.json is an earlier, lighter grader's run of labs 00-08.
GRADING_RECORDS = ("grading/class_demo_nvidia-h100-80gb-hbm3/solutions-report.json", "grading/solutions.json")


def _grading(repo: pathlib.Path):
    sys.path.insert(0, str(repo / "scripts"))
    from grading import rubric, similarity, solution_file  # noqa: E402
    return rubric, similarity, solution_file


def rubric_totals(repo: pathlib.Path) -> dict[str, float]:
    """Lab -> the most points tests/grading/rubric.json gives it, read by the grader's own reader, so that
    a page quoting a total follows the rubric whatever its format becomes."""
    rubric_module, _, _ = _grading(repo)
    rubric = rubric_module.load_rubric(repo / "tests" / "grading" / "rubric.json")
    return {number: float(lab.max_points) for number, lab in sorted(rubric.labs.items())}


def rubric_points(repo: pathlib.Path) -> str:
    """The points per lab and variant that tests/grading/rubric.json gives (the grader's own reader)."""
    rubric_module, _, _ = _grading(repo)
    rubric = rubric_module.load_rubric(repo / "tests" / "grading" / "rubric.json")
    rows = ["| lab | variants | correctness | performance (top tier) | lab total |", "|---|---|---|---|---|"]
    for number, lab in sorted(rubric.labs.items()):
        correctness = sum(v.correctness for v in lab.variants)
        performance = sum(v.max_performance for v in lab.variants)
        rows.append(f"| {number} | {len(lab.variants)} | {correctness:g} | {performance:g} | {lab.max_points:g} |")
    rows.append(f"| all | | | | {sum(rubric_totals(repo).values()):g} |")
    return "\n".join(rows)


def distinct_rules(repo: pathlib.Path) -> str:
    rubric_module, _, _ = _grading(repo)
    rubric = rubric_module.load_rubric(repo / "tests" / "grading" / "rubric.json")
    rows = ["| lab | what sets the variants apart | Nsight Compute metrics | problem profiled |", "|---|---|---|---|"]
    for number, lab in sorted(rubric.labs.items()):
        rule = lab.distinct
        if rule is None:
            continue
        repeats = f" ({', '.join(rule.repeats)} may repeat another)" if rule.repeats else ""
        rows.append(f"| {number} | {rule.why}{repeats} | {', '.join(f'`{m}`' for m in rule.metrics)} | "
                    f"`{' '.join(rule.args)}` |")
    return "\n".join(rows)


def code_lines_to_write(repo: pathlib.Path, folder: str) -> int:
    """Lines of code (not blank, not comments) of the solution that the skeleton does not have."""
    _, similarity, solution_file = _grading(repo)
    written = similarity.student_written(solution_file.single_file(repo, folder),
                                         (repo / "labs" / folder / "kernels.cu").read_text())
    return sum(1 for line in written.splitlines() if line.strip() and not line.strip().startswith("//"))


def grading_seconds(repo: pathlib.Path) -> dict[str, tuple[float, str]]:
    """Lab -> (seconds its grading took for the solutions, the record and device)."""
    found = {}
    for name in GRADING_RECORDS:
        path = repo / "docs" / "data" / name
        if not path.exists():
            continue
        report = json.loads(path.read_text())
        for lab in report["labs"]:
            found.setdefault(lab["lab"], (lab["seconds"], f"{name}, {report['device']}"))
    return found


def lab_effort(repo: pathlib.Path) -> str:
    effort = json.loads((repo / "docs" / "data" / "grading" / "lab_effort.json").read_text())["labs"]
    seconds = grading_seconds(repo)
    rows = ["| lab | hours (estimate) | difficulty 1-5 (estimate) | the hard part | lines to write (measured) | "
            "grading time (measured) |", "|---|---|---|---|---|---|"]
    for folder in sorted(p.name for p in (repo / "labs").glob("[0-9][0-9]_*") if p.is_dir()):
        number = folder[:2]
        if number not in effort:
            raise KeyError(f"docs/data/grading/lab_effort.json has no entry for lab {number}")
        e = effort[number]
        graded = f"{seconds[number][0]:.0f} s" if number in seconds else "not recorded"
        rows.append(f"| {number} | {e['hours']} | {e['difficulty']} | {e['hardest']} | "
                    f"{code_lines_to_write(repo, folder)} | {graded} |")
    sources = sorted({where for _, where in seconds.values()})
    return "\n".join(rows) + "\n\nGrading times: the solutions graded on " + "; ".join(sources) + "."
