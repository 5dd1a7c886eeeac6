"""The detail scenarios' claims from their files (bench/registry/details/*.toml, claim_files.detail) are the ones
the Python made (echo_bench.claims, websocket_bench.claims, httpfanout_bench.claims), field for field and in
order, over the stored runs' rows and over rows made to reach every branch: uring run or not, //echo:client's
models, Go missing, medians tied, missing or 0."""

import dataclasses
import glob
import json
import os
import random
import unittest

from bench.analysis import judged_link
from bench.reporting import result_schema
from bench.scenarios import claim_files
from bench.scenarios import echo_bench
from bench.scenarios import httpfanout_bench
from bench.scenarios import websocket_bench

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results", "data")
PYTHON = {"echo": echo_bench.claims, "websocket": websocket_bench.claims, "httpfanout": httpfanout_bench.claims}


def said(claims):
    """Each claim as JSON text: every field, and its cells' keys in their order."""
    return [json.dumps(dataclasses.asdict(c)) for c in claims]


def stored_rows():
    """{(run, detail name): rows} of every stored detail document."""
    out = {}
    for name in PYTHON:
        for path in sorted(glob.glob(os.path.join(DATA, "*", f"{name}_bench.json"))):
            rows = judged_link.on_the_judged_link(result_schema.load(path)["rows"])
            out[(os.path.basename(os.path.dirname(path)), name)] = rows
    return out


def made_rows(rng, fields, values, figures, zero=True):
    """Rows of a random subset of the cells `values` (a list of choices per field) in a random order, 1 to 3
    rounds, some failed, each figure a value of few choices (so that medians tie), None or (with `zero`) 0."""
    cells = [{}]
    for field in fields:
        chosen = rng.sample(values[field], rng.randint(0, len(values[field])))
        cells = [{**cell, field: v} for cell in cells for v in chosen]
    cells = [c for c in cells if rng.random() < 0.8]
    choices = [None, 0.5, 1.0, 1.0, 2.0, 3.0] + ([0] if zero else [])
    rows = []
    for round_ in range(rng.randint(1, 3)):
        for cell in cells:
            row = {**cell, "round": round_, "status": "ok" if rng.random() < 0.85 else "failed"}
            for figure in figures:
                row[figure] = rng.choice(choices + [rng.random()])
            rows.append(row)
    rng.shuffle(rows)
    return rows


ECHO = {"server": ["threads", "poll", "epoll", "uring", "go"],
        "client": ["stream3", "stream3-go", "pingpong3", "stream64", "rate", "uring3", "epoll3", "epoll3-batch16",
                   "uring64", "epoll64"]}
WEBSOCKET = {"server": ["threads", "poll", "epoll", "uring", "go"],
             "client": ["nb1", "nb4", "go1", "go4", "nb4-pipe", "echo1", "echo4-pipe"]}
FANOUT = {"server": ["origin-0ms", "origin-50ms", "nginx"], "scheme": ["http", "https"],
          "client": ["netbench-threads", "netbench-poll", "netbench-epoll", "go", "curl", "curl-2x250"]}
MESSAGE_FIGURES = ("msgs_per_s", "server_cpu_us_per_msg", "client_cpu_us_per_msg", "client_syscalls_per_msg", "p50_us")


class SameAsThePythonTest(unittest.TestCase):
    def same(self, name, rows):
        self.assertEqual(said(claim_files.detail(name).claims(rows)), said(PYTHON[name](rows)))

    def test_the_stored_runs(self):
        found = stored_rows()
        self.assertEqual({name for _, name in found}, set(PYTHON))
        for (run, name), rows in found.items():
            with self.subTest(run=run, name=name):
                self.same(name, rows)
                self.assertTrue(PYTHON[name](rows))

    def test_made_rows(self):
        rng = random.Random(20261207)
        for index in range(400):
            with self.subTest(index=index):
                self.same("echo", made_rows(rng, ("server", "client"), ECHO, MESSAGE_FIGURES))
                self.same("websocket", made_rows(rng, ("server", "client"), WEBSOCKET, MESSAGE_FIGURES))
                # A fan-out's median wall time is never 0 (the Python let a 0 win; the file's best never does).
                self.same("httpfanout", made_rows(rng, ("server", "scheme", "client"), FANOUT, ("wall_s_median",),
                                                  zero=False))

    def test_no_rows(self):
        for name in PYTHON:
            self.same(name, [])


if __name__ == "__main__":
    unittest.main()
