"""Tests of the sequential verdicts (bench/analysis/sequential.py) on synthetic rounds, seeded: the error rate
under repeated looks for Gaussian, heavy-tailed and outlier rounds (where a mean's sequence fails), a 10%
difference at the stored runs' spread decided within a budget, the budget never passed by more than one round,
equivalence where there is no difference and little spread, Holm's step-down, and each outcome and field of
one decision."""

import collections
import math
import random
import unittest

from bench.analysis import sequential
from bench.analysis import sign_sequence

TEN_PERCENT = math.log(1.1)
THIRTY_PERCENT = math.log(1.3)  # the write-ups' own differences are 25-35%
# The sd of the per-round log ratio of the echo headline in the stored runs is about 0.2.
STORED_SD = 0.2


def echo_like_claims(noisy_mean=TEN_PERCENT):
    """One write-up's claims in one placement: one 10% difference at the stored runs' spread and five of the
    write-ups' size at half of it, each comparing two cases of 2.5 s: a round of all twelve cases takes 30 s."""
    claims = [{"name": "noisy", "cases": ("a0", "b0"), "log_mean": noisy_mean, "log_sd": STORED_SD}]
    claims += [{"name": f"typical{i}", "cases": (f"a{i}", f"b{i}"), "log_mean": THIRTY_PERCENT, "log_sd": 0.1}
               for i in range(1, 6)]
    return claims, {case: 2.5 for claim in claims for case in claim["cases"]}


def outlier_round(rng):
    """A round shaped like the stored runs' fan-out warm line: a bulk near 0 and one round in eight far off."""
    return rng.gauss(0.0, 0.04) if rng.random() > 0.125 else rng.uniform(0.3, 0.9)


def claimed_in(draw, runs=1000, looks=100, alpha=0.05, seed=20261203):
    """How many of `runs` runs of `looks` rounds, drawn by `draw(rng)` and centred on their true median, claim
    a direction at some look."""
    rng = random.Random(seed)
    options = sequential.Options(alpha=alpha)
    claimed = 0
    for _ in range(runs):
        logs = [draw(rng) for _ in range(looks)]
        claimed += sequential.first_decision(logs, True, options)["outcome"] in (sequential.HOLDS,
                                                                               sequential.REVERSED)
    return claimed / runs


class ErrorRateTest(unittest.TestCase):
    def test_with_no_difference_fewer_than_5_percent_of_runs_looked_at_after_every_round_claim_one(self):
        # Each run is looked at after every one of 100 rounds (more than a 30-minute budget gives any claim).
        for name, draw in (("gaussian", lambda rng: rng.gauss(0.0, STORED_SD)),
                           ("t with 2 degrees of freedom", lambda rng: rng.gauss(0, 1) / math.sqrt(
                               (rng.gauss(0, 1) ** 2 + rng.gauss(0, 1) ** 2) / 2) * 0.05),
                           ("lognormal, shape 1, centred on its median", lambda rng: math.exp(rng.gauss(0, 1)) - 1)):
            with self.subTest(rounds=name):
                rate = claimed_in(draw)
                self.assertLessEqual(rate, 0.05, name)
                self.assertGreater(rate, 0.0, "a rule that never claims anything would pass too")

    def test_rounds_with_an_outlier_one_time_in_eight_claim_no_more_often(self):
        # Centred on its median: the bulk at 0, the outliers all on one side (a mean's sequence claims these).
        rng = random.Random(1)
        middle = sorted(outlier_round(rng) for _ in range(100001))[50000]
        self.assertLessEqual(claimed_in(lambda r: outlier_round(r) - middle), 0.05)


