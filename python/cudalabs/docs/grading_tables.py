"""The instructor's guide's tables that come from the grader's own files: the rubric's points and distinct rules,
and each lab's effort (the authors' estimate beside what is measured: the lines the solution adds to
the skeleton, the grading time of the recorded solutions' run)."""
import csv
import json
import pathlib
import re

from cudalabs.labs import core_labs, declared_labs
from cudalabs.paths import RUBRIC_IN_SUITE

# Newest first per lab, whatever their rubric (lab 12's full-rubric run stays ahead of the quick runs graded
# after it, which the guide quotes on its own; lab 07's run at e61a5f6 is left out: its benchmark step still
# held the reference solution's build, which a class pays once): the grader's own cost changes with the
# grader. Issue 52's runs (operands through shared memory, the timed checks from running totals, every probe
# in one Nsight Compute run) graded lab 12 with the full rubric and labs 00-07 and 13 with one timed pair; a
# planted class (a folder: its solutions' seconds in step_seconds.csv beside the run's environment.txt) graded
# with one timed pair of one round per variant (QUICK=1). An older, lighter grader's times (solutions.json)
# are no guide to today's: a lab no run of these graded says "not recorded". Each record's rubric is named.
QUICK = "one timed pair per variant"
FULL = "the full rubric"
GRADING_RECORDS = (
    ("grading/issue52_data_path_nvidia-h200/selftest_3bddfd9/07-11/grade-report.json", QUICK),
    ("grading/issue52_data_path_nvidia-h200/selftest_c16b101/11/grade-report.json", QUICK),
    ("grading/issue52_data_path_nvidia-h200/selftest_ef5c3a8/12-00-13/grade-report.json", QUICK),
    ("grading/issue52_data_path_nvidia-h200/selftest_9ee8fd7/07/grade-report.json", QUICK),
    ("grading/issue52_data_path_nvidia-h200/selftest_1a8d943/09/grade-report.json", QUICK),
    ("grading/issue52_data_path_nvidia-h200/selftest_e61a5f6/13-10/grade-report.json", QUICK),
    ("grading/issue52_data_path_nvidia-h200/selftest_e61a5f6/08/grade-report.json", QUICK),
    ("grading/issue52_data_path_nvidia-h200/selftest_e61a5f6/01-06/grade-report.json", QUICK),
    ("grading/issue52_data_path_nvidia-h200/quick_11/grade-report.json", QUICK),
    ("grading/issue52_data_path_nvidia-h200/lab12_full_one_profile/grade-report.json", FULL),
    ("grading/issue52_data_path_nvidia-h200/selftest_e61a5f6/12-00/grade-report.json", QUICK),
    ("grading/issue52_data_path_nvidia-h200/quick_07/grade-report.json", QUICK),
    ("grading/class_demo_issue52_nvidia-h200", QUICK),
    ("grading/issue52_data_path_nvidia-h200/lab12_full/grade-report.json", FULL),
    ("grading/issue52_data_path_nvidia-h200/quick_13/grade-report.json", QUICK),
    ("grading/issue52_data_path_nvidia-h200/quick_00-03-04-06-13/grade-report.json", QUICK),
    ("grading/issue52_data_path_nvidia-h200/quick_00-01-02-05/grade-report.json", QUICK),
    ("grading/class_demo_grown_2x-nvidia-h200", QUICK),
    ("grading/class_demo_labs-00-04-06-08-09-11_4x-nvidia-h200", QUICK),
    ("grading/class_demo_nvidia-h100-80gb-hbm3/solutions-report.json", FULL),
)
QUICK_CLASS_RECORDS = tuple(name for name, _ in GRADING_RECORDS if not name.endswith(".json"))


def read_rubric(repo: pathlib.Path) -> dict:
    """The grader's rubric in the suite at `repo`."""
    return json.loads((repo / RUBRIC_IN_SUITE).read_text())


def variant_points(repo: pathlib.Path, challenge: bool = False) -> dict[str, list[tuple[float, float]]]:
    """Lab -> [(correctness, top performance tier)] per variant of the rubric (the core's,
    or with `challenge` the optional challenge's), a variant's key overriding its lab's and a lab's
    overriding the defaults (the rubric's own rule, in its 'about'). The one place the docs read the
    rubric's points: a change of the rubric's format changes this function only."""
    rubric = read_rubric(repo)
    defaults = rubric.get("defaults", {})
    out = {}
    for number, lab in sorted(rubric["labs"].items()):
        rows = []
        for variant in lab.get("variants", {}).values():
            if bool(variant.get("challenge", False)) != challenge:
                continue
            setting = lambda key: variant.get(key, lab.get(key, defaults.get(key)))  # noqa: E731
            rows.append(
                (
                    float(setting("correctness") or 0),
                    max((float(t["points"]) for t in setting("performance") or []), default=0.0),
                )
            )
        out[number] = rows
    return out


