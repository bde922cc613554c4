"""Planting a fault into a solution as a student hands it in: each plant names the text it replaces,
and fails loudly when a solution changed so that the text is gone (instead of planting nothing)."""
from __future__ import annotations


def replace_once(source: str, old: str, new: str, where: str) -> str:
    count = source.count(old)
    if count != 1:
        raise RuntimeError(f"plant {where}: the text to replace occurs {count} times, expected once: {old!r}")
    return source.replace(old, new)
