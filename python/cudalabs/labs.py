"""The labs as they declare themselves: every labs/NN_name/lab.json, the same files CMake reads
(cmake/LabDeclarations.cmake says what each field means). Python's lists of labs come from here."""
from __future__ import annotations

import dataclasses
import json
import pathlib

from cudalabs.paths import REPO


@dataclasses.dataclass(frozen=True, eq=False)  # dict fields: compared by identity
class Lab:
    """One lab's declaration."""

    number: str  # "07"
    name: str  # "wide_loads"
    family: str  # "fp32_gemm"
    sources: tuple[str, ...]
    uses: tuple[str, ...]
    architectures: str  # "all" or "sm90a"
    launches: str | None  # its launch catalog file, None for a lab without kernels of its own
    build: str | None  # its extra targets' CMake file
    grader: str  # "gemm_template" or "proxy"
    grader_selftest: bool
    # Its row of the progression table (README.md, the site's main page): title, part, writes, question,
    # needs (scripts/render-handouts writes the table from every lab's row, in the semester's order).
    progression: dict
    # What it asks of a student: hours (an estimate from the model in cudalabs.docs.grading_tables), hours_for
    # ("the lab" or "the core"), difficulty (1-5), hardest (the hard part) and, where a coding assistant wrote
    # a version of the core from the handout and skeleton alone (tests/grading/student_versions/),
    # student_version: its writer and what it covers.
    effort: dict

    @property
    def folder(self) -> str:
        """The folder's name under labs/ (and solutions/): "07_wide_loads"."""
        return f"{self.number}_{self.name}"


FIELDS = tuple(field.name for field in dataclasses.fields(Lab))


def declared_labs(repo: pathlib.Path = REPO) -> list[Lab]:
    """Every declared lab, in order. Raises ValueError naming the file for a declaration whose
    fields are not exactly FIELDS or whose number and name are not its folder's."""
    labs = []
    for path in sorted((pathlib.Path(repo) / "labs").glob("[0-9][0-9]_*/lab.json")):
        data = json.loads(path.read_text())
        if set(data) != set(FIELDS):
            raise ValueError(f"{path}: fields {sorted(data)}, not {sorted(FIELDS)}")
        lab = Lab(**{key: tuple(value) if isinstance(value, list) else value for key, value in data.items()})
        if lab.folder != path.parent.name:
            raise ValueError(f"{path}: number {lab.number!r} and name {lab.name!r} are not its folder")
        labs.append(lab)
    return labs


def lab_numbers(repo: pathlib.Path = REPO) -> list[str]:
    """The declared labs' numbers, in order."""
    return [lab.number for lab in declared_labs(repo)]


def core_labs(repo: pathlib.Path = REPO) -> list[str]:
    """The numbers of the labs a course teaches (progression part "core", with or without an optional
    part), in order; the others are extensions."""
    return [lab.number for lab in declared_labs(repo) if lab.progression["part"].split(" (")[0] == "core"]