def predictions_points(repo: pathlib.Path) -> float:
    """The points the rubric's `predictions` entry gives each lab for its handed-in predictions.md (0: none)."""
    return float((read_rubric(repo).get("predictions") or {}).get("points", 0))


def rubric_totals(repo: pathlib.Path, challenge: bool = False) -> dict[str, float]:
    """Lab -> the most points the rubric gives its core (or its optional challenge, extra): each
    variant's correctness points and its top performance tier (variant_points), and the core's the points
    for handing in the predictions."""
    extra = 0.0 if challenge else predictions_points(repo)
    return {number: sum(c + p for c, p in rows) + extra for number, rows in variant_points(repo, challenge).items()}


def rubric_points(repo: pathlib.Path) -> str:
    """The points per lab and variant that the rubric gives."""
    totals, extra = rubric_totals(repo), rubric_totals(repo, challenge=True)
    challenges = variant_points(repo, challenge=True)
    handed_in = predictions_points(repo)
    rows = [
        "| lab | core variants | correctness | performance (top tier) | predictions.md handed in | lab total | "
        "optional challenge (extra) |",
        "|---|---|---|---|---|---|---|",
    ]
    for number, variants in variant_points(repo).items():
        bonus = f"{len(challenges[number])} variants, {extra[number]:g} points" if challenges[number] else "none"
        rows.append(
            f"| {number} | {len(variants)} | {sum(c for c, _ in variants):g} | {sum(p for _, p in variants):g} | "
            f"{handed_in:g} | {totals[number]:g} | {bonus} |"
        )
    rows.append(f"| all | | | | | {sum(totals.values()):g} | {sum(extra.values()):g} |")
    return "\n".join(rows)


def technique_rules(repo: pathlib.Path) -> str:
    """The rubric's technique rules per lab: what each variant's kernels must do on the GPU, as
    measured by Nsight Compute, and what must set the variants apart (the distinct rule)."""
    rubric = read_rubric(repo)
    rows = [
        "| lab | variants | what the profile must show (what it credits) | rule | what padding costs |",
        "|---|---|---|---|---|",
    ]
    for number, lab in sorted(rubric["labs"].items()):
        technique = lab.get("technique") or {}
        for rule in technique.get("rules", []):
            variants = "all" if rule["variants"] == ["*"] else ", ".join(rule["variants"])
            rows.append(f"| {number} | {variants} | {rule['why']} | `{rule['require']}` | {rule.get('padding', '')} |")
        distinct = technique.get("distinct")
        if distinct:
            measured = ", ".join(f"`{m}`" for m in distinct.get("measure", []))
            # Variants the given code builds from the same kernels (lab 07's best picks one of them).
            exempt = distinct.get("may_repeat", [])
            pairs = "each pair" + (f" but {', '.join(exempt)}, which may repeat one" if exempt else "")
            rows.append(f"| {number} | {pairs} | distinct: {distinct['why']} | differ in {measured} | |")
    return "\n".join(rows)


# The line that opens a lab's optional challenge, in the skeleton's kernels.cu and in the solution (its
# kernels.cu with its solutions/ headers written in place): what comes before it is the core.
CHALLENGE_MARKER = "// ---- The optional challenge"


def split_at_challenge(text: str) -> tuple[str, str]:
    """(core, optional challenge) of a kernels.cu, at CHALLENGE_MARKER ("" when there is none)."""
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if line.startswith(CHALLENGE_MARKER)), len(lines))
    return "\n".join(lines[:at]), "\n".join(lines[at:])


def code_lines_to_write(repo: pathlib.Path, folder: str) -> tuple[int, int]:
    """Lines of code (not blank, not comments) of the solution that the skeleton does not have: (the
    core's, the optional challenge's)."""
    from cudalabs.grading import similarity, solution_file  # the grader's own reading of what a student writes

    skeleton = (repo / "labs" / folder / "kernels.cu").read_text()
    core, challenge = split_at_challenge(solution_file.single_file(repo, folder))
    return _code_lines(similarity.student_written(core, skeleton)), _code_lines(
        similarity.student_written(challenge, skeleton)
    )


def _class_devices(folder: pathlib.Path) -> str:
    """'4 x NVIDIA H200' from a class run's environment.txt (nvidia-smi's CSV: a header, a line per GPU)."""
    lines = (folder / "environment.txt").read_text().splitlines()
    names = [line.split(",")[0] for line in lines[1:] if line.count(",") >= 3]
    return f"{len(names)} x {names[0]}" if names else "an unrecorded device"


