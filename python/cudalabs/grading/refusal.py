"""Why a grading command stops: one line for whoever ran it, and the exit status it ends with."""

BAD_ARGUMENTS = 2  # the command line (or a file it names) is wrong
CANNOT_GRADE_HERE = 3  # no GPU, no sandbox, no profiler, a grader that does not build


class Refusal(Exception):
    """Raised where the command finds the problem; its entry point (cli.py) prints the one line, prefixed
    with the command's name, and exits with `code`."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code
