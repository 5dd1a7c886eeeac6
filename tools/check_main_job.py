#!/usr/bin/python3
"""Checks what a main-job run wrote (CI runs the quick one from a clone alone in an empty folder): every
contestant of every write-up ran, none was skipped or failed, no row failed, and each write-up section has at
least one comparison measured on both sides. Exits 1 naming each problem, 2 for bad usage.

    tools/check_main_job.py RESULTS_DIR        # the folder NETBENCH_RESULTS_DIR named for the run
"""

import json
import os
import sys

PARTS = ("echo", "websocket", "fanout")


def problems_of(directory):
    problems = []
    for part in PARTS:
        path = os.path.join(directory, f"{part}_writeup.json")
        try:
            with open(path) as f:
                document = json.load(f)
        except (OSError, ValueError) as error:
            problems.append(f"{part}: cannot read {path}: {error}")
            continue
        for fate in document.get("contestants", []):
            if fate.get("status") != "ran":
                problems.append(f"{part}: {fate.get('role')} {fate.get('name')} {fate.get('status')}: "
                                f"{fate.get('why', '')}")
        failed = [r for r in document.get("rows", []) if r.get("status") != "ok"]
        for row in failed[:5]:
            problems.append(f"{part}: row {row.get('client')} -> {row.get('server')} round {row.get('round')}: "
                            f"{row.get('status')} {row.get('why', '')}".rstrip())
        measured = [v for v in document.get("verdicts", [])
                    if v.get("median_a") is not None and v.get("median_b") is not None]
        if not measured:
            problems.append(f"{part}: no comparison was measured on both sides")
        else:
            print(f"{part}: {len(document.get('contestants', []))} contestants ran, {len(measured)} comparisons "
                  f"measured, {len(document.get('rows', []))} rows")
    return problems


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    problems = problems_of(argv[1])
    for problem in problems:
        print(f"check_main_job: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
