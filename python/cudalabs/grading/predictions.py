"""A lab's predictions, handed in: the student's filled-in "Predict first" table, written before the lab
was measured, as `<lab folder>/predictions.md` beside its kernels.cu. The grader collects the file into the
report folder (labNN_predictions.md) for the instructor to read against the answer keys (solutions/NN_name/answers.md,
never in the student release), and gives the rubric's points for handing it in: a file with text in it.
Whether the predictions were right is the instructor's call, never the grader's.

The rubric's top-level `predictions` entry: {"file": "predictions.md", "points": 1}.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..paths import answer_key
from .scoring import VariantScore
from .submission import Lab, _read_regular

NAME = "predictions.md"


@dataclass(frozen=True)
class Rule:
    file: str = NAME
    points: float = 0.0


def read_rule(rubric_path: Path) -> Rule:
    """The rubric's `predictions` entry; no entry gives no points. A malformed one raises ValueError naming
    the key."""
    entry = json.loads(Path(rubric_path).read_text()).get("predictions")
    if entry is None:
        return Rule()
    if not isinstance(entry, dict) or set(entry) - {"file", "points", "about"}:
        raise ValueError(f"rubric {rubric_path}: predictions = {entry!r}: expected {{'file': NAME, 'points': N}}")
    name, points = entry.get("file", NAME), entry.get("points", 0)
    if not isinstance(name, str) or "/" in name or not name.endswith(".md"):
        raise ValueError(f"rubric {rubric_path}: predictions.file = {name!r}: expected a file name ending in .md")
    if isinstance(points, bool) or not isinstance(points, (int, float)) or points < 0:
        raise ValueError(f"rubric {rubric_path}: predictions.points = {points!r}: expected a number >= 0")
    return Rule(name, float(points))


def collect(submission: Path, lab: Lab, out: Path, rule: Rule, lab_scored_zero: bool = False) -> VariantScore:
    """The lab's predictions as one more line of its score: copied to out/labNN_predictions.md when the
    submission has them (a regular file with text, no link), with the rule's points; none when they are
    missing or empty, or when the lab scored 0 (a lab that does not compile or breaks a rule scores 0)."""
    score = VariantScore(name=rule.file, state="not handed in", correctness_max=rule.points)
    data = _read_regular(Path(submission) / lab.folder / rule.file)
    if data is None or not data.decode("utf-8", errors="replace").strip():
        score.note = f"no {lab.folder}/{rule.file} with the filled-in Predict first table"
        return score
    copy = Path(out) / f"lab{lab.number}_predictions.md"
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_bytes(data)
    if lab_scored_zero:
        score.state = "lab scored 0"
        score.note = f"handed in ({copy.name}), but the lab scored 0"
        return score
    score.state = "passed"
    score.correctness = rule.points
    score.note = f"handed in: {copy.name}, to read against the answer key ({answer_key(lab.folder).as_posix()})"
    return score
