#!/usr/bin/env python3
"""timeline_check.py's reading of a trace (CPU): the recorded traces pass, a trace missing a span, with
a span twice, with an extra batch or with a worker too few fails with the span named."""
from __future__ import annotations

import copy
import json
import unittest
from pathlib import Path

import timeline_check  # beside this test: Python puts a script's folder on its path

REPO = Path(__file__).resolve().parents[2]

TRACES = REPO / "docs" / "data" / "timelines"


class TimelineCheckTest(unittest.TestCase):
    def setUp(self):
        self.two_gpus = json.loads((TRACES / "lab10_two-gpus_n5248_b1312_nvidia-h200.json").read_text())
        self.batches = timeline_check.expected_batches(5248, 2, 1312)

    def test_the_split_gives_each_worker_its_batches(self):
        self.assertEqual(timeline_check.expected_batches(10, 2, 4), [2, 2])
        self.assertEqual(timeline_check.expected_batches(11, 3, 2), [2, 2, 2])  # 4, 4, 3 images
        self.assertEqual(timeline_check.expected_batches(1, 2, 4), [1, 0])

    def test_recorded_traces_pass(self):
        self.assertEqual(timeline_check.problems_in(self.two_gpus, 2, self.batches), [])
        lab09 = json.loads((TRACES / "lab09_subpixel_n5248_b1312_nvidia-h100-80gb-hbm3.json").read_text())
        self.assertEqual(timeline_check.problems_in(lab09, 1, timeline_check.expected_batches(5248, 1, 1312)), [])

    def test_a_missing_or_repeated_span_is_named(self):
        trace = copy.deepcopy(self.two_gpus)
        events = trace["traceEvents"]
        dropped = next(i for i, e in enumerate(events) if e.get("name") == "tconv3 b1" and e["pid"] == 1)
        repeated = next(e for e in events if e.get("name") == "upload b0" and e["pid"] == 0)
        events.pop(dropped)
        events.append(dict(repeated))
        problems = timeline_check.problems_in(trace, 2, self.batches)
        self.assertTrue(any("'tconv3 b1' appears 0 times" in p for p in problems), problems)
        self.assertTrue(any("'upload b0' appears 2 times" in p for p in problems), problems)

    def test_a_worker_too_few_or_a_batch_too_many_fails(self):
        self.assertTrue(timeline_check.problems_in(self.two_gpus, 3, [2, 2, 2]))
        self.assertTrue(timeline_check.problems_in(self.two_gpus, 2, [1, 2]))


if __name__ == "__main__":
    unittest.main()
