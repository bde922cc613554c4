#!/usr/bin/env python3
"""Merges one lab09-bench (or lab11-dcgan-bench) session into docs-ready JSON
(cudalabs.records.lab09_merge).

Usage: scripts/lab09_merge.py RUNS OUT [STEM]
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))  # the package's entry point
from cudalabs.records.lab09_merge import main  # noqa: E402

sys.exit(main(sys.argv))
