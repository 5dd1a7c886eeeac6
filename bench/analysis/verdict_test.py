"""Tests of the verdict logic (bench/analysis/verdict.py) on synthetic samples, one per outcome: a verdict printed
in REPORT.md must follow from the samples, whatever they are. With rounds the verdict is paired (the statistics
themselves are tested in paired_ratio_test.py); without, it is the pooled U test."""

import unittest

from bench.analysis import verdict


def rounds(xs):
    return dict(enumerate(xs))


class VerdictTest(unittest.TestCase):
    def judge(self, a, b, higher_is_better=True):
        return verdict.judge(a, b, rounds(a), rounds(b), higher_is_better)

    def test_a_clearly_ahead_in_every_round_holds(self):
        v = self.judge([110, 112, 115, 111, 113], [85, 86, 84, 87, 85])
        self.assertEqual(v["verdict"], verdict.HOLDS)
        self.assertLess(v["p_value"], verdict.ALPHA)
        self.assertEqual(v["median_a"], 112)
        self.assertAlmostEqual(v["ratio"], 112 / 85)
        self.assertGreater(v["per_round_min"], 1)

    def test_b_clearly_ahead_is_reversed(self):
        v = self.judge([80, 81, 79, 82, 80], [100, 101, 99, 102, 100])
        self.assertEqual(v["verdict"], verdict.REVERSED)

    def test_lower_is_better_turns_the_direction(self):
        faster = [0.74, 0.75, 0.73, 0.76, 0.74]
        slower = [1.27, 1.26, 1.28, 1.25, 1.27]
        self.assertEqual(self.judge(faster, slower, higher_is_better=False)["verdict"], verdict.HOLDS)
        self.assertEqual(self.judge(slower, faster, higher_is_better=False)["verdict"], verdict.REVERSED)

    def test_overlapping_samples_are_not_separable(self):
        v = self.judge([100, 90, 110, 95, 105], [98, 108, 92, 103, 97])
        self.assertEqual(v["verdict"], verdict.NOT_SEPARABLE)
        self.assertGreaterEqual(v["p_value"], verdict.ALPHA)

    def test_one_round_on_the_other_side_of_1_does_not_veto_an_interval_that_excludes_1(self):
        # Round 4 pairs A's lowest with B's highest (ratio 0.99); the four others say 1.2, and the paired
        # interval of the five stays above 1. The per-round range still shows the odd round.
        a = [120, 121, 122, 123, 110]
        b = [100, 101, 102, 103, 111]
        v = verdict.judge(a, b, rounds(a), rounds(b))
        self.assertEqual(v["verdict"], verdict.HOLDS)
        self.assertLess(v["per_round_min"], 1)
        self.assertGreater(v["ci95"][0], 1)
        self.assertEqual(v["test"], "paired t on log ratios")

    def test_three_samples_a_side_can_never_reach_p_below_0_05_in_a_u_test(self):
        v = verdict.judge([200, 201, 202], [100, 101, 102])
        self.assertEqual(v["verdict"], verdict.NOT_SEPARABLE)
        self.assertAlmostEqual(v["p_value"], 0.1)
        self.assertEqual(v["test"], verdict.U_TEST)

    def test_three_paired_rounds_of_a_steady_ratio_are_enough(self):
        v = self.judge([200, 201, 202], [100, 101, 102])
        self.assertEqual(v["verdict"], verdict.HOLDS)
        self.assertEqual(v["rounds_paired"], 3)

    def test_one_sample_a_side_has_no_test(self):
        v = self.judge([200], [100])
        self.assertEqual(v["verdict"], verdict.NOT_SEPARABLE)
        self.assertIsNone(v["p_value"])
        self.assertIn("too few for a U test", v["why"])

    def test_identical_samples_are_equivalent_when_paired_and_not_separable_pooled(self):
        self.assertEqual(self.judge([5, 5, 5, 5], [5, 5, 5, 5])["verdict"], verdict.EQUIVALENT)
        self.assertEqual(verdict.judge([5, 5, 5, 5], [5, 5, 5, 5])["verdict"], verdict.NOT_SEPARABLE)

    def test_a_missing_side_is_not_measured_with_the_reason(self):
        v = verdict.judge([1, 2, 3], [None, None], why_missing="racket skipped: not installed")
        self.assertEqual(v["verdict"], verdict.NOT_MEASURED)
        self.assertEqual(v["why"], "racket skipped: not installed")

    def test_not_testable_carries_what_it_needs_and_the_command(self):
        v = verdict.not_testable("needs macOS", "GOMAXPROCS=2 ./wsclient 4 100000")
        self.assertEqual(v["verdict"], verdict.NOT_TESTABLE)
        self.assertEqual(v["command"], "GOMAXPROCS=2 ./wsclient 4 100000")

    def test_the_u_test_matches_the_textbook_value(self):
        # Exact two-sided p for 5 vs 5 fully separated samples: 2 / C(10, 5) = 2 / 252.
        self.assertAlmostEqual(verdict.mann_whitney_p([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]), 2 / 252)


