"""The three reports of a graded submission: Markdown for people, JSON for scripts, JUnit XML for CI
dashboards. All three are written from the same scores."""
from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from . import lms
from .gtest import finding
from .lab_run import LabRun
from .scoring import LabScore, VariantScore


@dataclass
class Header:
    submission: str
    date: str
    device: str
    commit: str
    seed: str
    rubric: str
    sandbox: str = ""  # how student code ran: sandboxed, or why not
    technique: str = ""  # how the technique rules were checked, or why not


def _points(value: float) -> str:
    return f"{value:g}"


def _ctest_pattern(test_name: str) -> str:
    """The ctest name of a GoogleTest test: one ctest per test (the grading binaries), or one per suite
    (lab 10's MPI tests, which run a suite under mpirun)."""
    if test_name.count(".") != 1:
        return re.escape(test_name)
    suite, _, test = test_name.partition(".")
    return f"{re.escape(suite)}(\\.{re.escape(test)})?"


def _states(variants: list[VariantScore], every: str) -> str:
    states = {v.state for v in variants}
    if states == {"passed"}:
        return every
    if states == {"not implemented yet"}:
        return "not implemented yet"
    return ", ".join(f"{v.name}: {v.state}" for v in variants if v.state != "passed")


def _status(lab: LabScore) -> str:
    """The core's state, then the optional challenge's apart: a complete core reads as complete."""
    if lab.run.fatal:
        return f"0 points: {lab.run.reason}"
    core = [v for v in lab.variants if not v.challenge]
    challenge = [v for v in lab.variants if v.challenge]
    if not challenge or {v.state for v in lab.variants} == {"not implemented yet"}:
        return _states(lab.variants, "every variant passes")
    untouched = {v.state for v in challenge} <= {"not implemented yet", "not run here"}
    return (
        _states(core, "every core variant passes")
        + "; optional challenge: "
        + ("not attempted" if untouched else _states(challenge, "every variant passes"))
    )


def _tests_cell(lab: LabScore) -> str:
    passed, total = lab.tests_of(challenge=False)
    extra_passed, extra_total = lab.tests_of(challenge=True)
    return f"{passed} / {total}" + (f" (challenge {extra_passed} / {extra_total})" if extra_total else "")


def _rate_cells(v: VariantScore) -> list[str]:
    if v.rate is None:
        return ["-", "-", "-"]
    student = f"{v.rate.student:,.0f}" if v.rate.student is not None else "-"
    solution = f"{v.rate.solution:,.0f}" if v.rate.solution is not None else "-"
    fraction = f"{100 * v.rate.fraction:.0f}%" if v.rate.fraction is not None else "-"
    return [
        f"{student} {v.rate.unit}" if student != "-" else "-",
        f"{solution} {v.rate.unit}" if solution != "-" else "-",
        fraction,
    ]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines


