"""The suite's Python tooling, one package:

- `cudalabs.records`: the measured records of docs/data/ (the benchmark JSON read in one place)
- `cudalabs.docs`: the docs site, the rendered handouts, their plots, tables and checks
- `cudalabs.grading`: the grader

Command scripts under scripts/ are thin entry points that put this folder on the path; the shell scripts
and the tests set PYTHONPATH to it instead."""
