"""The grader behind `make grade` (scripts/grade): builds a submission's kernels against the suite's own
drivers and tests, runs them on the GPU, scores them with grader/policy/rubric.json and writes the
reports. Modules: rubric (the points), process (commands with time limits), gtest (test results),
submission (staging and building), lab_grader (one lab, start to end), scoring, reports."""
