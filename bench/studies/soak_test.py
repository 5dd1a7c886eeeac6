"""bench/studies/soak.py: 20 seconds of every server in every model under the soak's mixed load.

Each server x model must pass the soak's own criteria (no well-behaved client error, descriptors and threads
back at their start, RSS within the bounds' allowance of its start, the server up throughout), and the load
must have happened: client runs in every window, churn, slow, non-reading, oversize and malformed peers that
reached the server. The verdict itself is checked against samples that leak, so that a soak that cannot fail
is caught too.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from bench.studies import soak

SECONDS = 20


def run_soak(*args):
    return subprocess.run([sys.executable, "-m", "bench.studies.soak", *args],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})


class SoakTest(unittest.TestCase):
    def soak(self, server):
        with tempfile.TemporaryDirectory() as out:
            result = run_soak(f"--servers={server}", f"--seconds={SECONDS}", "--sample-seconds=5",
                              f"--out={out}", "--no-chart")
            print(result.stdout, file=sys.stderr)
            self.assertEqual(result.returncode, 0, result.stderr + result.stdout[-3000:])
            models = soak.available_models()
            self.assertIn("threads", models)
            self.assertIn("poll", models)
            for model in models:
                with open(os.path.join(out, f"{server}-{model}.json")) as f:
                    document = json.load(f)
                with self.subTest(model=model):
                    self.assertTrue(document["passed"], document["reasons"])
                    summary = document["summary"]
                    self.assertEqual(summary["fds"]["end"], summary["fds"]["start"])
                    self.assertLessEqual(summary["rss_kib"]["end"] - summary["rss_kib"]["start"],
                                         document["allowance"]["rss_kib"])
                    self.assertGreater(summary["client_runs"], 0)
                    self.assertEqual(summary["client_runs_with_errors"], 0)
                    # The load reached the server: descriptors rose above the start while it ran.
                    self.assertGreater(summary["fds"]["peak"], summary["fds"]["start"])
                    counts = document["load"]["peer_counts"]
                    for kind in ("churn", "oversize", "malformed", "non-reading"):
                        self.assertGreater(sum(v for k, v in counts.items() if k.startswith(kind + ".")), 0,
                                           f"no {kind} peer ran: {counts}")
                    self.assertGreater(counts.get("churn.done", 0), SECONDS * 50, counts)
                    self.assertGreater(counts.get("non-reading.bytes_sent", 0), 0, counts)

    def test_echo(self):
        self.soak("echo")

    def test_websocket(self):
        self.soak("websocket")

    def test_origin(self):
        self.soak("origin")


class VerdictTest(unittest.TestCase):
    START = {"rss_kib": 4000, "fds": 5, "threads": 1}
    RUNS = [{"job": "pingpong", "start_s": 0.0, "errors": {}}]
    SAMPLES = [{"t_s": 10.0, "phase": "load", "client_runs": 3}]

    def test_clean_run_passes(self):
        end = {"rss_kib": 5000, "fds": 5, "threads": 1}
        self.assertEqual(soak.verdict(self.START, end, 2000, self.RUNS, self.SAMPLES, True), [])

    def test_each_leak_and_error_fails_naming_it(self):
        cases = {
            "RSS grew 2001 KiB": ({"rss_kib": 6001, "fds": 5, "threads": 1}, self.RUNS, self.SAMPLES, True),
            "descriptors: 6 at the end, 5": ({"rss_kib": 4000, "fds": 6, "threads": 1}, self.RUNS, self.SAMPLES,
                                             True),
            "threads: 2 at the end": ({"rss_kib": 4000, "fds": 5, "threads": 2}, self.RUNS, self.SAMPLES, True),
            "1 of 1 well-behaved client runs saw errors": (
                dict(self.START), [{"job": "stream", "start_s": 1.0, "errors": {"errors.ECONNRESET": 1}}],
                self.SAMPLES, True),
            "no well-behaved client run ended": (dict(self.START), self.RUNS,
                                                 [{"t_s": 10.0, "phase": "load", "client_runs": 0}], True),
            "the server exited": (None, self.RUNS, self.SAMPLES, False),
        }
        for expected, (end, runs, samples, alive) in cases.items():
            with self.subTest(expected=expected):
                reasons = soak.verdict(self.START, end, 2000, runs, samples, alive)
                self.assertEqual(len(reasons), 1, reasons)
                self.assertIn(expected, reasons[0])

    def test_read_run_counts_errors_and_takes_the_largest_p99(self):
        report = {"counts": {"messages": 10, "errors.ECONNRESET": 2, "errors.EPIPE": 0},
                  "histograms": {"rtt": {"count": 5, "percentiles": {"99": 900}},
                                 "connect": {"count": 1, "percentiles": {"99": 1500}},
                                 "empty": {"count": 0, "percentiles": {}}}}
        self.assertEqual(soak.read_run(report), (1500, {"errors.ECONNRESET": 2}))


class UsageTest(unittest.TestCase):
    def test_bad_input_exits_2_naming_it(self):
        for args, named in ((["--servers=ftp"], "unknown server 'ftp'"), (["--models=kqueue"], "kqueue"),
                            (["--seconds=0"], "load time 0 s"), (["--churn-rate=-1"], "--churn-rate"),
                            (["--max-pending-input-kib=10"], "--max-pending-input-kib")):
            with self.subTest(args=args):
                result = run_soak(*args)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(named, result.stderr)


if __name__ == "__main__":
    unittest.main()