def markdown(header: Header, labs: list[LabScore]) -> str:
    total, maximum = sum(lab.points for lab in labs), sum(lab.max_points for lab in labs)
    out = [
        f"# Grade report: {header.submission}",
        "",
        f"**Total: {_points(round(total, 2))} / {_points(round(maximum, 2))} points**",
        "",
        f"- device: {header.device}",
        f"- graded: {header.date}, suite commit {header.commit}",
        f"- seed: CUDALABS_SEED={header.seed} (rerun a failing test with it to see the same inputs)",
        f"- rubric: {header.rubric}",
        *([f"- {header.sandbox}"] if header.sandbox else []),
        *([f"- technique: {header.technique}"] if header.technique else []),
        "",
        "## Summary",
        "",
    ]
    out += _table(
        ["lab", "points", "tests passed", "status"],
        [
            [
                lab.run.folder,
                f"{_points(lab.points)} / {_points(lab.max_points)}",
                _tests_cell(lab),
                _status(lab),
            ]
            for lab in labs
        ],
    )
    for lab in labs:
        out += [
            "",
            f"## Lab {lab.run.number} ({lab.run.folder}): {_points(lab.points)} / {_points(lab.max_points)}",
            "",
        ]
        if lab.challenge_max_points > 0:
            out += [
                f"The optional challenge's variants (marked *challenge*) earned {_points(lab.challenge_points)} of "
                f"{_points(lab.challenge_max_points)} extra points, counted in the lab's points beyond its maximum.",
                "",
            ]
        if lab.run.fatal:
            out += [f"**Scored 0: {lab.run.reason}**", ""]
            if lab.run.details:
                out += ["```", *lab.run.details, "```", ""]
        out += _table(
            ["variant", "state", "tests passed", "correctness", "student", "solution", "of solution", "performance"],
            [
                [
                    v.name + (" (*challenge*)" if v.challenge else ""),
                    v.state,
                    f"{v.passed} / {len(v.tests)}",
                    f"{_points(v.correctness)} / {_points(v.correctness_max)}",
                    *_rate_cells(v),
                    f"{_points(v.performance)} / {_points(v.performance_max)}",
                ]
                for v in lab.variants
            ],
        )
        failing = [v for v in lab.variants if v.failing and v.state == "failed"]
        if failing:
            out += ["", "Failing tests (shape: what the check found):", ""]
            for v in failing:
                for test in v.failing:
                    out.append(f"- `{v.name}` {test.case}: {finding(test.message, 160) or test.status}")
            first = failing[0].failing[0]
            out += [
                "",
                "The student reproduces a failing test on the same inputs in their own build:",
                "",
                f"    CUDALABS_SEED={header.seed} ctest --test-dir build -R "
                f"'^lab{lab.run.number}\\.student\\.{_ctest_pattern(first.name)}$' --output-on-failure",
            ]
        notes = [
            f"- {v.name}: {v.note}"
            for v in lab.variants
            if v.note and v.state in ("passed", "not run here", "not distinct", "technique not shown")
        ]
        if lab.run.built_on:
            notes.append(
                "- graded alone: it ran on the reference kernels of "
                + ", ".join(f"lab {n}" for n in lab.run.built_on)
                + ", not the submission's"
            )
        if lab.run.technique_note:
            notes.append(f"- technique: {lab.run.technique_note}")
        for variant, reason in lab.run.unavailable.items():
            notes.append(f"- {variant}: not run on this GPU: {reason}")
        for problem in lab.run.test_list_problems[:12]:
            notes.append(f"- test list: {problem}")
        if lab.run.benchmark_note:
            notes.append(f"- benchmark: {lab.run.benchmark_note}")
        if lab.run.sanitizers != "not run" or not lab.run.fatal:
            notes.append(f"- compute-sanitizer: {lab.run.sanitizers}")
        if lab.run.step_seconds:
            notes.append(f"- time: {step_times(lab.run)}")
        for test in lab.unscored:
            if test.status != "passed":
                notes.append(f"- suite check {test.name} (no points): {test.status}: {finding(test.message, 160)}")
        for test in lab.unmatched:
            notes.append(f"- test {test.name} is not placed by the rubric (no points): {test.status}")
        if notes:
            out += ["", *notes]
        if lab.run.logs:
            out += ["", "Logs: " + ", ".join(f"{step} `{path}`" for step, path in lab.run.logs.items())]
    return "\n".join(out) + "\n"


def step_times(run: LabRun) -> str:
    """Where the lab's grading time went, step by step, e.g. 'build 21 s, tests 64 s (98 s in all)'."""
    steps = ", ".join(f"{step} {seconds:.0f} s" for step, seconds in run.step_seconds.items())
    return steps + (f" ({run.seconds:.0f} s in all)" if run.seconds else "")


SLOWEST_LISTED = 5


def slowest_tests(run: LabRun) -> list[dict]:
    """The tests that took longest (GoogleTest's own times), where a lab's test time goes."""
    ranked = sorted(run.tests, key=lambda t: t.seconds, reverse=True)[:SLOWEST_LISTED]
    return [{"test": t.name, "seconds": round(t.seconds, 2)} for t in ranked if t.seconds > 0]


def _variant_json(v: VariantScore) -> dict:
    rate = None
    if v.rate is not None:
        rate = {
            "student": v.rate.student,
            "solution": v.rate.solution,
            "unit": v.rate.unit,
            "fraction_of_solution": v.rate.fraction,
        }
    return {
        "name": v.name,
        "state": v.state,
        "tests_passed": v.passed,
        "tests_total": len(v.tests),
        "failing": [{"test": t.name, "case": t.case, "status": t.status, "message": t.message} for t in v.failing],
        "correctness": v.correctness,
        "correctness_max": v.correctness_max,
        "performance": v.performance,
        "performance_max": v.performance_max,
        "rate": rate,
        "note": v.note,
        "challenge": v.challenge,
    }


