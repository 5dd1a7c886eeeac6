"""Tests of the sign-based confidence sequence for a median (bench/analysis/sign_sequence.py): the mixture's
values, its interval between order statistics, the fewest rounds that decide, and its coverage at every look
for rounds of any shape, seeded."""

import math
import random
import unittest

from bench.analysis import sign_sequence


class MixtureTest(unittest.TestCase):
    def test_no_rounds_is_no_evidence_and_a_balanced_split_is_little(self):
        self.assertEqual(sign_sequence.log_mixture(0, 0), 0.0)
        self.assertLess(sign_sequence.log_mixture(10, 10), 0.0)
        self.assertGreater(sign_sequence.log_mixture(20, 0), sign_sequence.log_mixture(15, 5))

    def test_it_is_symmetric_in_up_and_down(self):
        self.assertAlmostEqual(sign_sequence.log_mixture(3, 9), sign_sequence.log_mixture(9, 3))

    def test_the_fewest_rounds_are_all_on_one_side(self):
        for alpha in (0.05, 0.01, 0.0025):
            n = sign_sequence.fewest_rounds(alpha)
            self.assertGreaterEqual(sign_sequence.log_mixture(n, 0), math.log(1 / alpha))
            self.assertLess(sign_sequence.log_mixture(n - 1, 0), math.log(1 / alpha))
        self.assertEqual(sign_sequence.fewest_rounds(0.01), 10)


class IntervalTest(unittest.TestCase):
    def test_the_interval_lies_between_order_statistics_and_holds_the_median(self):
        rng = random.Random(2)
        rounds = sorted(rng.gauss(0.3, 0.1) for _ in range(60))
        low, high = sign_sequence.interval(rounds, 0.01)
        self.assertIn(low, rounds)
        self.assertIn(high, rounds)
        self.assertLess(low, sign_sequence.median(rounds))
        self.assertGreater(high, sign_sequence.median(rounds))
        self.assertTrue(sign_sequence.excluded(rounds, low - 1e-9, 0.01))
        self.assertFalse(sign_sequence.excluded(rounds, (low + high) / 2, 0.01))

    def test_too_few_rounds_leave_it_unbounded(self):
        self.assertEqual(sign_sequence.interval([0.1, 0.2, 0.3], 0.05), (-math.inf, math.inf))
        self.assertIsNone(sign_sequence.interval([], 0.05))

    def test_p_value_and_exclusion_agree(self):
        rounds = sorted([0.1] * 9 + [-0.1])
        p = sign_sequence.p_value(rounds, 0.0)
        self.assertTrue(sign_sequence.excluded(rounds, 0.0, p * 1.0001))
        self.assertFalse(sign_sequence.excluded(rounds, 0.0, p * 0.9999))


class CoverageTest(unittest.TestCase):
    def test_it_covers_the_median_at_every_look_for_skewed_and_heavy_tailed_rounds(self):
        # Exponential rounds (skewed; median log 2) and Cauchy ones (no mean at all): 400 runs of 150 looks.
        for name, draw, median in (("exponential", lambda rng: rng.expovariate(1.0), math.log(2)),
                                   ("cauchy", lambda rng: math.tan(math.pi * (rng.random() - 0.5)), 0.0)):
            rng = random.Random(9)
            missed = 0
            for _ in range(400):
                seen = []
                for _ in range(150):
                    seen.append(draw(rng))
                    seen.sort()
                    if sign_sequence.excluded(seen, median, 0.05):
                        missed += 1
                        break
            with self.subTest(rounds=name):
                self.assertLessEqual(missed / 400, 0.05)


class RoundsNeededTest(unittest.TestCase):
    def test_a_side_never_seen_is_not_taken_as_impossible(self):
        # Five rounds above: the rounds to come are taken as above 11 times in 12 (half a round to each side),
        # not always, so it takes one more than the fewest (7 at 5%).
        rounds = sorted([0.1] * 5)
        self.assertEqual(sign_sequence.rounds_needed(rounds, 0.0, 0.05), 8)
        needed = sign_sequence.rounds_needed(rounds, 0.0, 0.01)
        self.assertGreaterEqual(needed, sign_sequence.fewest_rounds(0.01))

    def test_a_balanced_split_is_beyond_the_cap(self):
        self.assertIsNone(sign_sequence.rounds_needed(sorted([-0.1, 0.1] * 5), 0.0, 0.01, cap=2000))


if __name__ == "__main__":
    unittest.main()
