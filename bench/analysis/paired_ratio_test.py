"""Tests of the paired statistics (bench/analysis/paired_ratio.py) and of the verdicts they give (bench/analysis/verdict.py):
drift between rounds that a pooled U test cannot see through, one case per outcome, and the interval, the
detectable effect, the rounds needed and the sign-flip p against values computed by hand here."""

import math
import unittest

from bench.analysis import paired_ratio
from bench.analysis import verdict

# Five log ratios of mean 0 and sample standard deviation exactly 0.1: [-2, -1, 0, 1, 2] has sample variance
# (4 + 1 + 0 + 1 + 4) / 4 = 2.5.
UNIT_SPREAD = [0.1 * z / math.sqrt(2.5) for z in (-2, -1, 0, 1, 2)]


def rounds(xs):
    return dict(enumerate(xs))


def sides(log_ratios, base=100.0):
    """Rounds of A and B whose log ratios log(A_i / B_i) are the ones given."""
    return rounds([base * math.exp(x) for x in log_ratios]), rounds([base] * len(log_ratios))


def judge(a, b, higher_is_better=True):
    return verdict.judge(a, b, rounds(a), rounds(b), higher_is_better)


class DriftTest(unittest.TestCase):
    def test_drift_between_rounds_hides_a_steady_ratio_from_the_pooled_test_but_not_from_the_paired_one(self):
        # The machine gets 4x faster over 8 rounds (d from 0.5 to 2); in every round A does 1.3x B, within 1%.
        drift = [0.5 + 1.5 * i / 7 for i in range(8)]
        noise = [0.004, -0.007, 0.002, 0.009, -0.003, -0.006, 0.008, -0.001]
        b = [100 * d for d in drift]
        a = [1.3 * x * (1 + e) for x, e in zip(b, noise)]
        pooled = verdict.judge(a, b)
        self.assertEqual(pooled["test"], verdict.U_TEST)
        self.assertGreaterEqual(pooled["p_value"], verdict.ALPHA)
        self.assertEqual(pooled["verdict"], verdict.NOT_SEPARABLE)
        paired = judge(a, b)
        self.assertEqual(paired["test"], paired_ratio.TEST)
        self.assertEqual(paired["verdict"], verdict.HOLDS)
        self.assertLess(paired["ci95"][0], 1.3)
        self.assertGreater(paired["ci95"][0], 1.28)
        self.assertLess(paired["ci95"][1], 1.32)
        self.assertEqual(paired["rounds_paired"], 8)


class OutcomeTest(unittest.TestCase):
    def test_a_ahead_in_every_round_holds(self):
        v = judge([130, 262, 390, 521, 649], [100, 200, 300, 400, 500])
        self.assertEqual(v["verdict"], verdict.HOLDS)
        self.assertIn("excludes 1", v["why"])

    def test_b_ahead_is_reversed(self):
        v = judge([70, 141, 209, 281, 350], [100, 200, 300, 400, 500])
        self.assertEqual(v["verdict"], verdict.REVERSED)

    def test_lower_is_better_turns_the_direction(self):
        faster, slower = [0.70, 1.41, 2.09, 2.81, 3.50], [1.0, 2.0, 3.0, 4.0, 5.0]
        self.assertEqual(judge(faster, slower, higher_is_better=False)["verdict"], verdict.HOLDS)
        self.assertEqual(judge(slower, faster, higher_is_better=False)["verdict"], verdict.REVERSED)

    def test_ratios_within_a_few_tenths_of_a_percent_of_1_are_equivalent(self):
        b = [100, 200, 300, 400, 500, 600]
        a = [x * (1 + e) for x, e in zip(b, [0.003, -0.002, 0.001, -0.003, 0.002, 0.0])]
        v = judge(a, b)
        self.assertEqual(v["verdict"], verdict.EQUIVALENT)
        self.assertGreaterEqual(v["ci95"][0], 0.98)
        self.assertLessEqual(v["ci95"][1], 1.02)

    def test_a_significant_difference_inside_the_margin_is_equivalent_not_holds(self):
        # Every round 1% ahead, steady: the interval excludes 1 but lies inside 0.98 .. 1.02.
        v = judge([101.0, 202.1, 302.9, 404.0, 505.1], [100, 200, 300, 400, 500])
        self.assertGreater(v["ci95"][0], 1)
        self.assertEqual(v["verdict"], verdict.EQUIVALENT)

    def test_ratios_on_both_sides_of_1_are_not_separable_and_say_the_rounds_needed(self):
        b = [100, 200, 300, 400, 500]
        a = [x * r for x, r in zip(b, [1.05, 0.95, 1.06, 0.97, 1.02])]
        v = judge(a, b)
        self.assertEqual(v["verdict"], verdict.NOT_SEPARABLE)
        self.assertLess(v["ci95"][0], 1)
        self.assertGreater(v["ci95"][1], 1)
        self.assertIn(f"{v['rounds_needed']} rounds would resolve", v["why"])


