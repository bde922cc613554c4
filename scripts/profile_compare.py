#!/usr/bin/env python3
"""The key metrics of two Nsight Compute CSVs written by scripts/profile (yours and the reference
solution's), side by side per variant (cudalabs.records.profile_compare).

Usage: scripts/profile_compare.py YOURS.csv [SOLUTION.csv]
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))  # the package's entry point
from cudalabs.records.profile_compare import main  # noqa: E402

sys.exit(main(sys.argv))
