#!/usr/bin/env python3
"""Merges one lab10-bench session into OUT/lab10_<device>.json (cudalabs.records.lab10_merge).

Usage: scripts/lab10_merge.py RUNS OUT
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))  # the package's entry point
from cudalabs.records.lab10_merge import main  # noqa: E402

sys.exit(main(sys.argv))
