"""The error rate a run states for its verdicts together ("at most 5% chance that any of these verdicts is
wrong"), measured through the suite's own round loop on the stored runs' own rounds, and shown able to fail.

Each stored run of the adaptive design gives its claims' rounds (bench/studies/replayed_rounds.py: each claim's
two sides per round, the truth set by a ratio, the rounds' shape and order kept), replayed through the loop the
main job runs (bench/studies/null_loop.py: rounds.UntilDecided over adaptive.questions, the ErrorControl's one
level per claim, scheduler.run with a fake runner, each claim judged at the end from the rows), in two ways:
  - shifts: the rounds in the order they were measured, from REPLAYS starting points spread over them (circular
    shifts), so that whatever dependence the machine gave neighbouring rounds is replayed as it was;
  - blocks: a circular block bootstrap of whole rounds, its block length from the rounds' autocorrelation
    (Politis and White's rule, replayed_rounds.block_length).
A replay is wrong under the null (every claim's true median ratio 1) when any claim holds or is reversed, and
wrong where the truth is set beyond the margin (A faster by BEYOND, outside the +-5% margin) when any claim is
found equivalent or reversed. Each is run under the drawn order (rounds.Shuffled, what the suite ships) and the
listed order (--order=listed), bare and with each plant of null_loop (the second runner's 3% gain; a machine
whose speed slides within regimes of tens of seconds): under the listed order each plant is a bias in every
round, which the rule decides on as if it were the programs' difference, and the rate passes 5%; drawn, the
same plants are coins, and it stays under. Under a plant each claim is replayed centred on the median ratio its
planted rounds have under the drawn order (null_loop.centred: a coin's spread moves the median of skewed rounds),
under either order. The claims replayed are each run's tight ones (replayed_rounds.TIGHT): only those can be moved
by a few percent within a run's rounds.

    rates = family_error.measured(family_error.table_runs())         # every row (minutes)
    bazel run //bench/studies:family_error_table                      # writes docs/methodology.md's block
"""

import concurrent.futures
import functools
import glob
import json
import os
import random

from bench.analysis import verdict
from bench.base import generated_block
from bench.design import rounds
from bench.studies import null_loop
from bench.studies import replayed_rounds

DATA = os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY") or
                    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."), "results", "data")
# The newest stored runs of the adaptive design the table replays (every one, up to this many, newest first).
# The table's runs (docs/methodology.md): named, so that a run stored later leaves the page as it is, as a study's
# table stays until the study is run again: two main jobs run back to back at one version, and one run each of
# two earlier versions of the adaptive design.
TABLE_RUNS = ("linux-x86_64-2cpu-epyc-back-to-back-4", "linux-x86_64-2cpu-epyc-back-to-back-3",
              "linux-x86_64-2cpu-epyc-pair-1", "linux-x86_64-2cpu-epyc-main-job-1")
REPLAYS = 10  # replays of each run, order and plant
# The most rounds a replay runs: a cap on its time (a claim still open there is open, not wrong), so the rates are
# those of runs of at most this many rounds; the stored runs' claims ran up to about a hundred.
LOOKS = 60
BEYOND = 1.08  # the true ratio A / B where the truth is set beyond the margin
ORDERS = {rounds.DRAWN: lambda seed: rounds.Shuffled(seed=f"replay:{seed}"),
          rounds.LISTED: lambda seed: rounds.EveryCase()}
PLANTS = {"none": null_loop.Plants(), "second runs 3% faster": null_loop.Plants(second=0.03),
          "drifting machine": null_loop.Plants(drift=null_loop.Drift())}
WRONG = {1.0: (verdict.HOLDS, verdict.REVERSED), BEYOND: ("equivalent", verdict.REVERSED)}


def adaptive_runs(newest=None):
    """The stored runs whose write-ups ran adaptively and in full (not --quick), newest first, at most `newest`
    of them (None: all): [(folder, report.json)]."""
    found = []
    for path in glob.glob(os.path.join(DATA, "*", "report.json")):
        with open(path) as f:
            doc = json.load(f)
        folder = os.path.dirname(path)
        settings = []
        for part in ("echo", "websocket", "fanout"):
            document = os.path.join(folder, f"{part}_writeup.json")
            if os.path.exists(document):
                with open(document) as f:
                    settings.append(json.load(f).get("settings", {}))
        if settings and all(s.get("design") == "sequential" for s in settings) and \
                not any(s.get("quick") for s in settings) and \
                not any((section.get("run") or {}).get("quick") for section in doc["sections"]):
            found.append((folder, doc))
    return sorted(found, key=lambda found_: found_[1]["run"]["time"], reverse=True)[:newest]