def grading_seconds(repo: pathlib.Path) -> dict[str, tuple[float, str]]:
    """Lab -> (seconds its grading took for the solutions, the record, device and rubric), from the newest
    record of GRADING_RECORDS that graded it: a grade report, or a class folder's solutions. What a class
    pays once (the reference solution's build, a step of its own since 1a8d943) is left out where the
    record says (its per_student_seconds)."""
    found = {}
    for name, rubric in GRADING_RECORDS:
        path = repo / "docs" / "data" / name
        if not path.exists():
            continue
        # per_student_seconds where the record has it (reports since 1a8d943), else all of it
        if name.endswith(".json"):
            report = json.loads(path.read_text())
            for lab in report["labs"]:
                seconds = lab.get("per_student_seconds", lab["seconds"])
                found.setdefault(lab["lab"], (seconds, f"{name}, {report['device']}, {rubric}"))
        elif (path / "step_seconds.csv").exists():
            source = f"{name}/step_seconds.csv, {_class_devices(path)}, {rubric}"
            with open(path / "step_seconds.csv") as file:
                for row in csv.DictReader(file):
                    if row["student"] == f"solution_{row['lab']}":
                        seconds = float(row.get("per_student_seconds") or row["seconds"])
                        found.setdefault(row["lab"], (seconds, source))
    return found


CLASS = 100  # students, for the grading time of a class


def read_effort(repo: pathlib.Path) -> dict:
    """Lab -> its declaration's effort (labs/NN_name/lab.json): the hours a student needs for the lab or its
    core, the difficulty (1 easy - 5 hard), the hard part, and who wrote its student version (in the student
    edition too: the handouts quote the hours). The hours are an estimate, not a measurement: no class has
    timed them. They follow from the model below (READING_WORDS_PER_HOUR, LINES_PER_HOUR, FIXED_HOURS) fed by
    two counts: the words of the lab's handout and the code lines of its core's student version
    (tests/grading/student_versions/, written by a coding assistant from the handout and the skeleton alone;
    its writing time is no student's and is not used); repo.test_handouts checks that the hours stay within
    an hour of the model's. The difficulty and the hard part are the authors' judgement."""
    return {lab.number: lab.effort for lab in declared_labs(repo)}


def hours(repo: pathlib.Path, number: str) -> str:
    """The time a handout quotes for lab `number`: "about 4-6 hours"."""
    effort = read_effort(repo)
    if number not in effort:
        raise KeyError(f"lab {number} is not declared (labs/{number}_name/lab.json)")
    value = effort[number]["hours"]
    return f"about {value} hour{'' if value == '1' else 's'}"


# The hours model: a lab's time from measured evidence, as (fast student, slow student). Careful reading of
# a technical handout (with its code and tables, and going back to it); GPU code written and debugged
# (the index arithmetic and the synchronisation are most of the time); predicting, running, profiling
# and answering the questions.
READING_WORDS_PER_HOUR = (3000, 1500)
LINES_PER_HOUR = (30, 12)
FIXED_HOURS = (1, 2)
STUDENT_VERSIONS = pathlib.Path("tests") / "grading" / "student_versions"


def _code_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("//"))


def student_version_lines(repo: pathlib.Path, folder: str) -> int | None:
    """Code lines a lab's student version wrote for the core (tests/grading/student_versions/<folder>/:
    each file against the skeleton's file of the same name, before the challenge marker: the hours a
    handout quotes are the core's), or None when the lab has none."""
    from cudalabs.grading import similarity

    version = repo / STUDENT_VERSIONS / folder
    if not version.is_dir():
        return None
    files = sorted(
        path
        for path in version.iterdir()
        if path.suffix in (".cu", ".cpp", ".cuh", ".h") and not optional_file(repo, folder, path.name)
    )
    return sum(
        _code_lines(
            similarity.student_written(
                split_at_challenge(path.read_text())[0], (repo / "labs" / folder / path.name).read_text()
            )
        )
        for path in files
    )


def optional_file(repo: pathlib.Path, folder: str, name: str) -> bool:
    """Whether a whole file of a lab is optional: its skeleton opens with the challenge marker (lab 10's MPI
    parts), so none of it counts toward the core's hours."""
    skeleton = repo / "labs" / folder / name
    return skeleton.is_file() and not split_at_challenge(skeleton.read_text())[0].strip()


# A part of a handout that is not part of the lab (no test, no points: lab 13's steps past its challenge) sits
# between these markers; nobody has to read it to do the lab, so its words are not in the hours.
_BEYOND_THE_LAB = re.compile(r"<!--beyond-the-lab-->.*?<!--/beyond-the-lab-->", re.S)


