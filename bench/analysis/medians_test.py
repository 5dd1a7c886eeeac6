"""Tests of the per-case medians (bench/analysis/medians.py): every figure a detail bench prints is one of them, so
a wrong median would mislead every reader."""

import unittest

from bench.analysis import medians


def sample(server, load, round_index, **values):
    return {"server": server, "load": load, "round": round_index, "returncode": 0, **values}


class MediansTest(unittest.TestCase):
    def test_summarize_cases_takes_medians_per_case_and_skips_missing_values(self):
        rows = [sample("a", "x", 0, cpu=1.0), sample("a", "x", 1, cpu=3.0), sample("a", "x", 2, cpu=None),
                sample("b", "x", 0, cpu=10.0)]
        summary = medians.summarize_cases(rows, [("a", "x"), ("b", "x")], ("cpu",))
        self.assertEqual(medians.lookup(summary, "a", "x", "cpu"), 2.0)
        self.assertEqual(medians.lookup(summary, "b", "x", "cpu"), 10.0)
        self.assertIsNone(medians.lookup(summary, "c", "x", "cpu"))


if __name__ == "__main__":
    unittest.main()
