#!/usr/bin/env python3
"""Prints the progression table of a run: every lab's variants with GFLOP/s and % of cuBLAS
(cudalabs.records.progression).

Usage: scripts/progression.py RESULTS_DIR_OR_FILES...
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))  # the package's entry point
from cudalabs.records.progression import main  # noqa: E402

sys.exit(main(sys.argv))