def _technique_json(run) -> dict:
    return {
        name: {
            "passed": t.passed,
            "failures": t.failures,
            "checked": t.checked,
            "measured": t.measured,
            "facts": t.facts,
        }
        for name, t in run.technique.items()
    }


def as_json(header: Header, labs: list[LabScore]) -> str:
    data = {
        **header.__dict__,
        "points": round(sum(lab.points for lab in labs), 2),
        "max_points": round(sum(lab.max_points for lab in labs), 2),
        "labs": [
            {
                "lab": lab.run.number,
                "folder": lab.run.folder,
                "points": lab.points,
                "max_points": lab.max_points,
                "challenge_points": lab.challenge_points,
                "challenge_max_points": lab.challenge_max_points,
                "tests_passed": lab.tests_passed,
                "tests_total": lab.tests_total,
                "challenge_tests": dict(zip(("passed", "total"), lab.tests_of(challenge=True))),
                "fatal": lab.run.fatal,
                "reason": lab.run.reason,
                "details": lab.run.details,
                "sanitizers": lab.run.sanitizers,
                "benchmark_note": lab.run.benchmark_note,
                "logs": lab.run.logs,
                "technique_note": lab.run.technique_note,
                "technique": _technique_json(lab.run),
                "repeated": lab.run.repeated,
                "unavailable": lab.run.unavailable,
                "test_list_problems": lab.run.test_list_problems,
                "built_on_reference_labs": lab.run.built_on,
                "seconds": round(lab.run.seconds, 1),
                "per_student_seconds": round(lab.run.per_student_seconds, 1),
                "step_seconds": {step: round(seconds, 1) for step, seconds in lab.run.step_seconds.items()},
                "slowest_tests": slowest_tests(lab.run),
                "variants": [_variant_json(v) for v in lab.variants],
                "unscored_tests": [{"test": t.name, "status": t.status} for t in lab.unscored],
                "unmatched_tests": [{"test": t.name, "status": t.status} for t in lab.unmatched],
            }
            for lab in labs
        ],
    }
    return json.dumps(data, indent=1) + "\n"


def junit(header: Header, labs: list[LabScore]) -> str:
    root = ElementTree.Element("testsuites", name=f"grade {header.submission}")
    for lab in labs:
        suite = ElementTree.SubElement(root, "testsuite", name=f"lab{lab.run.number}", time=f"{lab.run.seconds:.1f}")
        properties = ElementTree.SubElement(suite, "properties")
        for key, value in (("points", lab.points), ("max_points", lab.max_points), ("sanitizers", lab.run.sanitizers)):
            ElementTree.SubElement(properties, "property", name=key, value=str(value))
        cases = []
        if lab.run.fatal:
            case = ElementTree.Element(
                "testcase", classname=f"lab{lab.run.number}", name=lab.run.fatal.replace(" ", "_")
            )
            ElementTree.SubElement(case, "error", message=lab.run.reason).text = "\n".join(lab.run.details)
            cases.append(case)
        for v in lab.variants:
            for test in v.tests:
                case = ElementTree.Element(
                    "testcase", classname=f"lab{lab.run.number}.{v.name}", name=test.case, time=f"{test.seconds:.3f}"
                )
                if test.status == "failed":
                    ElementTree.SubElement(case, "failure", message=finding(test.message, 160)).text = test.message
                elif test.status != "passed":
                    ElementTree.SubElement(case, "skipped", message=test.message or test.status)
                cases.append(case)
        suite.extend(cases)
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(sum(c.find("failure") is not None for c in cases)))
        suite.set("errors", str(sum(c.find("error") is not None for c in cases)))
        suite.set("skipped", str(sum(c.find("skipped") is not None for c in cases)))
    ElementTree.indent(root)
    return ElementTree.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_new(path: Path, text: str) -> None:
    """Writes `path` as a new file: whatever was there (a link too) is removed first, and the file is
    opened without following links, so nothing is ever written through one."""
    if path.is_symlink() or path.exists():
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w") as stream:
        stream.write(text)


def write_reports(directory: Path, header: Header, labs: list[LabScore]) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in (
        ("grade-report.md", markdown(header, labs)),
        ("grade-report.json", as_json(header, labs)),
        ("grade-report.xml", junit(header, labs)),
        ("results.json", lms.gradescope(header, labs)),
        ("classroom-result.json", lms.classroom(header, labs)),
    ):
        path = directory / name
        write_new(path, text)
        paths.append(path)
    write_new(directory / "classroom-result.b64", lms.classroom_base64(header, labs) + "\n")
    return paths
