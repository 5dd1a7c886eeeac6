#!/usr/bin/python3
"""Checks what a main-job run wrote (CI runs the quick one from a clone alone in an empty folder): every
contestant of every write-up ran, none was skipped or failed, no row failed, each write-up section has at
least one comparison measured on both sides, and the run's report was rendered from its document (report.json,
REPORT.md and report.html, the summary with a row per write-up claim). Exits 1 naming each problem, 2 for bad
usage.

    tools/check_main_job.py RESULTS_DIR        # NETBENCH_RESULTS_DIR of the run: its one run folder is checked
"""

import json
import os
import sys

PARTS = ("echo", "websocket", "fanout")


def run_folder(directory):
    """The run's own folder: `directory` itself when it holds write-ups, else its one subfolder (a run writes a
    folder of its own under NETBENCH_RESULTS_DIR)."""
    if any(name.endswith("_writeup.json") for name in os.listdir(directory)):
        return directory
    runs = sorted(os.path.join(directory, n) for n in os.listdir(directory)
                  if os.path.isdir(os.path.join(directory, n)))
    return runs[-1] if len(runs) == 1 else None


def report_problems(directory):
    problems = []
    for name in ("REPORT.md", "report.html"):
        if not os.path.exists(os.path.join(directory, name)):
            problems.append(f"{name} was not written")
    try:
        with open(os.path.join(directory, "report.json")) as f:
            report = json.load(f)
    except (OSError, ValueError) as error:
        return problems + [f"report.json: {error}"]
    sections = {s.get("id") for s in report.get("sections", [])}
    for part in PARTS:
        if part not in sections:
            problems.append(f"report.json: no {part} section")
    if not report.get("summary"):
        problems.append("report.json: an empty summary")
    return problems


def problems_of(directory):
    problems = []
    found = run_folder(directory)
    if found is None:
        return [f"{directory}: neither a run folder nor a folder holding exactly one run's folder"]
    directory = found
    print(f"the run's folder: {directory}")
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
    return problems + report_problems(directory)


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
