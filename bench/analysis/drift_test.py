"""Tests of drift.py on seeded synthetic rounds: a step is found where it is and says both ratios, noise with
heavy tails rarely shows one, a step inside the margin is no drift, and too few rounds say nothing."""

import math
import random
import unittest

from bench.analysis import drift


def heavy_tailed(rng, n, sd):
    """Student's t with 3 degrees of freedom, scaled to `sd`: a normal over the square root of a chi-square."""
    return [sd * rng.gauss(0, 1) / math.sqrt(sum(rng.gauss(0, 1) ** 2 for _ in range(3)) / 3) / math.sqrt(3)
            for _ in range(n)]


class DriftTest(unittest.TestCase):
    def test_a_step_is_found_at_its_round_with_the_ratio_on_each_side(self):
        rng = random.Random(1)
        logs = [rng.gauss(0.0, 0.02) for _ in range(15)] + [rng.gauss(0.3, 0.02) for _ in range(15)]
        found = drift.drift(logs, rounds=list(range(100, 130)))
        self.assertEqual(found["at_rounds"], [115])
        self.assertAlmostEqual(found["ratios"][0], 1.0, delta=0.02)
        self.assertAlmostEqual(found["ratios"][1], math.exp(0.3), delta=0.03)

    def test_heavy_tailed_noise_rarely_shows_a_drift(self):
        rng = random.Random(2)
        found = sum(drift.drift(heavy_tailed(rng, 60, 0.15), list(range(60))) is not None for _ in range(300))
        self.assertLessEqual(found, 9)  # 3%

    def test_a_step_of_one_and_a_half_standard_deviations_is_usually_found(self):
        rng = random.Random(3)
        found = sum(drift.drift([rng.gauss(0, 0.1) for _ in range(20)] + [rng.gauss(0.15, 0.1) for _ in range(20)],
                                list(range(40))) is not None for _ in range(300))
        self.assertGreaterEqual(found, 210)  # 70%

    def test_a_step_inside_the_margin_is_no_drift(self):
        logs = [0.0] * 10 + [0.03] * 10
        self.assertIsNone(drift.drift(logs, list(range(20)), margin=0.05))
        self.assertIsNotNone(drift.drift(logs, list(range(20)), margin=0.01))

    def test_too_few_rounds_say_nothing(self):
        self.assertIsNone(drift.drift([0.0] * 5 + [1.0] * 4, list(range(9))))


if __name__ == "__main__":
    unittest.main()