class BudgetTest(unittest.TestCase):
    def test_a_10_percent_difference_at_the_stored_spread_is_decided_within_the_budget(self):
        # Half of a 30-minute budget, 30 rounds' worth of all twelve cases: the five typical claims decide in
        # the fewest rounds their family's level allows, and the noisy one gets the rest. Every claim is judged at
        # the family's rate over its six claims for all its statements, so the noisy one is decided in about
        # three runs in four (a step-down that loosened its level once the others were decided decided it in
        # nine in ten, with direction and equivalence each spending the whole rate).
        claims, case_s = echo_like_claims()
        outcomes, rounds = collections.Counter(), []
        for seed in range(100):
            run = sequential.simulate(claims, case_s, 900, sequential.Simulation(seed=seed))
            noisy = run["claims"]["noisy"]
            outcomes[noisy["outcome"]] += 1
            rounds.append(noisy["rounds"])
            for i in range(1, 6):
                self.assertEqual(run["claims"][f"typical{i}"]["outcome"], sequential.HOLDS)
                self.assertLess(run["claims"][f"typical{i}"]["rounds"], 20)
        self.assertGreaterEqual(outcomes[sequential.HOLDS], 70, outcomes)
        # A wrong direction stays within the rate the family allows.
        self.assertLessEqual(outcomes[sequential.REVERSED], 3, outcomes)
        self.assertLess(sorted(rounds)[50], 120)

    def test_the_budget_is_never_passed_by_more_than_one_round(self):
        claims, case_s = echo_like_claims(noisy_mean=0.0)  # the noisy claim stays open to the end
        for budget_s in (1, 4.9, 5, 30, 31, 100, 333, 1000):
            for seed in range(10):
                run = sequential.simulate(claims, case_s, budget_s, sequential.Simulation(seed=seed, jitter=0.5))
                self.assertLessEqual(run["spent_s"], budget_s + run["last_round_s"])
                # A round starts only when its expected length fits, so it passes only by its own excess.
                self.assertLessEqual(run["spent_s"], budget_s * 1.5 + 1e-9)

    def test_rounds_run_only_the_cases_of_open_claims(self):
        claims, case_s = echo_like_claims(noisy_mean=0.0)
        run = sequential.simulate(claims, case_s, 1000, sequential.Simulation(seed=1, jitter=0.0, max_rounds=50))
        self.assertEqual(run["rounds"], 50)
        decided = [run["claims"][f"typical{i}"]["rounds"] for i in range(1, 6)]
        # 12 cases at 2.5 s while all are open, then the noisy claim's 2 alone.
        expected = sum(2.5 * 2 * (1 + sum(r > k for r in decided)) for k in range(50))
        self.assertAlmostEqual(run["spent_s"], expected)

    def test_should_start_round(self):
        self.assertTrue(sequential.should_start_round(1700, 1800, 100))
        self.assertFalse(sequential.should_start_round(1700.5, 1800, 100))


class FamilyLevelsTest(unittest.TestCase):
    def test_each_claim_is_judged_at_its_familys_rate_over_its_claims_for_every_statement(self):
        # Two families of claims: each claim's one interval is at its own family's rate over that family's size.
        claims = [{"name": "a", "family": sequential.SUMMARY}, {"name": "b", "family": sequential.SUMMARY},
                  {"name": "c", "family": sequential.OTHER}, {"name": "d", "family": sequential.OTHER},
                  {"name": "e", "family": sequential.OTHER}, {"name": "f", "family": sequential.OTHER}]
        levels = sequential.family_levels(claims, sequential.Simulation())
        self.assertEqual((levels["a"].alpha, levels["a"].direction()), (0.025, 0.025))
        self.assertEqual((levels["c"].alpha, levels["c"].direction()), (0.0125, 0.0125))


class FirstDecisionTest(unittest.TestCase):
    def test_the_decision_is_the_one_at_the_first_round_that_decides(self):
        logs = [0.3, 0.31, 0.29, 0.3, 0.32, 0.28, 0.3, -0.5, -0.6, -0.4, -0.5]  # decided at 7, then reopened
        decision = sequential.first_decision(logs)
        self.assertEqual((decision["outcome"], decision["rounds"]), (sequential.HOLDS, 7))
        self.assertEqual(sequential.decide(logs)["outcome"], sequential.OPEN)
        self.assertEqual(decision["p_value"], sequential.anytime_p_value(logs[:7]))

    def test_an_undecided_sequence_gives_its_last_look_with_its_smallest_p_value(self):
        logs = [0.1, -0.1, 0.12, -0.08, 0.05, 0.1, 0.1, -0.2]
        decision = sequential.first_decision(logs)
        last = sequential.decide(logs)
        self.assertEqual(decision["outcome"], sequential.OPEN)
        self.assertEqual(decision["interval"], last["interval"])
        self.assertEqual(decision["p_value"], sequential.anytime_p_value(logs))
        self.assertLessEqual(decision["p_value"], last["p_value"])


class EquivalenceTest(unittest.TestCase):
    def test_no_difference_and_a_small_spread_is_declared_equivalent(self):
        rng = random.Random(7)
        outcomes, rounds = collections.Counter(), []
        for _ in range(200):
            logs = []
            while True:
                logs.append(rng.gauss(0.0, 0.01))
                decision = sequential.decide(logs)
                if decision["outcome"] != sequential.OPEN:
                    break
            outcomes[decision["outcome"]] += 1
            rounds.append(decision["rounds"])
        self.assertGreaterEqual(outcomes[sequential.EQUIVALENT], 195, outcomes)
        self.assertLessEqual(max(rounds), 12)
        self.assertLess(decision["interval"][1], 1.05)
        self.assertGreater(decision["interval"][0], 1 / 1.05)

    def test_a_wider_margin_decides_sooner(self):
        logs = [0.03, -0.02, 0.01, -0.04, 0.05, 0.0, -0.01, 0.02, 0.06, -0.06]
        self.assertEqual(sequential.decide(logs, options=sequential.Options(margin=0.05))["outcome"],
                         sequential.OPEN)
        self.assertEqual(sequential.decide(logs, options=sequential.Options(margin=0.2))["outcome"],
                         sequential.EQUIVALENT)


