"""Tests of the sequential verdicts (bench/analysis/sequential.py) on synthetic rounds, seeded: the error rate
under repeated looks, a 10% difference at the stored run's spread decided within a budget, the budget never
passed by more than one round, equivalence where there is no difference and little spread, and each outcome
and field of one decision."""

import collections
import math
import random
import unittest

from bench.analysis import sequential

TEN_PERCENT = math.log(1.1)
THIRTY_PERCENT = math.log(1.3)  # the write-ups' own differences are 25-35%
# The sd of the per-round log ratio in the stored run (results/data/linux-x86_64-2cpu, 10 rounds of 1 s runs)
# is 0.07-0.54 over its 28 claims, median 0.18; 0.21 for Racket against Go under the spammer, shared.
STORED_SD = 0.2
STEADY_SD = 0.05


def echo_like_claims(noisy_mean=TEN_PERCENT):
    """One write-up's claims in one placement: one 10% difference at the stored run's spread and five of the
    write-ups' size at a tenth of it, each comparing two cases of 2.5 s (a 1 s run and its server's start and
    stop): a round of all twelve cases takes 30 s."""
    claims = [{"name": "noisy", "cases": ("a0", "b0"), "log_mean": noisy_mean, "log_sd": STORED_SD}]
    claims += [{"name": f"typical{i}", "cases": (f"a{i}", f"b{i}"), "log_mean": THIRTY_PERCENT, "log_sd": 0.1}
               for i in range(1, 6)]
    return claims, {case: 2.5 for claim in claims for case in claim["cases"]}


class ErrorRateTest(unittest.TestCase):
    def test_with_no_difference_fewer_than_5_percent_of_1000_runs_looked_at_after_every_round_claim_one(self):
        # Each run is looked at after every one of 100 rounds (more than a 30-minute budget gives any claim)
        # and counts as a false claim if any look says holds or reversed. Looking on past an "equivalent"
        # makes this stricter than the round loop, which stops there.
        rng = random.Random(20261203)
        claimed = collections.Counter()
        for _ in range(1000):
            logs = []
            for _ in range(100):
                logs.append(rng.gauss(0.0, STORED_SD))
                outcome = sequential.decide(logs)["outcome"]
                if outcome in (sequential.HOLDS, sequential.REVERSED):
                    claimed[outcome] += 1
                    break
        rate = sum(claimed.values()) / 1000
        self.assertLess(rate, 0.05, claimed)
        self.assertGreater(rate, 0.0, "a rule that never claims anything would pass too: it should spend some")

    def test_the_looks_of_a_fixed_t_interval_would_claim_far_more(self):
        # The reason for the sequence: a 95% t interval looked at after every round of the same runs.
        from scipy.stats import t
        quantile = {n: float(t.ppf(0.975, n - 1)) for n in range(3, 101)}
        rng = random.Random(20261203)
        claimed = 0
        for _ in range(300):
            logs = []
            for n in range(1, 101):
                logs.append(rng.gauss(0.0, STORED_SD))
                if n >= 3:
                    _, mean, sd = sequential.summarize(logs)
                    if abs(mean) > quantile[n] * sd / math.sqrt(n):
                        claimed += 1
                        break
        self.assertGreater(claimed / 300, 0.2)


class BudgetTest(unittest.TestCase):
    def test_a_10_percent_difference_at_the_noisiest_spread_is_decided_within_the_budget(self):
        # Half of a 30-minute budget, 30 rounds' worth of all twelve cases: the five typical claims decide in a
        # few rounds, and the noisy one gets the rest (about 50 rounds at the median, 140 at the 99th centile).
        claims, case_s = echo_like_claims()
        outcomes, rounds = collections.Counter(), []
        for seed in range(200):
            run = sequential.simulate(claims, case_s, 900, sequential.Simulation(seed=seed))
            noisy = run["claims"]["noisy"]
            outcomes[noisy["outcome"]] += 1
            rounds.append(noisy["rounds"])
            for i in range(1, 6):
                self.assertEqual(run["claims"][f"typical{i}"]["outcome"], sequential.HOLDS)
                self.assertLess(run["claims"][f"typical{i}"]["rounds"], 15)
        self.assertGreaterEqual(outcomes[sequential.HOLDS], 190, outcomes)
        self.assertEqual(outcomes[sequential.REVERSED], 0)
        self.assertLess(sorted(rounds)[100], 60)  # the median run decides it in under 60 rounds

    def test_the_budget_is_never_passed_by_more_than_one_round(self):
        claims, case_s = echo_like_claims(noisy_mean=0.0)  # the noisy claim stays open to the end
        for budget_s in (1, 4.9, 5, 30, 31, 100, 333, 1000):
            for seed in range(20):
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


class FirstDecisionTest(unittest.TestCase):
    def test_the_decision_is_the_one_at_the_first_round_that_decides(self):
        logs = [0.3, 0.31, 0.29, 0.3, -0.5, 0.6, -0.4]  # decided at 3; later rounds would reopen it
        decision = sequential.first_decision(logs)
        self.assertEqual((decision["outcome"], decision["rounds"]), (sequential.HOLDS, 3))
        self.assertEqual(sequential.decide(logs)["outcome"], sequential.OPEN)

    def test_an_undecided_sequence_gives_its_last_look(self):
        logs = [0.1, -0.1, 0.12, -0.08, 0.05]
        self.assertEqual(sequential.first_decision(logs), sequential.decide(logs))


