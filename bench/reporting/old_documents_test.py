"""Older detail-scenario documents converted on read (bench/reporting/old_documents.py): a netbench.bench/2
document as echo_bench and httpfanout_bench stored them becomes a netbench.writeup/4 document whose rows have
`client` and `status`, that validates; the stored runs under results/data/ load converted; anything else is
left as it was."""

import glob
import os
import unittest

from bench.reporting import old_documents
from bench.reporting import result_schema
from bench.reporting import run_environment

HERE = os.path.dirname(os.path.realpath(__file__))


def data_root():
    root = os.environ.get("TEST_SRCDIR", "")
    path = os.path.join(root, "netbench", "results")
    return path if root and os.path.isdir(os.path.join(path, "data")) else os.path.join(HERE, "..", "..", "results")


def echo_bench():
    return {"schema": "netbench.bench/2", "benchmark": "echo_bench", "environment": run_environment.environment(),
            "cases": [{"server": "poll", "load": "stream3", "round": r, "returncode": 0, "msgs_per_s": 1000.0 + r,
                       "server_cpu_us_per_msg": 2.0, "server_syscalls_per_msg": 0.5} for r in range(2)]
            + [{"server": "uring", "load": "stream3", "round": 0, "returncode": 2, "msgs_per_s": None,
                "error": "io_uring refused"}],
            "summary": [], "notes": "Loads of 1 s.\n\n## Ratios (the issue's targets)\n\n| ratio |\n|---|\n",
            "histograms": [{"server": "poll", "load": "stream3", "name": "rtt", "rounds": [0, 1],
                            "histogram": {"unit": "ns", "count": 1, "min": 5, "max": 5, "mean": 5.0, "stddev": 0.0,
                                          "percentiles": {"50": 5}, "overflow_count": 0, "highest_trackable": 10,
                                          "significant_digits": 3, "buckets": [[5, 1]]}}],
            "partial": True}


def httpfanout_bench():
    return {"schema": "netbench.bench/2", "benchmark": "httpfanout_bench", "environment": run_environment.environment(),
            "cases": [{"target": "origin-0ms", "scheme": "http", "client": "go", "requests": 50, "repetitions": 2,
                       "samples": [{"wall_s": 0.1 + r, "client_cpu_us_per_request": 3.0,
                                    "server_cpu_us_per_request": 1.0, "failed": 0} for r in range(3)],
                       "summary": {}}],
            "summary": [], "notes": "50 GETs. Targets: best netbench <= 0.5x Go (http), < best curl; origin-50ms "
                                    "total < 2x latency (vs_latency < 2). vs_go_per_round: the best model's time."}


class ConversionTest(unittest.TestCase):
    def test_a_detail_bench_becomes_rows_with_client_and_status(self):
        document = old_documents.upgrade(echo_bench())
        self.assertEqual(result_schema.validate(document), [])
        self.assertEqual((document["schema"], document["part"]), ("netbench.writeup/4", "echo-models"))
        self.assertEqual(document["converted_from"], "netbench.bench/2")
        self.assertEqual([(r["server"], r["client"], r["round"], r["status"]) for r in document["rows"]],
                         [("poll", "stream3", 0, "ok"), ("poll", "stream3", 1, "ok"),
                          ("uring", "stream3", 0, "failed")])
        self.assertTrue(all("load" not in r and "returncode" not in r for r in document["rows"]))
        self.assertEqual(document["rows"][2]["error"], "io_uring refused")
        self.assertEqual(document["settings"], {"samples": 2, "notes": "Loads of 1 s."})
        self.assertEqual(document["histograms"][0]["client"], "stream3")
        self.assertIs(document["partial"], True)

    def test_a_fanout_case_becomes_a_row_per_round(self):
        document = old_documents.upgrade(httpfanout_bench())
        self.assertEqual(result_schema.validate(document), [])
        self.assertEqual([(r["server"], r["scheme"], r["client"], r["round"]) for r in document["rows"]],
                         [("origin-0ms", "http", "go", r) for r in range(3)])
        self.assertEqual(document["rows"][1]["wall_s_median"], 1.1)
        self.assertEqual(document["rows"][1]["requests_made"], 100)
        self.assertEqual(document["settings"]["notes"], "50 GETs.")  # the targets it stated are gone

    def test_other_documents_are_left_as_they_were(self):
        study = {"schema": "netbench.bench/2", "benchmark": "uring_before_after", "cases": []}
        self.assertIs(old_documents.upgrade(study), study)
        writeup = {"schema": "netbench.writeup/3", "part": "echo"}
        self.assertIs(old_documents.upgrade(writeup), writeup)

    def test_the_fixed_designs_older_word_for_open_reads_as_open(self):
        older = "not separable on this machine"
        writeup = {"schema": "netbench.writeup/4", "verdicts": [{"verdict": older, "why": "w"}, {"verdict": "holds"}]}
        self.assertEqual([v["verdict"] for v in old_documents.upgrade(writeup)["verdicts"]], ["open", "holds"])
        self.assertEqual(writeup["verdicts"][0]["verdict"], older, "the document read is not changed")
        run = {"schema": "netbench.report/2", "summary": [{"verdict": older}],
               "sections": [{"id": "echo", "verdicts": [{"verdict": older, "why": "w"}]}],
               "history": {"claims": [{"verdict": older, "earlier": [{"verdict": older}, {"verdict": "holds"}]}]}}
        converted = old_documents.report(run)
        self.assertEqual((converted["summary"][0]["verdict"], converted["sections"][0]["verdicts"][0]),
                         ("open", {"verdict": "open", "why": "w"}))
        claim = converted["history"]["claims"][0]
        self.assertEqual((claim["verdict"], [e["verdict"] for e in claim["earlier"]]), ("open", ["open", "holds"]))

    def test_the_stored_detail_runs_load_converted(self):
        paths = (glob.glob(os.path.join(data_root(), "data", "*", "*_bench.json"))
                 + glob.glob(os.path.join(data_root(), "data", "*", "microbenchmarks.json")))
        self.assertTrue(paths)
        for path in paths:
            with self.subTest(path=os.path.relpath(path, data_root())):
                document = result_schema.load(path)
                self.assertEqual(document["schema"], "netbench.writeup/4")
                self.assertTrue(document["rows"])
                self.assertTrue(all(r["status"] in ("ok", "failed") and ("client" in r or "benchmark" in r)
                                    for r in document["rows"]))


if __name__ == "__main__":
    unittest.main()
