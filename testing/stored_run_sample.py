"""The stored runs a test renders, draws or compares: a fixed, named sample of results/data/ plus the newest run,
so that a test's time stays the same as runs are stored. What every stored run must give (its document reads,
its REPORT.md is its document's) is checked over all of them, cheaply; what costs (charts drawn, a run
rendered again from its samples, runs compared pair by pair) over the sample.

    for directory in stored_run_sample.runs():      # the named runs, then the newest
        doc = document.load(os.path.join(directory, stored_run_sample.REPORT))

A run is in the sample for what the others lack (NAMED says what); the newest is the one the newest code wrote.
stored_run_sample_test.py checks that the sample still holds every kind of document the stored runs hold.
"""

import glob
import json
import os

# results/data/, beside this folder in the checkout and in a test's runfiles (//results:stored_runs).
DATA = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results", "data"))
# A run folder's document (bench/reporting/document.py's FILE; this folder does not import the suite).
REPORT = "report.json"

# Each named run, and what it holds that the newest does not.
NAMED = {
    "linux-x86_64-2cpu": "the first main job, on an AMD EPYC: write-up documents of schema 3, the detail benches'"
                         " older documents beside them, the fan-out's claims as they were first written",
    "linux-x86_64-2cpu-xeon": "another machine (an Intel Xeon), write-up documents of schema 2; the stored"
                              " comparison (results/data/compare/) is of it and the first main job",
    "linux-x86_64-2cpu-veth-1gbit-ssh": "one part over SSH across a shaped link: the remote placement's report,"
                                        " another tool's document (link_compare.json) beside it",
}


def every_run():
    """Every stored run's folder (a folder of results/data/ with a report.json), in name order."""
    return sorted(os.path.dirname(p) for p in glob.glob(os.path.join(DATA, "*", REPORT)))


def started(directory):
    """When the run in `directory` started, as its report.json says (an ISO 8601 UTC time: they sort)."""
    with open(os.path.join(directory, REPORT)) as f:
        return json.load(f)["run"]["time"]


def newest():
    """The folder of the stored run that started last."""
    return max(every_run(), key=started)


def runs():
    """The sample: the named runs' folders, then the newest run's when it is not one of them."""
    named = [os.path.join(DATA, name) for name in NAMED]
    return named + [run for run in [newest()] if run not in named]
