#!/usr/bin/env python3
"""Markdown tables of a lab's recorded results and Nsight Compute sections, from docs/data/
(cudalabs.records.lab_tables).

Usage: scripts/lab_tables.py LAB [--device SLUG] [--data docs/data] [--sweep]
                             [--section sol|occupancy|memory|stalls|banks|issue]
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))  # the package's entry point
from cudalabs.records.lab_tables import main  # noqa: E402

sys.exit(main(sys.argv))
