"""steady_state on series made with known phases: a flat run, a warm-up step, a slowdown, a ramp with noise and
a change in the run's last quarter each come out as what was put in; PELT's pruned search finds the segmentation
that trying every one finds."""

import itertools
import math
import unittest

import numpy

from bench.analysis import steady_state


def noisy(rng, mean, sd, n):
    return list(rng.normal(mean, sd, n))


class ChangepointsTest(unittest.TestCase):
    def test_a_clean_step_is_found_where_it_is(self):
        self.assertEqual(steady_state.changepoints([5.0] * 50 + [9.0] * 50), [50])

    def test_pruning_keeps_the_optimal_segmentation(self):
        rng = numpy.random.default_rng(7)
        for trial in range(20):
            n, m = 18, 3
            x = numpy.concatenate([rng.normal(rng.uniform(0, 10), rng.uniform(0.5, 3), 6) for _ in range(3)])
            penalty = 4.0
            cumsum = numpy.concatenate(([0.0], numpy.cumsum(x)))
            cumsum2 = numpy.concatenate(([0.0], numpy.cumsum(x * x)))
            floor = (1e-3 * float(numpy.mean(numpy.abs(x)))) ** 2

            def cost(cuts):
                bounds = [0] + list(cuts) + [n]
                return sum(float(steady_state._segment_costs(cumsum, cumsum2, numpy.array([s]), e, floor)[0])
                           for s, e in zip(bounds, bounds[1:])) + penalty * len(cuts)

            brute = min((cuts for k in range(0, n // m) for cuts in itertools.combinations(range(m, n - m + 1), k)
                         if all(b - a >= m for a, b in zip((0,) + cuts, cuts + (n,)))), key=cost)
            found = steady_state.changepoints(x, penalty=penalty, min_segment=m)
            self.assertAlmostEqual(cost(found), cost(brute), places=6, msg=f"trial {trial}: {found} vs {brute}")

    def test_too_few_points_have_no_changepoint(self):
        self.assertEqual(steady_state.changepoints([1.0, 100.0, 1.0]), [])


class ClassifyTest(unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(20261204)

    def test_flat(self):
        found = steady_state.classify_rates(noisy(self.rng, 200_000, 8_000, 600), 0.1)
        self.assertEqual(found["class"], steady_state.FLAT)
        self.assertEqual(found["steady_start_s"], 0.0)
        self.assertAlmostEqual(found["steady_rate"], 200_000, delta=2_000)

    def test_warm_up_step(self):
        values = noisy(self.rng, 150_000, 8_000, 40) + noisy(self.rng, 230_000, 8_000, 560)
        found = steady_state.classify_rates(values, 0.1)
        self.assertEqual(found["class"], steady_state.WARM_UP)
        self.assertAlmostEqual(found["steady_start_s"], 4.0, delta=0.3)
        self.assertAlmostEqual(found["steady_rate"], 230_000, delta=2_000)

    def test_slowdown(self):
        # Racket's server as measured on a 2-core VM: about 205k msgs/s, then 180k after 30 s.
        values = noisy(self.rng, 205_000, 8_000, 300) + noisy(self.rng, 180_000, 8_000, 300)
        found = steady_state.classify_rates(values, 0.1)
        self.assertEqual(found["class"], steady_state.SLOWDOWN)
        self.assertAlmostEqual(found["steady_start_s"], 30.0, delta=0.5)
        self.assertAlmostEqual(found["steady_rate"], 180_000, delta=2_000)

    def test_ramp_with_noise_then_a_plateau_is_a_warm_up(self):
        ramp = list(numpy.linspace(100_000, 200_000, 300) + self.rng.normal(0, 5_000, 300))
        found = steady_state.classify_rates(ramp + noisy(self.rng, 200_000, 5_000, 300), 0.1)
        self.assertEqual(found["class"], steady_state.WARM_UP)
        self.assertGreater(found["steady_start_s"], 20.0)
        self.assertLessEqual(found["steady_start_s"], 31.0)
        self.assertAlmostEqual(found["steady_rate"], 200_000, delta=4_000)

    def test_a_change_in_the_last_quarter_leaves_no_steady_state(self):
        values = noisy(self.rng, 200_000, 5_000, 500) + noisy(self.rng, 120_000, 5_000, 100)
        found = steady_state.classify_rates(values, 0.1)
        self.assertEqual(found["class"], steady_state.NO_STEADY_STATE)
        self.assertIsNone(found["steady_rate"])
        self.assertIsNone(found["steady_start_s"])

    def test_segments_within_the_tolerance_are_one_phase(self):
        values = [100.0] * 50 + [101.0] * 50  # a 1% step: below EQUIVALENT_WITHIN
        found = steady_state.classify_rates(values, 0.1)
        self.assertEqual(found["class"], steady_state.FLAT)
        self.assertAlmostEqual(found["steady_rate"], numpy.mean(values[:-1]), places=6)  # the partial last left out

    def test_lower_is_better_turns_the_classes(self):
        times = [2.0] * 50 + [1.0] * 50  # a latency that falls: it warmed up
        self.assertEqual(steady_state.classify_rates(times, 0.1, higher_is_better=False)["class"],
                         steady_state.WARM_UP)

    def test_a_changepoint_the_other_run_shares_is_not_the_programs(self):
        values = [200.0] * 300 + [150.0] * 300
        alone = steady_state.classify_rates(values, 0.1)
        self.assertEqual(alone["class"], steady_state.SLOWDOWN)
        shared = steady_state.classify_rates(values, 0.1, ignore_at_s=[30.0])
        self.assertEqual(shared["class"], steady_state.FLAT)


class SeriesTest(unittest.TestCase):
    def test_whole_rate_counts_the_partial_last_interval_by_its_length(self):
        series = {"interval_s": 0.1, "last_s": 0.05, "sent": [1000] * 20 + [500]}
        found = steady_state.classify(series)
        self.assertAlmostEqual(found["whole_rate"], 20_500 / 2.05)
        self.assertAlmostEqual(found["seconds"], 2.05)
        self.assertEqual(found["class"], steady_state.FLAT)
        self.assertAlmostEqual(found["steady_rate"], 10_000)

    def test_a_short_run_says_so(self):
        found = steady_state.classify({"interval_s": 0.1, "last_s": 0.1, "sent": [100] * 8})
        self.assertTrue(found["too_short"])
        self.assertEqual(found["class"], steady_state.FLAT)

    def test_no_series_no_class(self):
        self.assertIsNone(steady_state.classify(None))
        self.assertIsNone(steady_state.classify({"interval_s": 0.1, "sent": []}))

    def test_shared_changepoints(self):
        a = {"changepoints_s": [4.0, 30.0]}
        b = {"changepoints_s": [30.1, 50.0]}
        self.assertEqual(steady_state.shared_changepoints(a, b, 0.15), [30.0])
        self.assertTrue(math.isclose(steady_state.rates({"interval_s": 0.5, "sent": [10, 2], "last_s": 0.25})[1], 8))


if __name__ == "__main__":
    unittest.main()
