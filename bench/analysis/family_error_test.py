"""The error rate a run states for its verdicts together, checked on synthetic runs: 20 claims with no true
difference, 1,000 runs through the budgeted round loop (sequential.simulate), each claim's sequence at the
family's share of 5% (sequential.family_options). A run is wrong when any of its claims holds or is reversed;
no more than 5% of runs may be. The same with a block of rounds shifted for every claim (a host taking one
side's CPU for a while): counted, the shift makes most runs wrong; set aside as the disturbance rule sets
such rounds aside, the rate holds again."""

import unittest

from bench.analysis import sequential

CLAIMS = 20
RUNS = 1000
# A steady claim's spread of the per-round log ratio (the stored runs' steadiest are 0.03-0.07), so that
# equivalence within the margin is reached inside the rounds cap by most claims and the looks are many.
LOG_SD = 0.03
# A 30-minute budget: 45 rounds of all 40 cases at 1 s each, more as claims are decided.
BUDGET_S = 1800
MAX_ROUNDS = 60


def null_claims():
    return [{"name": f"c{i}", "cases": (f"a{i}", f"b{i}"), "log_mean": 0.0, "log_sd": LOG_SD}
            for i in range(CLAIMS)], {f"{side}{i}": 1.0 for i in range(CLAIMS) for side in "ab"}


def wrong_runs(how_of_seed):
    """How many of RUNS seeded runs decide any claim as holding or reversed, and how many decided a claim at
    all (equivalent included)."""
    claims, case_s = null_claims()
    wrong = decided = 0
    for seed in range(RUNS):
        run = sequential.simulate(claims, case_s, BUDGET_S, how_of_seed(seed))
        outcomes = [d["outcome"] for d in run["claims"].values()]
        wrong += any(o in (sequential.HOLDS, sequential.REVERSED) for o in outcomes)
        decided += sum(o != sequential.OPEN for o in outcomes)
    return wrong, decided


class FamilyErrorRateTest(unittest.TestCase):
    def test_20_claims_with_no_difference_at_most_5_percent_of_1000_runs_have_a_wrong_verdict(self):
        options = sequential.family_options(CLAIMS)
        self.assertAlmostEqual(options.alpha, 0.05 / CLAIMS)
        wrong, decided = wrong_runs(lambda seed: sequential.Simulation(seed=seed, max_rounds=MAX_ROUNDS,
                                                                       options=options))
        self.assertLessEqual(wrong / RUNS, sequential.FAMILY_ALPHA, wrong)
        # Not by deciding nothing: most claims end equivalent within the margin.
        self.assertGreater(decided, RUNS * CLAIMS // 2)

    def test_each_claim_at_5_percent_gives_a_run_wrong_more_often_than_the_family_rate(self):
        # What the family rule is for: 20 claims at 5% each, the same runs.
        wrong, _ = wrong_runs(lambda seed: sequential.Simulation(seed=seed, max_rounds=MAX_ROUNDS))
        self.assertGreater(wrong / RUNS, sequential.FAMILY_ALPHA, wrong)

    def test_a_shifted_block_of_rounds_set_aside_keeps_the_rate(self):
        options = sequential.family_options(CLAIMS)
        # Rounds 3-14 carry a 25% shift: counted, they decide most runs wrong before the later rounds can
        # pull the mean back.
        block = (3, 14, 0.25)
        counted, _ = wrong_runs(lambda seed: sequential.Simulation(
            seed=seed, max_rounds=MAX_ROUNDS, options=options, disturbed=block))
        self.assertGreater(counted / RUNS, 0.5, counted)
        aside, _ = wrong_runs(lambda seed: sequential.Simulation(
            seed=seed, max_rounds=MAX_ROUNDS, options=options, disturbed=block, set_aside=True))
        self.assertLessEqual(aside / RUNS, sequential.FAMILY_ALPHA, aside)


if __name__ == "__main__":
    unittest.main()