class SequentialVerdictTest(unittest.TestCase):
    def judge(self, a, b, higher_is_better=True):
        return verdict.judge_sequential(a, b, rounds(a), rounds(b), higher_is_better)

    def test_a_steady_lead_holds_and_the_other_way_is_reversed(self):
        # Every one of 12 rounds on A's side: more than the fewest a sign sequence at 5% decides on (7).
        a, b = [130, 131, 129, 130, 132, 130] * 2, [100, 101, 99, 100, 101, 100] * 2
        v = self.judge(a, b)
        self.assertEqual(v["verdict"], verdict.HOLDS)
        self.assertIn("sign-based", v["test"])
        self.assertGreater(v["sequence"]["interval"][0], 1)
        self.assertEqual(self.judge(b, a)["verdict"], verdict.REVERSED)
        self.assertEqual(self.judge(a, b, higher_is_better=False)["verdict"], verdict.REVERSED)

    def test_the_same_within_a_percent_is_equivalent_within_the_margin(self):
        a, b = [100, 101, 100, 99, 100, 100] * 2, [100, 100, 100, 100, 100.5, 99.5] * 2
        v = self.judge(a, b)
        self.assertEqual(v["verdict"], "equivalent within \u00b15%")
        self.assertEqual(v["verdict"], verdict.equivalent_within(0.05))

    def test_an_open_claim_says_its_bound_and_the_rounds_that_would_decide_it(self):
        a, b = [110, 90, 105, 95, 112, 88] * 5, [100] * 30
        v = self.judge(a, b)
        self.assertEqual(v["verdict"], verdict.OPEN)
        self.assertTrue(v["why"].startswith("any difference is below"), v["why"])
        self.assertIn("rounds would decide it", v["why"])

    def test_too_few_rounds_to_bound_it_say_so_rather_than_a_bound(self):
        a, b = [110, 90, 105, 95, 112, 88], [100] * 6
        v = self.judge(a, b)
        self.assertEqual(v["verdict"], verdict.OPEN)
        self.assertEqual(v["why"], "6 rounds: not enough to bound it")

    def test_a_missing_side_is_still_not_measured(self):
        v = verdict.sequential_of(verdict.judge([1, 2, 3], [], why_missing="go skipped"), None, None)
        self.assertEqual(v["verdict"], verdict.NOT_MEASURED)
        self.assertNotIn("sequence", v)


class StealRoundsTest(unittest.TestCase):
    def test_rounds_count_once_whichever_side_had_the_steal(self):
        rows = [{"round": 0, "noise": {"steal": 0.01}}, {"round": 0, "noise": {"steal": 0.08}},
                {"round": 1, "noise": {"steal": 0.02}}, {"round": 1, "noise": {"steal": 0.03}},
                {"round": 2, "noise": {"steal": 0.2}}, {"round": 3}, {"round": 4, "noise": None}]
        counted = verdict.steal_rounds(rows)
        self.assertEqual(counted, {"steal_level": 0.05, "rounds_with_steal": 2, "rounds_with_noise": 3,
                                   "max_steal": 0.2})
        self.assertEqual(verdict.steal_rounds(rows, level=0.1)["rounds_with_steal"], 1)
        self.assertEqual(verdict.steal_rounds([])["max_steal"], None)


if __name__ == "__main__":
    unittest.main()
