"""The grader behind `make grade` and `make grade-class`: builds a submission's kernels against the suite's
own drivers and tests, runs them on the GPU, scores them with the rubric (paths.RUBRIC: the grading policy lies
beside the grader) and writes the reports. The commands: cli (the two entry points'
logic, which scripts/grade and scripts/grade-class call), arguments (their flags, checked), one_submission
(one submission, start to end), class_loop (a class, one worker per GPU), grader_build (the trusted
build), node (its GPUs), refusal (why a command stops). The parts: rubric (the points), process (commands
with time limits), gtest (test results), submission (staging and building), lab_grader (one lab, start
to end), scoring, reports, class_report."""