def table_runs():
    """The runs of TABLE_RUNS, in its order: [(folder, report.json)]."""
    runs = {os.path.basename(folder): (folder, doc) for folder, doc in adaptive_runs()}
    return [runs[label] for label in TABLE_RUNS]


def named(labels):
    """The stored adaptive runs whose folder's name is in `labels`, and the newest."""
    runs = adaptive_runs()
    return [run for i, run in enumerate(runs) if i == 0 or os.path.basename(run[0]) in labels]


def _wrong(verdicts, truth):
    return any(v.startswith(w) for v in verdicts.values() for w in WRONG[truth])


def error_rate(claims, condition, replays=REPLAYS, looks=LOOKS):
    """The share of `replays` replays of `claims` through the loop that are wrong; `condition` is (how: "shifts"
    or "blocks", order name, plant name, truth)."""
    how, order, plant, truth = condition
    wrong, length = 0, replayed_rounds.block_length(claims)
    for seed in range(replays):
        if how == "shifts":
            positions = replayed_rounds.shifted(claims, seed * replayed_rounds.longest(claims) // replays, looks)
        else:
            positions = replayed_rounds.block_bootstrap(claims, random.Random(seed), looks, length)
        replay = null_loop.Replay(order=ORDERS[order](seed), plants=PLANTS[plant], truth=truth, looks=looks, seed=seed)
        wrong += _wrong(null_loop.replay(claims, positions, replay), truth)
    return wrong / replays


def measured(runs, hows=("shifts", "blocks"), truths=(1.0, BEYOND), replays=REPLAYS):
    """[(run label, how, truth, claims replayed, block length, {(order, plant): rate})]: every row of the table,
    the runs' rows measured side by side, one process a CPU (each replay is seeded: the same rows either way)."""
    one_run = functools.partial(_run_rows, hows=hows, truths=truths, replays=replays)
    if len(runs) < 2:
        return [row for run in runs for row in one_run(run)]
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(len(runs), os.cpu_count() or 1)) as pool:
        return [row for rows in pool.map(one_run, runs) for row in rows]


def _run_rows(run, hows, truths, replays):
    """measured()'s rows of one stored run, (folder, report.json)."""
    folder, doc = run
    claims = replayed_rounds.tight(replayed_rounds.stored(folder, doc))
    out = []
    for how in hows:
        for truth in truths:
            rates = {(order, plant): error_rate(claims, (how, order, plant, truth), replays)
                     for plant in PLANTS for order in ORDERS}
            out.append((os.path.basename(folder), how, truth, len(claims), replayed_rounds.block_length(claims),
                        rates))
    return out


COMMAND = "`bazel run //bench/studies:family_error_table`"
BEGIN = f"<!-- the global-null rates: written by {COMMAND} -->"
END = "<!-- end of the global-null rates -->"


def table_lines(found):
    """docs/methodology.md's block: the rates of `found` (measured()) as a table."""
    head = " | ".join(f"{order}{'' if plant == 'none' else ', ' + plant}" for plant in PLANTS for order in ORDERS)
    lines = [f"| rounds replayed | truth: wrong when | {head} |", "|---" * (2 + len(PLANTS) * len(ORDERS)) + "|"]
    for label, how, truth, claims, length, rates in found:
        rounds_ = "measured order, shifted" if how == "shifts" else f"blocks of {length} rounds"
        what = "1: holds or reversed" if truth == 1.0 else f"{truth:g}: equivalent or reversed"
        cells = " | ".join(f"{rates[(order, plant)]:.0%}" for plant in PLANTS for order in ORDERS)
        lines.append(f"| {label} ({claims} claims), {rounds_} | {what} | {cells} |")
    return lines


def with_table(text, lines):
    """docs/methodology.md's `text` with its block set to `lines`."""
    return generated_block.replaced(text, BEGIN, END, lines, "docs/methodology.md's global-null rates")


def page():
    """docs/methodology.md of the checkout (`bazel run` sets BUILD_WORKSPACE_DIRECTORY), else of the runfiles."""
    root = os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                      "..", "..")
    return os.path.join(root, "docs", "methodology.md")


def main():
    found = measured(table_runs())
    path = page()
    with open(path) as f:
        before = f.read()
    after = with_table(before, table_lines(found))
    if after != before:
        with open(path, "w") as f:
            f.write(after)
    print("\n".join(table_lines(found)))
    print(f"family_error_table: {'wrote' if after != before else 'unchanged:'} {path}")
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main())
