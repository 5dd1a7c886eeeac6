"""The comparison across runs (bench/cli/compare.py, bench/reporting/compare.py) on hand-made runs: medians,
ratios and U tests against values computed by hand (the exact U distribution enumerated here, not SciPy's), the warnings on what makes runs incomparable,
cases and documents present in only some runs, a document that does not match its schema, usage errors,
and the charts (well-formed SVG naming every run, byte-identical when drawn again)."""

import copy
import io
import itertools
import json
import os
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree
from contextlib import redirect_stderr, redirect_stdout

from bench.cli import compare
from bench.reporting import result_schema
from bench.reporting import run_environment

ENVIRONMENT = run_environment.environment({"send": 3.0, "round_trip": 25.0})
ENVIRONMENT.update(git_commit="0123456789ab", git_dirty=False, build_mode="opt", cores=2, cpus_allowed=2,
                   sysctls={"kernel.sched_autogroup_enabled": "1"})


def exact_two_sided_p(a, b):
    """The exact two-sided Mann-Whitney p of samples without ties, by enumerating every split of the ranks."""
    ranked = sorted(a + b)
    rank_sum = sum(ranked.index(x) + 1 for x in a)
    sums = [sum(c) for c in itertools.combinations(range(1, len(ranked) + 1), len(a))]
    low = sum(1 for s in sums if s <= rank_sum) / len(sums)
    high = sum(1 for s in sums if s >= rank_sum) / len(sums)
    return min(1.0, 2 * min(low, high))


def writeup(samples_by_server, environment=ENVIRONMENT, pinned=True):
    """An echo write-up whose msgs_per_s samples are given per server (one per round)."""
    rows = []
    for server, samples in samples_by_server.items():
        for round_index, value in enumerate(samples):
            rows.append({"status": "ok", "server": server, "client": "go-spammer", "round": round_index,
                         "msgs_per_s": value, "server_cpu_us_per_msg": 1.0, "client_cpu_us_per_msg": 2.0})
    return {"schema": "netbench.writeup/2", "part": "echo", "environment": copy.deepcopy(environment),
            "settings": {"samples": 5, "seconds": 5.0, "clients": 3, "pinned": pinned},
            "registry": "bench/registry/contestants.json",
            "contestants": [{"name": "go", "role": "server", "system": "go", "about": "Go", "env": {},
                             "command": "echosrv", "status": "ran", "version": "go1.19"}],
            "verdicts": [], "rows": rows}


def histogram(values):
    from bench.analysis import histogram_merge
    buckets = {}
    for v in values:
        low = histogram_merge.lowest_equivalent_value(v)
        buckets[low] = buckets.get(low, 0) + 1
    return {"unit": "ns", "count": len(values), "min": min(values), "max": max(values),
            "mean": sum(values) / len(values), "stddev": 0.0, "percentiles": {}, "overflow_count": 0,
            "highest_trackable": 3600 * 10**9, "significant_digits": 3, "buckets": sorted(map(list, buckets.items()))}


