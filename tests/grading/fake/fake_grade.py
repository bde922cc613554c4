#!/usr/bin/env python3
"""A stand-in for scripts/grade in the class grader's CPU tests: same arguments, no GPU. Each lab's
kernels.cu says what to do: 'POINTS=n' scores n of 10, 'HANG' sleeps, 'CRASH' exits 1 without a report,
'SAME' makes a second variant repeat the first (the distinct rule), 'NOTECHNIQUE' has the first pass
without the technique its rule asks for; every lab has an optional challenge variant left unwritten.
It records which GPU it was given (CUDA_VISIBLE_DEVICES) in its report."""
import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

parser = argparse.ArgumentParser()
for flag in ("--submission", "--labs", "--build", "--out", "--rubric"):
    parser.add_argument(flag, default="")
for flag in ("--unsandboxed", "--no-technique"):
    parser.add_argument(flag, action="store_true")
args = parser.parse_args()
out = Path(args.out)
out.mkdir(parents=True, exist_ok=True)
labs = []
for number in args.labs.split(",") if args.labs else ["01"]:
    sources = list(Path(args.submission).glob(f"{number}_*/kernels.cu"))
    text = sources[0].read_text() if sources else ""
    if "HANG" in text:
        time.sleep(60)
    if "CRASH" in text:
        print("grade: the grading build does not configure", file=sys.stderr)
        sys.exit(3)
    points = float(re.search(r"POINTS=(\d+)", text).group(1)) if "POINTS=" in text else 0.0
    failing = (
        []
        if points == 10
        else [
            {
                "test": "Grading.v.odd_17x33x65",
                "case": "odd_17x33x65",
                "status": "failed",
                # GoogleTest's shape: location, the failed assertion, then the test's own message.
                "message": "tests/support/gemm_grading.cpp:67\nExpected equality of these values:\n"
                "  report.outcome\n    Which is: 2\n  CheckOutcome::kPassed\n    Which is: 0\n"
                "element (0, 1) differs: |err| 2 over its bound",
            }
        ]
    )
    fatal = "integrity rule broken" if "cublas" in text else None
    labs.append(
        {
            "lab": number,
            "folder": f"{number}_x",
            "points": 0.0 if fatal else points,
            "max_points": 10.0,
            "fatal": fatal,
            "reason": "integrity: kernels.cu line 1: cuBLAS" if fatal else "",
            "variants": [
                {
                    "name": "v",
                    "state": "technique not shown" if "NOTECHNIQUE" in text else "passed" if not failing else "failed",
                    "failing": failing,
                    "rate": {"fraction_of_solution": points / 10, "student": points, "solution": 10.0},
                    "note": "operands staged through shared memory tiles (rule: lds >= mnk / 64; measured lds 0)"
                    if "NOTECHNIQUE" in text
                    else "",
                },
                {
                    "name": "x",
                    "state": "not implemented yet",
                    "failing": [
                        {
                            "test": "Grading.x.odd_17x33x65",
                            "case": "odd_17x33x65",
                            "status": "not_implemented",
                            "message": "x: not implemented yet",
                        }
                    ],
                    "rate": None,
                    "challenge": True,
                },
            ],
        }
    )
    if "SAME" in text:
        labs[-1]["variants"].append(
            {
                "name": "w",
                "state": "not distinct",
                "failing": [],
                "rate": None,
                "note": "not distinct from v: each has its own profile, yet both measured x 1",
            }
        )
report = {
    "submission": args.submission,
    "gpu": os.environ.get("CUDA_VISIBLE_DEVICES", ""),
    "points": sum(lab["points"] for lab in labs),
    "max_points": 10.0 * len(labs),
    "labs": labs,
}
(out / "grade-report.json").write_text(json.dumps(report))
(out / "grade-report.md").write_text("# fake\n")
