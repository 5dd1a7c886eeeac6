"""Tests of the ratios and their per-round ranges (bench/reporting/case_ratios.py): a ratio taken across
rounds instead of within one would make a settled ratio look unsettled, or the reverse."""

import unittest

from bench.reporting import case_ratios
from bench.analysis import medians


def sample(server, load, round_index, **values):
    return {"server": server, "load": load, "round": round_index, "returncode": 0, **values}


class CaseRatiosTest(unittest.TestCase):
    def test_ratio_is_none_when_either_side_is_missing_or_zero(self):
        self.assertEqual(case_ratios.ratio(1.0, 4.0), 0.25)
        self.assertIsNone(case_ratios.ratio(None, 4.0))
        self.assertIsNone(case_ratios.ratio(1.0, 0))

    def test_per_round_range_takes_the_ratio_within_each_round(self):
        # Medians give 2/4 = 0.5, but round by round the ratio is 1/2 and 3/6 and 2/4: always 0.5;
        # pairing round 0 of one case with round 1 of the other would give other values.
        rows = [sample("a", "x", 0, cpu=1.0), sample("a", "x", 1, cpu=3.0), sample("a", "x", 2, cpu=2.0),
                sample("b", "x", 0, cpu=2.0), sample("b", "x", 1, cpu=6.0), sample("b", "x", 2, cpu=4.0)]
        summary = medians.summarize_cases(rows, [("a", "x"), ("b", "x")], ("cpu",))
        entry = case_ratios.ratio_of(summary, "a/b", ("a", "x", "cpu"), ("b", "x", "cpu"), "<= 1")
        entry["extra"] = "kept"
        (row,) = case_ratios.add_round_ranges([entry], rows)
        self.assertEqual(row["value"], 0.5)
        self.assertEqual(row["per_round"], "0.5 .. 0.5")
        self.assertEqual(row["extra"], "kept")
        self.assertNotIn("_cases", row)


if __name__ == "__main__":
    unittest.main()
