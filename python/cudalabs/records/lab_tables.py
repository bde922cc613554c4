"""Markdown tables of a lab's recorded results and Nsight Compute sections, from docs/data/.

Usage: scripts/lab_tables.py LAB [--device SLUG] [--data docs/data] [--sweep]
                             [--section sol|occupancy|memory|stalls|banks|issue]
"""
import argparse
import sys

from cudalabs.records import labdata


def main(argv):
    parser = argparse.ArgumentParser(prog="lab_tables.py")
    parser.add_argument("lab")
    parser.add_argument("--device", default=labdata.DEFAULT_DEVICE)
    parser.add_argument("--data", default="docs/data")
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--section", action="append", choices=sorted(labdata.SECTIONS))
    args = parser.parse_args(argv[1:])
    lab = labdata.LabData(args.data, args.lab, args.device)
    results = lab.sweep if args.sweep else lab.results
    if results is None:
        print(f"lab_tables: no results for lab {args.lab} on {args.device}", file=sys.stderr)
        return 1
    print(results.tables())
    if lab.profile and not args.sweep:
        for section in args.section or ["sol", "occupancy", "memory", "stalls", "banks"]:
            print(f"\n{section}:\n\n" + lab.profile.table(labdata.SECTIONS[section]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
