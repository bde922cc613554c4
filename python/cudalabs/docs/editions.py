"""One text for both editions of the suite: the instructors' (with solutions/ and the grader) and the
student release (make release-students, a copy without them). What holds in one edition only is marked
in the text with HTML comments, which a Git host and the docs site never show:

  <!--instructors-->TEXT<!--/instructors-->   TEXT in the instructors' edition only
  <!--students:TEXT-->                        TEXT in the student release only

Either stands inline, or with its markers on lines of their own around whole lines (the marker lines go
too). The handouts, the rendered pages and the site resolve the marks when they render (render.py); the
main README.md, the one file a Git host shows as written, keeps them, and make release-students writes
the release's README.md with the student parts. A student part shown by the README as a comment must not
hold "--" (GitHub's markdown ends a comment's recognition there). A rendered source cannot show a mark as
text, even in code: it is resolved like any other (this docstring and docs/handouts/README.md show them).
"""
from __future__ import annotations

import pathlib
import re

INSTRUCTORS, STUDENTS = "instructors", "students"

# A block's marker lines go, and no blank line is doubled: a kept block set apart by blank lines inside
# its markers (as a heading or a table must be, for a Git host to see the marker as a block of its own)
# drops one of them, and so does a dropped block that stands between blank lines.
_BLOCK = r"^[ \t]*{open}[ \t]*\n(?P<apart>[ \t]*\n)?(?P<text>.*?)^[ \t]*{close}[ \t]*\n(?P<after>[ \t]*\n)?"
_BLOCK_INSTRUCTORS = re.compile(_BLOCK.format(open="<!--instructors-->", close="<!--/instructors-->"), re.M | re.S)
_BLOCK_STUDENTS = re.compile(_BLOCK.format(open="<!--students:", close="-->"), re.M | re.S)
_INLINE_INSTRUCTORS = re.compile(r"<!--instructors-->(.*?)<!--/instructors-->", re.S)
_INLINE_STUDENTS = re.compile(r"<!--students:(.*?)-->", re.S)
_LEFT_OVER = re.compile(r"<!--/?(?:instructors|students)\b")


def of(repo: pathlib.Path) -> str:
    """The edition a copy of the suite is: the instructors' has solutions/, the student release has not."""
    return INSTRUCTORS if (pathlib.Path(repo) / "solutions").is_dir() else STUDENTS


def _block(match: re.Match, keep: bool) -> str:
    after = match.group("after") or ""
    if keep:
        return match.group("text") + ("" if match.group("apart") else after)
    between_blank_lines = match.start() == 0 or match.string[: match.start()].endswith("\n\n")
    return "" if between_blank_lines else after


def resolve(text: str, edition: str, name: str = "the text") -> str:
    """TEXT as the edition shows it: the other edition's parts out, the markers gone. A marker without
    its partner raises ValueError naming the line."""
    if edition not in (INSTRUCTORS, STUDENTS):
        raise ValueError(f"edition '{edition}' is not {INSTRUCTORS} or {STUDENTS}")
    students = edition == STUDENTS
    text = _BLOCK_INSTRUCTORS.sub(lambda m: _block(m, keep=not students), text)
    text = _BLOCK_STUDENTS.sub(lambda m: _block(m, keep=students), text)
    text = _INLINE_INSTRUCTORS.sub(lambda m: "" if students else m.group(1), text)
    text = _INLINE_STUDENTS.sub(lambda m: m.group(1) if students else "", text)
    left = _LEFT_OVER.search(text)
    if left:
        line = text.count("\n", 0, left.start()) + 1
        raise ValueError(f"{name}: an edition marker without its partner on line {line} (after resolving)")
    return text


def student_parts(text: str) -> list[str]:
    """The text of every student-only part (what the instructors' README carries as comments)."""
    return [m.group("text") for m in _BLOCK_STUDENTS.finditer(text)] + [
        m.group(1) for m in _INLINE_STUDENTS.finditer(_BLOCK_STUDENTS.sub("", text))
    ]


def has_marks(text: str) -> bool:
    return bool(_LEFT_OVER.search(text))
