"""The instructor's guide's tables that come from the grader's own files: the rubric's points and distinct rules,
and each lab's effort (the authors' estimate beside what is measured: the lines the solution adds to
the skeleton, the grading time of the recorded solutions' run)."""
import json
import pathlib

# Newest first: the class demonstration ran the full grader of today (three sanitizers, the distinct
# rule, three benchmark pairs); solutions.json is an earlier, lighter grader's run of labs 00-08.
GRADING_RECORDS = ("grading/class_demo_nvidia-h100-80gb-hbm3/solutions-report.json", "grading/solutions.json")


def read_rubric(repo: pathlib.Path) -> dict:
    """tests/grading/rubric.json, the grader's rubric."""
    return json.loads((repo / "tests" / "grading" / "rubric.json").read_text())


def variant_points(repo: pathlib.Path) -> dict[str, list[tuple[float, float]]]:
    """Lab -> [(correctness, top performance tier)] per variant of tests/grading/rubric.json, a variant's key
    overriding its lab's and a lab's overriding the defaults (the rubric's own rule, in its 'about'). The
    one place the docs read the rubric's points: a change of the rubric's format changes this function only."""
    rubric = read_rubric(repo)
    defaults = rubric.get("defaults", {})
    out = {}
    for number, lab in sorted(rubric["labs"].items()):
        rows = []
        for variant in lab.get("variants", {}).values():
            setting = lambda key: variant.get(key, lab.get(key, defaults.get(key)))  # noqa: E731
            rows.append(
                (
                    float(setting("correctness") or 0),
                    max((float(t["points"]) for t in setting("performance") or []), default=0.0),
                )
            )
        out[number] = rows
    return out


def rubric_totals(repo: pathlib.Path) -> dict[str, float]:
    """Lab -> the most points the rubric gives it: each variant's correctness points and its top
    performance tier (variant_points)."""
    return {number: sum(c + p for c, p in rows) for number, rows in variant_points(repo).items()}


def rubric_points(repo: pathlib.Path) -> str:
    """The points per lab and variant that tests/grading/rubric.json gives."""
    totals = rubric_totals(repo)
    rows = ["| lab | variants | correctness | performance (top tier) | lab total |", "|---|---|---|---|---|"]
    for number, variants in variant_points(repo).items():
        rows.append(
            f"| {number} | {len(variants)} | {sum(c for c, _ in variants):g} | {sum(p for _, p in variants):g} | "
            f"{totals[number]:g} |"
        )
    rows.append(f"| all | | | | {sum(totals.values()):g} |")
    return "\n".join(rows)


def distinct_rules(repo: pathlib.Path) -> str:
    """The rubric's distinct rules: what sets each lab's variants apart, and how it is measured."""
    rubric = read_rubric(repo)
    rows = ["| lab | what sets the variants apart | Nsight Compute metrics | problem profiled |", "|---|---|---|---|"]
    for number, lab in sorted(rubric["labs"].items()):
        rule = lab.get("distinct")
        if not rule:
            continue
        repeats = f" ({', '.join(rule['repeats'])} may repeat another)" if rule.get("repeats") else ""
        rows.append(
            f"| {number} | {rule['why']}{repeats} | {', '.join(f'`{m}`' for m in rule['metrics'])} | "
            f"`{' '.join(rule.get('args', []))}` |"
        )
    return "\n".join(rows)


def code_lines_to_write(repo: pathlib.Path, folder: str) -> int:
    """Lines of code (not blank, not comments) of the solution that the skeleton does not have."""
    from cudalabs.grading import similarity, solution_file  # the grader's own reading of what a student writes

    written = similarity.student_written(
        solution_file.single_file(repo, folder), (repo / "labs" / folder / "kernels.cu").read_text()
    )
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
    rows = [
        "| lab | hours (estimate) | difficulty 1-5 (estimate) | the hard part | lines to write (measured) | "
        "grading time (measured) |",
        "|---|---|---|---|---|---|",
    ]
    for folder in sorted(p.name for p in (repo / "labs").glob("[0-9][0-9]_*") if p.is_dir()):
        number = folder[:2]
        if number not in effort:
            raise KeyError(f"docs/data/grading/lab_effort.json has no entry for lab {number}")
        e = effort[number]
        graded = f"{seconds[number][0]:.0f} s" if number in seconds else "not recorded"
        rows.append(
            f"| {number} | {e['hours']} | {e['difficulty']} | {e['hardest']} | "
            f"{code_lines_to_write(repo, folder)} | {graded} |"
        )
    sources = sorted({where for _, where in seconds.values()})
    return "\n".join(rows) + "\n\nGrading times: the solutions graded on " + "; ".join(sources) + "."