class ArithmeticTest(unittest.TestCase):
    # t quantiles from a printed table: t_{0.975,4} = 2.7764, t_{0.80,4} = 0.9410; t_{0.975,8} = 2.3060,
    # t_{0.80,8} = 0.8889; t_{0.975,9} = 2.2622, t_{0.80,9} = 0.8834.

    def test_the_interval_is_a_t_interval_on_the_log_ratios(self):
        # mean log 0.2, s = 0.1, n = 5: half-width 2.7764 * 0.1 / sqrt(5) = 0.27764 / 2.23607 = 0.124164;
        # interval exp(0.2 -+ 0.124164) = exp(0.075836) .. exp(0.324164) = 1.078785 .. 1.382876.
        a, b = sides([0.2 + x for x in UNIT_SPREAD])
        stats = paired_ratio.analyse(a, b)
        self.assertAlmostEqual(stats["geomean_ratio"], math.exp(0.2))
        self.assertAlmostEqual(stats["ci95"][0], 1.078785, places=5)
        self.assertAlmostEqual(stats["ci95"][1], 1.382876, places=5)
        self.assertEqual(stats["rounds"], 5)

    def test_the_detectable_effect_of_5_rounds_of_spread_0_1(self):
        # delta = (2.7764 + 0.9410) * 0.1 / sqrt(5) = 0.37174 / 2.23607 = 0.166248;
        # X = (exp(0.166248) - 1) * 100 = 18.087%.
        self.assertAlmostEqual(paired_ratio.detectable_log_difference(0.1, 5), 0.166248, places=5)
        a, b = sides(UNIT_SPREAD)
        self.assertAlmostEqual(paired_ratio.analyse(a, b)["detectable_pct"], 18.087, places=2)

    def test_the_rounds_that_would_resolve_a_difference_as_large_as_the_spread(self):
        # s = 0.1, |mean log| = 0.1: need (t_{0.975,n-1} + t_{0.80,n-1}) / sqrt(n) <= 1.
        # n = 9: (2.3060 + 0.8889) / 3 = 1.0650 > 1; n = 10: (2.2622 + 0.8834) / 3.16228 = 0.99473 <= 1.
        self.assertEqual(paired_ratio.rounds_needed(0.1, 0.1), 10)
        self.assertEqual(paired_ratio.rounds_needed(0.1, -0.1), 10)  # either direction

    def test_rounds_needed_at_the_edges(self):
        self.assertIsNone(paired_ratio.rounds_needed(0.1, 0.0))  # no difference to resolve
        self.assertEqual(paired_ratio.rounds_needed(0.0, 0.05), 2)  # no spread: the fewest with an interval
        self.assertEqual(paired_ratio.rounds_needed(0.1, 0.001), paired_ratio.MORE_THAN_CAP)
        self.assertEqual(paired_ratio.MORE_THAN_CAP, "more than 1000")

    def test_the_sign_flip_p_of_5_rounds_all_one_way_is_2_in_32(self):
        # Only all-plus and all-minus reach |sum| = 1.5: 2 / 2^5.
        self.assertEqual(paired_ratio.sign_flip_p([0.1, 0.2, 0.3, 0.4, 0.5]), 0.0625)

    def test_the_sign_flip_p_with_mixed_signs(self):
        # Observed |1 - 2 + 4| = 3; the eight sums +-1 +-2 +-4 are 7, -1, 3, -5, 5, -3, 1, -7: six reach 3.
        self.assertEqual(paired_ratio.sign_flip_p([1.0, -2.0, 4.0]), 0.75)
        self.assertEqual(paired_ratio.sign_flip_p([1.0, 2.0, -3.0]), 1.0)  # observed sum 0: every one reaches it
        self.assertIsNone(paired_ratio.sign_flip_p([]))

    def test_the_sign_flip_p_beyond_16_rounds_is_a_seeded_monte_carlo(self):
        # 20 rounds all one way: all-plus or all-minus is drawn with probability 2 / 2^20, so (almost surely,
        # and with this seed) none of the 20,000 draws reaches the observed sum: p = 1 / 20,001.
        logs = [0.1] * 20
        self.assertEqual(paired_ratio.sign_flip_p(logs), 1 / 20001)
        self.assertEqual(paired_ratio.sign_flip_p(logs), paired_ratio.sign_flip_p(logs))
        a, b = sides(logs)
        self.assertIn(f"seed {paired_ratio.MONTE_CARLO_SEED}", paired_ratio.analyse(a, b)["sign_flip_method"])

    def test_under_two_rounds_there_is_no_interval(self):
        one = paired_ratio.analyse({0: 130.0}, {0: 100.0})
        self.assertAlmostEqual(one["geomean_ratio"], 1.3)
        for key in ("ci95", "t_p_value", "detectable_pct", "rounds_needed"):
            self.assertIsNone(one[key], key)
        self.assertIsNone(paired_ratio.analyse({}, {})["geomean_ratio"])

    def test_only_rounds_both_sides_have_and_positive_values_pair(self):
        pairs = paired_ratio.paired_rounds({0: 2.0, 1: 3.0, 2: 0.0, 3: None, 5: 1.0}, {0: 1.0, 1: 1.5, 2: 1.0, 3: 1.0})
        self.assertEqual(pairs, [(2.0, 1.0), (3.0, 1.5)])


if __name__ == "__main__":
    unittest.main()