def handout_words(repo: pathlib.Path, folder: str) -> int:
    """Words of the handout a student reads for the lab (labs/<folder>/README.md, rendered, less any part
    marked as beyond the lab). A new lab's README is not rendered yet when make handouts first renders this
    table: then its source's words, until the next pass (handouts.py renders until nothing changes)."""
    readme = repo / "labs" / folder / "README.md"
    text = (readme if readme.is_file() else repo / "docs" / "handouts" / f"{folder}.md").read_text()
    return len(_BEYOND_THE_LAB.sub(" ", text).split())


def model_hours(words: int, lines: int) -> tuple[int, int]:
    """The hours model: (fast, slow) reading + writing + the fixed part, rounded to whole hours."""
    low, high = (words / READING_WORDS_PER_HOUR[i] + lines / LINES_PER_HOUR[i] + FIXED_HOURS[i] for i in (0, 1))
    return max(1, round(low)), max(1, round(high))


def _lines_cell(core: int, challenge: int) -> str:
    return f"{core}" + (f" (+ {challenge} in the optional challenge)" if challenge else "")


def lab_effort(repo: pathlib.Path) -> str:
    """The instructors' table of time per lab: the hours (each lab.json's effort, from the model), the evidence
    they come from (the handout's words, the lines a version of the core needed), the difficulty and the
    grading time. No writing time: the versions were written by a program, whose time is no student's."""
    effort = read_effort(repo)
    seconds = grading_seconds(repo)
    rows = [
        "| lab | hours (estimate) | difficulty 1-5 | the hard part | handout words | lines to write (solution) | "
        "lines of the core's student version | grading time |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for folder in (lab.folder for lab in declared_labs(repo)):
        number = folder[:2]
        e = effort[number]
        graded = "not recorded"
        if number in seconds:  # and what a class of 100 costs one GPU
            graded = f"{seconds[number][0]:.0f} s ({CLASS} students: {seconds[number][0] * CLASS / 3600:.1f} h)"
        version = e.get("student_version", {})
        lines = student_version_lines(repo, folder)
        if lines is None or not version:
            written = "none yet"
            hours_cell = f"{e['hours']} (authors' estimate)"
        else:
            written = f"{lines}" + (f" ({version['note']})" if version.get("note") else "")
            hours_cell = e["hours"]
        rows.append(
            f"| {number} | {hours_cell} | {e['difficulty']} | {e['hardest']} | {handout_words(repo, folder):,} | "
            f"{_lines_cell(*code_lines_to_write(repo, folder))} | {written} | {graded} |"
        )
    sources = {}
    for number, (_, where) in sorted(seconds.items()):
        sources.setdefault(where, []).append(number)
    listed = "; ".join(
        f"{where} ({'lab' if len(labs) == 1 else 'labs'} {', '.join(labs)})" for where, labs in sources.items()
    )
    return (
        "\n".join(rows) + "\n\nGrading times: the solutions graded on " + listed + ". The full rubric times"
        " three pairs of five rounds per variant, so where one timed pair was recorded its benchmark step"
        " takes longer than shown."
    )


SEMESTER = "docs/data/course/semester.json"


def hour_range(text: str) -> tuple[float, float]:
    """ "4-9" -> (4, 9); "3" -> (3, 3)."""
    low, _, high = text.partition("-")
    return float(low), float(high or low)


def semester_weeks(repo: pathlib.Path) -> list[dict]:
    """The plan's weeks, each with its hours (fast, slow): every lab's hours spread evenly over its weeks."""
    weeks = json.loads((repo / SEMESTER).read_text())["weeks"]
    effort = read_effort(repo)
    spans = {}
    for week in weeks:
        for lab in week["labs"]:
            spans[lab] = spans.get(lab, 0) + 1
    out = []
    for number, week in enumerate(weeks, start=1):
        fast = sum(hour_range(effort[lab]["hours"])[0] / spans[lab] for lab in week["labs"])
        slow = sum(hour_range(effort[lab]["hours"])[1] / spans[lab] for lab in week["labs"])
        out.append({**week, "week": number, "hours": (fast, slow)})
    return out


def semester_plan(repo: pathlib.Path) -> str:
    """The instructors' guide's fourteen weeks: what each week does and the hours it asks (the model's
    estimate, a fast and a slow student), then the total."""
    weeks = semester_weeks(repo)
    rows = ["| week | lab | what the week is for | hours (estimate) |", "|---|---|---|---|"]
    for week in weeks:
        labs = " and ".join(week["labs"])
        fast, slow = week["hours"]
        rows.append(f"| {week['week']} | {labs} | {week['focus']} | {fast:.0f}-{slow:.0f} |")
    fast = sum(w["hours"][0] for w in weeks)
    slow = sum(w["hours"][1] for w in weeks)
    rows.append(f"| all | {len(core_labs(repo))} labs | the core | {fast:.0f}-{slow:.0f} |")
    return "\n".join(rows)