def echo_bench(latencies_by_round):
    """An echo_bench document whose one case's client recorded these latencies (ns) in each round."""
    from bench.analysis import histogram_merge
    cases = [{"server": "epoll", "load": "pingpong3", "round": i, "returncode": 0, "msgs_per_s": 1000.0,
              "histograms": {"rtt": histogram(values)}} for i, values in enumerate(latencies_by_round)]
    return {"schema": "netbench.bench/2", "benchmark": "echo_bench", "environment": copy.deepcopy(ENVIRONMENT),
            "histograms": histogram_merge.merge_case_histograms(cases), "cases": cases, "summary": [], "notes": ""}


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.root = self.directory.name

    def tearDown(self):
        self.directory.cleanup()

    def store(self, run, name, document):
        path = os.path.join(self.root, run)
        os.makedirs(path, exist_ok=True)
        self.assertEqual(result_schema.validate(document), [], name)  # the test's runs are valid ones
        with open(os.path.join(path, name + ".json"), "w") as f:
            json.dump(document, f)
        return path

    def run_compare(self, *runs, charts=False):
        out = os.path.join(self.root, "out")
        argv = [os.path.join(self.root, r) for r in runs] + [f"--out={out}"] + ([] if charts else ["--no-charts"])
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as stderr:
            code = compare.main(argv)
        self.stderr = stderr.getvalue()
        if code == 2:
            return code, None, None
        with open(os.path.join(out, "compare.json")) as f:
            data = json.load(f)
        with open(os.path.join(out, "COMPARE.md")) as f:
            text = f.read()
        return code, data, text

    def row(self, data, case, figure="msgs_per_s"):
        return next(r for r in data["rows"] if r["case"] == case and r["figure"] == figure)

    def test_medians_ratios_and_u_tests_against_hand_computed_values(self):
        a = {"go": [1.0, 2.0, 3.0, 4.0, 5.0], "racket": [1.0, 2.0, 3.0, 4.0, 5.0]}
        b = {"go": [6.0, 7.0, 8.0, 9.0, 10.0], "racket": [1.5, 2.5, 3.5, 4.5, 5.5]}
        self.store("a", "echo_writeup", writeup(a))
        self.store("b", "echo_writeup", writeup(b))
        code, data, text = self.run_compare("a", "b")
        self.assertEqual(code, 0)

        go = self.row(data, "server=go client=go-spammer placement=split")["runs"]
        self.assertEqual([e["median"] for e in go], [3.0, 8.0])
        self.assertAlmostEqual(go[1]["ratio"], 8.0 / 3.0)
        self.assertEqual((go[1]["round_min"], go[1]["round_max"]), (6.0, 10.0))
        # Every sample of b above every one of a: U = 0, p = 2 / C(10, 5) = 2/252.
        self.assertAlmostEqual(go[1]["p_value"], 2 / 252)
        self.assertAlmostEqual(go[1]["p_value"], exact_two_sided_p(a["go"], b["go"]))
        self.assertTrue(go[1]["significant"])

        racket = self.row(data, "server=racket client=go-spammer placement=split")["runs"]
        self.assertAlmostEqual(racket[1]["ratio"], 3.5 / 3.0)
        # Interleaved samples: rank sum 25 of a, U = 10, p = 2 * 87/252.
        self.assertAlmostEqual(racket[1]["p_value"], exact_two_sided_p(a["racket"], b["racket"]))
        self.assertAlmostEqual(racket[1]["p_value"], 174 / 252)
        self.assertFalse(racket[1]["significant"])

        self.assertIn("| server=go client=go-spammer placement=split | msgs_per_s (higher is better) | 3 (1..5) | 8 (6..10.0) | 2.67 | "
                      "0.0079 **significant** |", text)
        self.assertIn("No differences between the runs that change outcomes", text)

    def test_one_sample_a_side_gives_a_ratio_but_no_test(self):
        self.store("a", "echo_writeup", writeup({"go": [100.0]}))
        self.store("b", "echo_writeup", writeup({"go": [150.0]}))
        _, data, _ = self.run_compare("a", "b")
        entry = self.row(data, "server=go client=go-spammer placement=split")["runs"][1]
        self.assertEqual((entry["ratio"], entry["p_value"], entry["significant"]), (1.5, None, False))

    def test_cases_and_documents_in_only_some_runs_are_listed(self):
        self.store("a", "echo_writeup", writeup({"go": [1.0, 2.0], "racket": [1.0, 2.0]}))
        self.store("a", "echo_bench", echo_bench([[1000, 2000]]))
        self.store("b", "echo_writeup", writeup({"go": [1.0, 2.0], "nginx": [3.0]}))
        self.store("c", "echo_writeup", writeup({"go": [1.0, 2.0]}))
        _, data, text = self.run_compare("a", "b", "c")
        only = {(e["document"], e["case"]): e["in"] for e in data["only_in_some"]}
        self.assertEqual(only[("echo_writeup", "server=racket client=go-spammer placement=split")], ["a"])
        self.assertEqual(only[("echo_writeup", "server=nginx client=go-spammer placement=split")], ["b"])
        self.assertEqual(only[("echo_bench", None)], ["a"])
        self.assertIn("- echo_writeup: server=racket client=go-spammer placement=split: only in a", text)
        self.assertIn("- echo_bench (the whole document): only in a", text)
        self.assertEqual([e["run"] for e in self.row(data, "server=go client=go-spammer placement=split")["runs"]], ["a", "b", "c"])

    def test_differences_that_change_outcomes_are_warned_about_at_the_top(self):
        other = copy.deepcopy(ENVIRONMENT)
        other.update(git_commit="fedcba987654", git_dirty=True, build_mode="dbg", cores=4, cpus_allowed=4,
                     sysctls={"kernel.sched_autogroup_enabled": "0"},
                     kernel_costs_us={"send": 6.5, "round_trip": 45.0})  # 2.17x and 1.8x
        self.store("a", "echo_writeup", writeup({"go": [1.0, 2.0]}))
        self.store("b", "echo_writeup", writeup({"go": [1.0, 2.0]}, environment=other, pinned=False))
        _, data, text = self.run_compare("a", "b")
        warnings = "\n".join(w["warning"] for w in data["warnings"])
        for expected in ("different netbench commits: a 0123456789ab, b fedcba987654",
                         "b ran from a tree with uncommitted changes",
                         "different build modes: a opt, b dbg",
                         "different CPU placements", "a split, b shared",
                         "different CPU counts: a 2 cores, b 4 cores",
                         "sysctl kernel.sched_autogroup_enabled differs: a 1, b 0",
                         "kernel price send differs by over 2x: a 3 us, b 6.5 us"):
            self.assertIn(expected, warnings)
        self.assertNotIn("round_trip", warnings)  # 1.8x apart: within the factor
        self.assertLess(text.index("## Warnings"), text.index("## Runs"))

    def test_abbreviated_commits_of_the_same_revision_are_one_commit(self):
        short = copy.deepcopy(ENVIRONMENT)
        short["git_commit"] = "0123456"
        self.store("a", "echo_writeup", writeup({"go": [1.0]}))
        self.store("b", "echo_writeup", writeup({"go": [1.0]}, environment=short))
        _, data, _ = self.run_compare("a", "b")
        self.assertEqual(data["warnings"], [])

    def test_latency_histograms_merge_over_the_rounds(self):
        self.store("a", "echo_bench", echo_bench([[1000, 2000, 3000], [4000]]))
        self.store("b", "echo_bench", echo_bench([[2000, 4000], [6000, 8000]]))
        _, data, text = self.run_compare("a", "b")
        entry = data["latency"][0]
        self.assertEqual(entry["histogram"], "rtt")
        a, b = entry["runs"]
        self.assertEqual((a["count"], a["percentiles_us"]["50"]), (4, 2.0))  # rank 2 of 1, 2, 3, 4 us
        self.assertEqual((b["count"], b["percentiles_us"]["50"]), (4, 4.001))  # 4000's bucket holds 4000-4001
        self.assertAlmostEqual(b["ratios"]["50"], 2.0005)
        self.assertIn("every round's histogram merged", text)

    def test_a_document_that_does_not_match_its_schema_is_named_and_left_out(self):
        self.store("a", "echo_writeup", writeup({"go": [1.0, 2.0]}))
        broken = writeup({"go": [1.0, 2.0, 3.0, 4.0]})
        broken["rows"][3]["msgs_per_s"] = "fast"
        os.makedirs(os.path.join(self.root, "b"))
        with open(os.path.join(self.root, "b", "echo_writeup.json"), "w") as f:
            json.dump(broken, f)
        self.store("b", "echo_bench", echo_bench([[1000]]))
        code, data, text = self.run_compare("a", "b")
        self.assertEqual(code, 1)
        self.assertEqual(data["invalid"][0]["file"], "echo_writeup.json")
        self.assertIn("rows[3].msgs_per_s", text)

    def test_usage_errors_exit_2_naming_the_problem(self):
        self.store("a", "echo_writeup", writeup({"go": [1.0]}))
        os.makedirs(os.path.join(self.root, "empty"))
        self.assertEqual(self.run_compare("a")[0], 2)
        self.assertIn("at least two run folders", self.stderr)
        self.assertEqual(self.run_compare("a", "missing")[0], 2)
        self.assertIn("missing: no such folder", self.stderr)
        self.assertEqual(self.run_compare("a", "empty")[0], 2)
        self.assertIn("holds no result documents", self.stderr)

    def test_charts_are_svg_that_names_every_run_and_redraw_byte_identical(self):
        self.store("linux-a", "echo_writeup", writeup({"go": [1.0, 2.0, 3.0], "racket": [2.0, 3.0, 4.0]}))
        self.store("linux-b", "echo_writeup", writeup({"go": [2.0, 3.0, 4.0], "racket": [1.0, 2.0, 3.0]}))
        _, data, text = self.run_compare("linux-a", "linux-b", charts=True)
        files = [c["file"] for c in data["charts"]["echo_writeup"]]
        self.assertEqual(files, ["compare_echo_writeup_msgs_per_s.svg", "compare_echo_writeup_server_cpu_us_per_msg.svg"])
        path = os.path.join(self.root, "out", files[0])
        with open(path, "rb") as f:
            first = f.read()
        root = ElementTree.fromstring(first)
        self.assertTrue(root.tag.endswith("svg"))
        svg_text = first.decode()
        for name in ("linux-a", "linux-b", "go / go-spammer", "racket / go-spammer"):
            self.assertIn(name, svg_text)  # text kept as text (svg.fonttype none)
        self.assertIn(f"![echo_writeup msgs_per_s]({files[0]})", text)
        self.run_compare("linux-a", "linux-b", charts=True)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), first)

    def test_error_bars_are_never_negative_whatever_the_range(self):
        from bench.reporting import compare_charts
        self.assertEqual(compare_charts.error_bar(5.0, 3.0, 8.0), (2.0, 3.0))
        self.assertEqual(compare_charts.error_bar(5.0, 8.0, 3.0), (2.0, 3.0))  # ends swapped
        self.assertEqual(compare_charts.error_bar(10.0, 3.0, 8.0), (7.0, 0.0))  # median above the range
        self.assertEqual(compare_charts.error_bar(1.0, 3.0, 8.0), (0.0, 7.0))  # median below it
        self.assertEqual(compare_charts.error_bar(5.0, None, None), (0.0, 0.0))


if __name__ == "__main__":
    unittest.main()
