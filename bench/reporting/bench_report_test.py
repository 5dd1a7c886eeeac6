"""Tests of a detail bench's report (bench/reporting/bench_report.py): re-rendering from the stored samples must give
the report the run wrote, with the run's own kernel prices, not this machine's now."""

import os
import unittest

from bench.reporting import bench_report
from bench.reporting import case_ratios
from bench.scenarios import kernel_costs
from bench.analysis import medians
from bench.reporting import result_files
from bench.reporting import run_environment
from bench.reporting import scratch_results_dir


def sample(server, load, round_index, **values):
    return {"server": server, "load": load, "round": round_index, "returncode": 0, **values}


class BenchReportTest(scratch_results_dir.ScratchResultsDirTest):
    def test_rerender_rewrites_the_same_report_and_keeps_the_runs_kernel_costs(self):
        rows = [sample("a", "x", 0, cpu=1.0), sample("b", "x", 0, cpu=2.0),
                sample("a", "x", 1, cpu=1.5), sample("b", "x", 1, cpu=2.5)]
        cases = [("a", "x"), ("b", "x")]

        def summarize(rows, cases):
            return medians.summarize_cases(rows, cases, ("cpu",))

        def ratios(summary, env):
            row = case_ratios.ratio_of(summary, "a/b", ("a", "x", "cpu"), ("b", "x", "cpu"), "<= 1")
            row["target_vs_send"] = kernel_costs.target_vs_send(1.0, env.get("kernel_costs_us"))
            return [row]

        env = run_environment.environment({"send": 3.0, "send_peer_lets_pile_up": 2.0})
        bench_report.write_bench_report("fake_bench", rows, cases, summarize, ratios, "Notes.", with_ratios=True,
                                        env=env)
        md_path = os.path.join(self.directory.name, "fake_bench.md")
        with open(md_path) as f:
            first = f.read()
        self.assertIn("Kernel prices measured in this run", first)
        self.assertIn("1 vs send 3 (2 piled up)", first)

        self.assertEqual(bench_report.rerender("fake_bench", summarize, ratios), 0)
        with open(md_path) as f:
            self.assertEqual(f.read(), first)
        self.assertEqual(result_files.load_results("fake_bench")["environment"]["kernel_costs_us"]["send"], 3.0)
        stored = result_files.load_results("fake_bench")
        self.assertEqual(stored["notes"], "Notes.")  # the ratios are rows of their own, not text in the notes
        self.assertEqual([r["ratio"] for r in stored["ratios"]], ["a/b"])

    def test_an_older_document_with_its_ratios_in_its_notes_is_rerendered_with_them_as_rows(self):
        rows = [sample("a", "x", 0, cpu=1.0), sample("b", "x", 0, cpu=2.0)]

        def summarize(rows, cases):
            return medians.summarize_cases(rows, cases, ("cpu",))

        def ratios(summary, env):
            return [case_ratios.ratio_of(summary, "a/b", ("a", "x", "cpu"), ("b", "x", "cpu"), "<= 1")]

        result_files.write_results("old_bench", rows, notes="Notes." + bench_report.OLD_RATIOS_HEADING
                                   + "| ratio |\n|---|\n| a/b |\n", summary_rows=summarize(rows, [("a", "x"), ("b", "x")]),
                                   schema="netbench.bench/2")
        self.assertEqual(bench_report.rerender("old_bench", summarize, ratios), 0)
        stored = result_files.load_results("old_bench")
        self.assertEqual((stored["notes"], stored["schema"]), ("Notes.", "netbench.bench/2"))
        self.assertEqual([r["ratio"] for r in stored["ratios"]], ["a/b"])


if __name__ == "__main__":
    unittest.main()
