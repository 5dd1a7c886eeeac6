"""Tests of the runs a claim lost (bench/analysis/lost_runs.py): why a run gave no figure, when two sides lost
unequally, and the ratio with each lost round counted as its side's loss."""

import math
import unittest

from bench.analysis import lost_runs


class WhyLostTest(unittest.TestCase):
    def test_each_reason(self):
        self.assertEqual(lost_runs.why_lost({"status": "failed"}, None), lost_runs.FAILED)
        self.assertEqual(lost_runs.why_lost({"status": "ok"}, None, steady_figure=True), lost_runs.NO_STEADY_STATE)
        self.assertEqual(lost_runs.why_lost({"status": "ok"}, None), lost_runs.NO_FIGURE)
        self.assertEqual(lost_runs.why_lost({"status": "ok"}, 0), lost_runs.ZERO)
        self.assertIsNone(lost_runs.why_lost({"status": "ok"}, 12.5))


class UnequalTest(unittest.TestCase):
    def test_more_than_two_in_twenty_apart(self):
        self.assertFalse(lost_runs.unequal({"failed": 2}, {}, 20))
        self.assertTrue(lost_runs.unequal({"failed": 2, "zero": 1}, {}, 20))
        self.assertFalse(lost_runs.unequal({"failed": 3}, {"zero": 3}, 20))


class CountingLossesTest(unittest.TestCase):
    def test_the_side_that_lost_its_rounds_loses_them(self):
        kept = {i: math.log(1.1) for i in range(6)}  # A ahead by 10% in every round both gave
        # A lost 8 rounds: counted as A's losses, the median turns against it.
        ratio = lost_runs.ratio_counting_losses(kept, lost_a=set(range(6, 14)), lost_b=set())
        self.assertEqual(ratio, 0.0)
        # Lower is better: the same lost rounds push the ratio up, against A again.
        self.assertEqual(lost_runs.ratio_counting_losses(kept, set(range(6, 14)), set(), higher_is_better=False),
                         math.inf)
        # A few lost rounds leave the median where the rounds both gave put it.
        self.assertAlmostEqual(lost_runs.ratio_counting_losses(kept, {6}, set()), 1.1)

    def test_a_round_both_lost_counts_for_neither(self):
        self.assertAlmostEqual(lost_runs.ratio_counting_losses({0: 0.0, 1: 0.0, 2: 0.0}, {5, 6}, {5, 6}), 1.0)


if __name__ == "__main__":
    unittest.main()
