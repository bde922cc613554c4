"""The suite's measured records under docs/data/, read in one place.

- `benchmark`: the Google Benchmark JSON the lab drivers write (the one reader of that format)
- `labdata`: one lab's results, sweep and Nsight Compute profile, as tables
- `progression`, `lab_tables`, `profile_compare`: the command-line views of those records
- `lab09_merge`, `lab10_merge`: one benchmark session's files merged into a docs-ready record
"""