class EquivalenceTest(unittest.TestCase):
    def test_no_difference_and_a_small_spread_is_declared_equivalent(self):
        rng = random.Random(7)
        outcomes, rounds = collections.Counter(), []
        for _ in range(200):
            logs = []
            while True:
                logs.append(rng.gauss(0.0, 0.02))
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
        logs = [0.03, -0.02, 0.01, -0.04, 0.05, 0.0, -0.01, 0.02]
        self.assertEqual(sequential.decide(logs, margin=0.05)["outcome"], sequential.OPEN)
        self.assertEqual(sequential.decide(logs, margin=0.2)["outcome"], sequential.EQUIVALENT)


class DecisionTest(unittest.TestCase):
    def test_outcomes_follow_the_direction_and_which_way_is_better(self):
        ahead = [0.30, 0.28, 0.33, 0.31, 0.29]
        behind = [-x for x in ahead]
        self.assertEqual(sequential.decide(ahead)["outcome"], sequential.HOLDS)
        self.assertEqual(sequential.decide(behind)["outcome"], sequential.REVERSED)
        self.assertEqual(sequential.decide(ahead, higher_is_better=False)["outcome"], sequential.REVERSED)
        self.assertEqual(sequential.decide(behind, higher_is_better=False)["outcome"], sequential.HOLDS)

    def test_under_three_rounds_nothing_is_decided(self):
        for logs in ([], [0.5], [0.5, 0.5001]):
            decision = sequential.decide(logs)
            self.assertEqual(decision["outcome"], sequential.OPEN)
            self.assertIsNone(decision["interval"])
            self.assertIn("too few to bound it", sequential.bound_text(decision))

    def test_an_open_claim_is_bounded_by_its_intervals_reach(self):
        logs = [0.2, -0.1, 0.15, -0.05, 0.1, 0.0]
        decision = sequential.decide(logs)
        self.assertEqual(decision["outcome"], sequential.OPEN)
        low, high = decision["interval"]
        self.assertLess(low, 1)
        self.assertGreater(high, 1)
        reach = max(1 / low, high) - 1
        self.assertAlmostEqual(decision["reach_pct"], reach * 100)
        self.assertAlmostEqual(decision["geomean_ratio"], math.exp(sum(logs) / 6))
        text = sequential.bound_text(decision)
        self.assertTrue(text.startswith(f"any difference is below {decision['reach_pct']:.3g}%"), text)
        self.assertIn(f"about {decision['rounds_to_decide']} rounds would decide it", text)

    def test_rounds_to_decide_is_where_the_same_mean_and_spread_would_decide(self):
        for mean, sd in ((TEN_PERCENT, STORED_SD), (TEN_PERCENT, STEADY_SD), (0.0, 0.02), (0.0, STEADY_SD)):
            needed = sequential.rounds_to_decide(mean, sd)
            self.assertIsNotNone(needed)
            for n, decided in ((needed, True), (needed - 1, False)):
                if n < sequential.MIN_ROUNDS:
                    continue
                half = sd * sequential.half_width_factor(n)
                inside = math.log(1.05)
                self.assertEqual(abs(mean) > half or abs(mean) + half < inside, decided, (mean, sd, n))
        self.assertIsNone(sequential.rounds_to_decide(0.0, 3.0))  # within 5% at sd 3: not in 10,000 rounds
        self.assertEqual(sequential.rounds_to_decide(0.0, 0.0, n_seen=7), 7)

    def test_the_boundary_is_tightest_where_it_was_tuned(self):
        for tightest_at in (10, 20, 50):
            rho2 = sequential.rho_squared(tightest_at)
            width = sequential.normal_margin(tightest_at, rho2)
            for other in (tightest_at / 2, tightest_at * 2):
                self.assertLess(width, sequential.normal_margin(tightest_at, sequential.rho_squared(other)))

    def test_the_half_width_falls_with_rounds_and_tends_to_the_normal_boundary(self):
        factors = [sequential.half_width_factor(n) for n in range(3, 2000)]
        self.assertTrue(all(b < a for a, b in zip(factors, factors[1:])))
        excess = [sequential.half_width_factor(n) / sequential.normal_margin(n, sequential.rho_squared()) - 1
                  for n in (10, 100, 1000, 10000)]
        self.assertTrue(all(b < a for a, b in zip(excess, excess[1:])), excess)
        self.assertLess(excess[-1], 1e-3)

    def test_decide_rounds_pairs_two_sides_values(self):
        a = {0: 110.0, 1: 111.0, 2: 112.0, 3: 110.5, 4: None}
        b = {0: 100.0, 1: 100.5, 2: 101.0, 3: 100.2, 5: 99.0}
        decision = sequential.decide_rounds(a, b)
        self.assertEqual(decision["rounds"], 4)
        self.assertEqual(decision["outcome"], sequential.HOLDS)


if __name__ == "__main__":
    unittest.main()
