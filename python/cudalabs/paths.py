"""Where the repository is (python/cudalabs/ lies two folders down), and where in it lies what readers in
several folders need."""
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# The grading policy, beside the grader it steers: the rubric, and beside it the tests each lab's referee
# must report (TEST_LISTS/labNN.txt, named relative to the rubric). Relative to a suite's root, for the
# readers handed another copy of it (a student release, a test's scratch copy); RUBRIC is this suite's.
GRADING_POLICY = Path("grader") / "policy"
RUBRIC_IN_SUITE = GRADING_POLICY / "rubric.json"
RUBRIC = REPO / RUBRIC_IN_SUITE
TEST_LISTS = "tests"


def test_list_name(number: str) -> str:
    """A lab's test list, relative to the rubric's folder: the rubric's default for its `tests` key."""
    return f"{TEST_LISTS}/lab{number}.txt"


# A lab's answer key (its predictions and questions answered), in its solution's folder: instructors only,
# so a student release, which has no solutions/, has none. Relative to a suite's root, like the above.
ANSWER_KEY = "answers.md"


def answer_key(folder: str) -> Path:
    """A lab's answer key by its folder's name ("05_register_tiling")."""
    return Path("solutions") / folder / ANSWER_KEY
