"""Tests of the bench scripts' shared statistics and reporting (results/benchlib.py): the figures the
reports print are computed here, so a wrong median, ratio or range would mislead every reader."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import benchlib  # noqa: E402


def sample(server, load, round_index, **values):
    return {"server": server, "load": load, "round": round_index, "returncode": 0, **values}


class StatisticsTest(unittest.TestCase):
    def test_summarize_cases_takes_medians_per_case_and_skips_missing_values(self):
        rows = [sample("a", "x", 0, cpu=1.0), sample("a", "x", 1, cpu=3.0), sample("a", "x", 2, cpu=None),
                sample("b", "x", 0, cpu=10.0)]
        summary = benchlib.summarize_cases(rows, [("a", "x"), ("b", "x")], ("cpu",))
        self.assertEqual(benchlib.lookup(summary, "a", "x", "cpu"), 2.0)
        self.assertEqual(benchlib.lookup(summary, "b", "x", "cpu"), 10.0)
        self.assertIsNone(benchlib.lookup(summary, "c", "x", "cpu"))

    def test_ratio_is_none_when_either_side_is_missing_or_zero(self):
        self.assertEqual(benchlib.ratio(1.0, 4.0), 0.25)
        self.assertIsNone(benchlib.ratio(None, 4.0))
        self.assertIsNone(benchlib.ratio(1.0, 0))

    def test_per_round_range_takes_the_ratio_within_each_round(self):
        # Medians give 2/4 = 0.5, but round by round the ratio is 1/2 and 3/6 and 2/4: always 0.5;
        # pairing round 0 of one case with round 1 of the other would give other values.
        rows = [sample("a", "x", 0, cpu=1.0), sample("a", "x", 1, cpu=3.0), sample("a", "x", 2, cpu=2.0),
                sample("b", "x", 0, cpu=2.0), sample("b", "x", 1, cpu=6.0), sample("b", "x", 2, cpu=4.0)]
        summary = benchlib.summarize_cases(rows, [("a", "x"), ("b", "x")], ("cpu",))
        entry = benchlib.ratio_of(summary, "a/b", ("a", "x", "cpu"), ("b", "x", "cpu"), "<= 1")
        entry["extra"] = "kept"
        (row,) = benchlib.add_round_ranges([entry], rows)
        self.assertEqual(row["value"], 0.5)
        self.assertEqual(row["per_round"], "0.5 .. 0.5")
        self.assertEqual(row["extra"], "kept")
        self.assertNotIn("_cases", row)

    def test_interleaved_runs_every_case_once_per_round(self):
        cases = [("a", "x"), ("b", "x"), ("c", "y")]
        schedule = list(benchlib.interleaved(cases, 3))
        self.assertEqual(len(schedule), 9)
        for round_index in range(3):
            self.assertCountEqual([case for r, case in schedule if r == round_index], cases)


class KernelCostTest(unittest.TestCase):
    def test_target_vs_send_names_both_prices(self):
        costs = {"send": 3.15, "send_peer_lets_pile_up": 2.0}
        self.assertEqual(benchlib.target_vs_send(2.56, costs), "2.56 vs send 3.15 (2 piled up)")
        self.assertEqual(benchlib.target_vs_send(2.56, {"send": 3.15}), "2.56 vs send 3.15")

    def test_target_vs_send_is_none_without_a_measurement(self):
        self.assertIsNone(benchlib.target_vs_send(2.56, {}))
        self.assertIsNone(benchlib.target_vs_send(2.56, None))
        self.assertIsNone(benchlib.target_vs_send(None, {"send": 3.15}))

    def test_tcp_segments_sent_counts_this_machines_segments(self):
        if not os.path.exists("/proc/net/snmp"):
            self.skipTest("no /proc/net/snmp here")
        self.assertGreaterEqual(benchlib.tcp_segments_sent(), 0)

    def test_segments_per_message_come_from_the_client_result(self):
        result = benchlib.ClientResult(["client"], 0, "", "", 0.3, 0.7, 1.0)
        result.tcp_segments = 150
        row = {}
        benchlib.add_cpu_per_message(row, result, (0.1, 0.4), client_messages=100, server_messages=50)
        self.assertAlmostEqual(row["client_cpu_us_per_msg"], 1e4)
        self.assertAlmostEqual(row["client_sys_us_per_msg"], 7e3)
        self.assertAlmostEqual(row["server_cpu_us_per_msg"], 1e4)
        self.assertAlmostEqual(row["tcp_segs_per_msg"], 1.5)


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.saved = os.environ.get("NETBENCH_RESULTS_DIR")
        os.environ["NETBENCH_RESULTS_DIR"] = self.directory.name

    def tearDown(self):
        if self.saved is None:
            del os.environ["NETBENCH_RESULTS_DIR"]
        else:
            os.environ["NETBENCH_RESULTS_DIR"] = self.saved
        self.directory.cleanup()

    def test_rerender_rewrites_the_same_report_and_keeps_the_runs_kernel_costs(self):
        rows = [sample("a", "x", 0, cpu=1.0), sample("b", "x", 0, cpu=2.0),
                sample("a", "x", 1, cpu=1.5), sample("b", "x", 1, cpu=2.5)]
        cases = [("a", "x"), ("b", "x")]

        def summarize(rows, cases):
            return benchlib.summarize_cases(rows, cases, ("cpu",))

        def ratios(summary, env):
            row = benchlib.ratio_of(summary, "a/b", ("a", "x", "cpu"), ("b", "x", "cpu"), "<= 1")
            row["target_vs_send"] = benchlib.target_vs_send(1.0, env.get("kernel_costs_us"))
            return [row]

        env = benchlib.environment({"send": 3.0, "send_peer_lets_pile_up": 2.0})
        benchlib.write_bench_report("fake_bench", rows, cases, summarize, ratios, "Notes.", with_ratios=True,
                                    env=env)
        md_path = os.path.join(self.directory.name, "fake_bench.md")
        with open(md_path) as f:
            first = f.read()
        self.assertIn("Kernel prices measured in this run", first)
        self.assertIn("1 vs send 3 (2 piled up)", first)

        self.assertEqual(benchlib.rerender("fake_bench", summarize, ratios), 0)
        with open(md_path) as f:
            self.assertEqual(f.read(), first)
        self.assertEqual(benchlib.load_results("fake_bench")["environment"]["kernel_costs_us"]["send"], 3.0)


if __name__ == "__main__":
    unittest.main()
