"""The suite's Python tooling: the grader (cudalabs.grading) and what it shares with the scripts and
the docs. Command scripts under scripts/ are thin entry points that put this folder on the path."""