class DecisionTest(unittest.TestCase):
    AHEAD = [0.30, 0.28, 0.33, 0.31, 0.29, 0.3, 0.32]  # 7 rounds on one side: the fewest at 5%

    def test_outcomes_follow_the_direction_and_which_way_is_better(self):
        behind = [-x for x in self.AHEAD]
        self.assertEqual(sequential.decide(self.AHEAD)["outcome"], sequential.HOLDS)
        self.assertEqual(sequential.decide(behind)["outcome"], sequential.REVERSED)
        self.assertEqual(sequential.decide(self.AHEAD, higher_is_better=False)["outcome"], sequential.REVERSED)
        self.assertEqual(sequential.decide(behind, higher_is_better=False)["outcome"], sequential.HOLDS)
        self.assertEqual(sequential.decide(self.AHEAD[:6])["outcome"], sequential.OPEN)

    def test_a_direction_is_decided_at_its_holm_level_and_equivalence_at_the_familys(self):
        loose = sequential.Options(alpha=0.01, direction_alpha=0.05)
        decision = sequential.decide(self.AHEAD, options=loose)
        self.assertEqual(decision["outcome"], sequential.HOLDS)
        self.assertAlmostEqual(decision["level"], 0.95)
        self.assertEqual(sequential.decide(self.AHEAD, options=sequential.Options(alpha=0.01))["outcome"],
                         sequential.OPEN)

    def test_too_few_rounds_are_not_bounded(self):
        for logs in ([], [0.5], [0.5, 0.5001], [0.2, -0.1, 0.15, -0.05, 0.1, 0.0]):
            decision = sequential.decide(logs)
            self.assertEqual(decision["outcome"], sequential.OPEN)
            self.assertFalse(decision["bounded"])
            self.assertEqual(sequential.bound_text(decision),
                             f"{len(logs)} round{'s' if len(logs) != 1 else ''}: not enough to bound it")

    def test_an_open_claim_is_bounded_by_its_intervals_reach(self):
        rng = random.Random(3)
        logs = [rng.gauss(0.04, 0.1) for _ in range(40)]
        decision = sequential.decide(logs)
        self.assertEqual(decision["outcome"], sequential.OPEN)
        self.assertTrue(decision["bounded"])
        low, high = decision["interval"]
        self.assertLess(low, 1)
        self.assertGreater(high, 1)
        self.assertAlmostEqual(decision["reach_pct"], (max(1 / low, high) - 1) * 100)
        self.assertAlmostEqual(decision["median_ratio"], math.exp(sorted(logs)[19] / 2 + sorted(logs)[20] / 2))
        self.assertAlmostEqual(decision["geomean_ratio"], math.exp(sum(logs) / 40))
        text = sequential.bound_text(decision)
        self.assertTrue(text.startswith(f"any difference is below {decision['reach_pct']:.3g}%"), text)
        self.assertIn(f"about {decision['rounds_to_decide']} rounds would decide it", text)

    def test_the_best_case_needs_no_more_rounds_than_the_rounds_seen_do(self):
        rng = random.Random(5)
        for mean in (0.0, 0.05, 0.2):
            logs = [rng.gauss(mean, 0.2) for _ in range(12)]
            decision = sequential.decide(logs, options=sequential.Options(alpha=0.005))
            best, seen = decision["rounds_best_case"], decision["rounds_to_decide"]
            self.assertIsNotNone(best)
            self.assertTrue(seen is None or best <= seen, (mean, best, seen))

    def test_rounds_to_decide_is_where_rounds_like_those_seen_would_decide(self):
        rng = random.Random(11)
        logs = [rng.gauss(0.15, 0.2) for _ in range(15)]
        decision = sequential.decide(logs, options=sequential.Options(alpha=0.01))
        needed = decision["rounds_to_decide"]
        self.assertGreater(needed, 15)
        # Rounds that repeat those seen, in their proportions above and below 1, decide it by then.
        longer = (logs * (needed // 15 + 2))[:needed + 15]
        self.assertNotEqual(sequential.decide(longer, options=sequential.Options(alpha=0.01))["outcome"],
                            sequential.OPEN)

    def test_decide_rounds_pairs_two_sides_values(self):
        a = {i: 110.0 + i for i in range(8)}
        b = {i: 100.0 for i in range(8)}
        a[8], b[9] = None, 99.0
        decision = sequential.decide_rounds(a, b)
        self.assertEqual(decision["rounds"], 8)
        self.assertEqual(decision["outcome"], sequential.HOLDS)


if __name__ == "__main__":
    unittest.main()
