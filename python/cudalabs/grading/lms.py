"""The grade in the forms learning platforms take, written beside the grader's own reports.

- Gradescope's autograder result (results.json, the file an autograder leaves at
  /autograder/results/results.json): one test per variant's correctness and per variant's speed,
  each with score and max_score, a lab-level entry for a lab that scored 0 (and why), and a
  leaderboard of each timed variant's percentage of the reference solution.
- GitHub Classroom's runner result (the JSON an autograding runner step hands to
  autograding-grading-reporter, base64-encoded, as its `result` output): status pass, fail or
  error, max_score, and one test per variant with its score.

The scores are the rubric's, to the hundredth; the sum of the tests' scores is the total. A variant
of a lab's optional challenge is extra credit: its tests carry max_score 0 (Gradescope adds a score
above a test's maximum as extra credit) and do not decide GitHub Classroom's pass or fail.
"""
from __future__ import annotations

import base64
import json


def _entries(labs) -> list[dict]:
    """One entry per (lab, variant, part): name, score, max_score, passed, output."""
    entries = []
    for lab in labs:
        prefix = f"Lab {lab.run.number} ({lab.run.folder})"
        for index, variant in enumerate(lab.variants, start=1):
            why = lab.run.reason if lab.run.fatal else (variant.note or variant.state)
            name = f"{prefix}: {variant.name}" + (" (optional challenge, extra credit)" if variant.challenge else "")
            entries.append(
                {
                    "name": f"{name}, correctness",
                    "number": f"{int(lab.run.number)}.{index}",
                    "score": round(variant.correctness, 2),
                    "max_score": 0.0 if variant.challenge else variant.correctness_max,
                    "challenge": variant.challenge,
                    "passed": variant.correctness >= variant.correctness_max > 0,
                    "output": f"{variant.passed} of {len(variant.tests)} tests passed ({variant.state})"
                    + (f": {why}" if why and why != variant.state else ""),
                }
            )
            if variant.performance_max > 0:
                fraction = variant.rate.fraction if variant.rate else None
                speed = (
                    f"{100 * fraction:.0f}% of the reference solution's rate" if fraction is not None else "not timed"
                )
                entries.append(
                    {
                        "name": f"{name}, speed",
                        "number": f"{int(lab.run.number)}.{index}.1",
                        "score": round(variant.performance, 2),
                        "max_score": 0.0 if variant.challenge else variant.performance_max,
                        "challenge": variant.challenge,
                        "passed": variant.performance >= variant.performance_max,
                        "output": speed,
                    }
                )
    return entries


def gradescope(header, labs) -> str:
    entries = _entries(labs)
    tests = [
        {
            "name": e["name"],
            "number": e["number"],
            "score": e["score"],
            "max_score": e["max_score"],
            "status": "passed" if e["passed"] else "failed",
            "output": e["output"],
            "visibility": "visible",
        }
        for e in entries
    ]
    leaderboard = []
    for lab in labs:
        for variant in lab.variants:
            if variant.rate and variant.rate.fraction is not None:
                leaderboard.append(
                    {
                        "name": f"lab{lab.run.number} {variant.name} (% of reference)",
                        "value": round(100 * variant.rate.fraction, 1),
                        "order": "desc",
                    }
                )
    fatal = [f"Lab {lab.run.number}: 0 points, {lab.run.reason}" for lab in labs if lab.run.fatal]
    output = "\n".join(
        [f"Graded on {header.device} at suite commit {header.commit}, seed {header.seed}.", header.sandbox, *fatal]
    )
    result = {
        "score": round(sum(e["score"] for e in entries), 2),
        "execution_time": int(sum(lab.run.seconds for lab in labs)),
        "output": output,
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }
    if leaderboard:
        result["leaderboard"] = leaderboard
    return json.dumps(result, indent=1) + "\n"


def classroom_result(header, labs) -> dict:
    entries = _entries(labs)
    status = "pass" if all(e["passed"] for e in entries if not e["challenge"]) else "fail"
    if any(lab.run.fatal == "could not be graded" for lab in labs):
        status = "error"
    return {
        "version": 1,
        "status": status,
        "max_score": round(sum(e["max_score"] for e in entries), 2),
        "tests": [
            {
                "name": e["name"],
                "status": "pass" if e["passed"] else "fail",
                "message": e["output"],
                "test_code": f"make grade LABS={e['number'].split('.')[0].zfill(2)}",
                "filename": "",
                "line_no": 0,
                "execution_time": "",
                "score": e["score"],
            }
            for e in entries
        ],
    }


def classroom(header, labs) -> str:
    return json.dumps(classroom_result(header, labs), indent=1) + "\n"


def classroom_base64(header, labs) -> str:
    """The runner's `result` output as autograding-grading-reporter reads it (base64 of the JSON)."""
    return base64.b64encode(json.dumps(classroom_result(header, labs)).encode()).decode()
