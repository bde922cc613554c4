"""The tests each lab's referee runs, as the rubric lists them (paths.test_list_name, beside it): the
grader fails a lab whose referee reports one missing, and names any extra. The lists are written
from the referees themselves, so that they change only when the grading tests do:

  PYTHONPATH=python python3 -m cudalabs.grading.test_lists BUILD [NN ...]    rewrite the lists
  PYTHONPATH=python python3 -m cudalabs.grading.test_lists --check BUILD      exit 1 when one is stale
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ..paths import RUBRIC, test_list_name
from .gtest import list_tests
from .rubric import LabRubric, load_rubric

HEADER = "# The tests lab {number}'s referee runs (python -m cudalabs.grading.test_lists writes this file).\n"


def referee_tests(build: Path, number: str, rubric: LabRubric) -> list[str]:
    """--gtest_list_tests of the lab's referee, told the rubric's variants (no GPU needed)."""
    referee = build / "grader" / f"lab{number}" / "referee"
    env = {**os.environ, "CUDALABS_VARIANTS": json.dumps(rubric.variant_lists()), "CUDALABS_UNAVAILABLE": "{}"}
    listing = subprocess.run(
        [str(referee), "--gtest_list_tests"], capture_output=True, text=True, env=env, timeout=120, check=True
    )
    return list_tests(listing.stdout)


def list_path(number: str) -> Path:
    return RUBRIC.parent / test_list_name(number)


def main(arguments: list[str]) -> int:
    check = arguments[:1] == ["--check"]
    arguments = arguments[1:] if check else arguments
    if not arguments:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    build = Path(arguments[0])
    # The rubric needs its lists to load; read it with whatever lists are there now.
    rubric = load_rubric(RUBRIC, with_test_lists=False)
    numbers = arguments[1:] or sorted(rubric.labs)
    stale = []
    for number in numbers:
        tests = referee_tests(build, number, rubric.labs[number])
        text = HEADER.format(number=number) + "".join(f"{name}\n" for name in tests)
        path = list_path(number)
        if check:
            if not path.is_file() or path.read_text() != text:
                stale.append(f"lab {number}: {path} differs from what its referee runs ({len(tests)} tests)")
        else:
            path.write_text(text)
            print(f"test_lists: {path}: {len(tests)} tests")
    for line in stale:
        print(f"test_lists: {line}; rewrite with python -m cudalabs.grading.test_lists {build}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
