"""Nsight Compute's raw page (`ncu --csv --page raw`) as the suite reads it: the profiling scripts, the
recorded profiles and the grader's technique probes."""
from __future__ import annotations

import csv


def raw_page(text: str) -> tuple[list[str], list[str], list[list[str]]]:
    """(header, units, one row per profiled kernel). Every line of ncu's page is quoted, so the profiled
    program's own output, before the page or between its lines, is skipped; a row that does not fill the
    header is not a kernel's."""
    lines = [line for line in text.splitlines() if line.startswith('"')]
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return [], [], []
    rows = list(csv.reader(lines[start:]))
    header = rows[0]
    units = rows[1] if len(rows) > 1 else []
    return header, units, [row for row in rows[2:] if len(row) == len(header)]


def kernels(text: str) -> list[dict[str, str]]:
    """Every profiled kernel of the page: metric name -> the cell's text."""
    header, _, rows = raw_page(text)
    return [dict(zip(header, row)) for row in rows]
