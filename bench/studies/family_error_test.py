"""The error rate a run states for its verdicts together, checked on rounds shaped like the suite's own: every
rate of bench/design/family_error.py (the stored runs' global null, Gaussian, heavy-tailed and outlier rounds)
at or under each family's 5%, the older mean rule far above it on the same rounds, and docs/methodology.md's
block showing the rates this test computed (a stored run added without `bazel run
//bench/studies:family_error_table` fails here).

    bazel test //bench/studies:family_error_test --test_output=all     # prints the rates
"""

import math
import unittest

from bench.analysis import sequential
from bench.studies import family_error


class FamilyErrorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.found = family_error.measured()
        print("\n".join(family_error.table_lines(cls.found)), flush=True)

    def test_there_are_stored_adaptive_runs_to_resample(self):
        self.assertGreaterEqual(len(self.found["stored"]), 3, [label for label, _, _ in self.found["stored"]])
        for label, families, _ in self.found["stored"]:
            self.assertGreaterEqual(sum(families.values()), 8, label)

    def test_with_no_true_difference_at_most_5_percent_of_runs_claim_one(self):
        for label, _, rates in self.found["stored"] + [(name, None, rates) for name, rates in self.found["synthetic"]]:
            for family in sequential.FAMILIES:
                with self.subTest(rounds=label, family=family):
                    self.assertLessEqual(rates[family], sequential.FAMILY_ALPHA)

    def test_a_rule_that_never_claims_anything_would_not_pass(self):
        for name, rates in self.found["synthetic"]:
            self.assertGreater(rates["any"], 0.0, name)

    def test_the_mean_sequence_used_before_claims_far_more_on_the_same_rounds(self):
        # The reason for the sign sequence: the same rounds, centred on their means (that rule's null).
        self.assertGreater(self.found["mean_rule"][1], sequential.FAMILY_ALPHA)

    def test_the_methodology_page_shows_these_rates(self):
        with open(family_error.page()) as f:
            text = f.read()
        self.assertEqual(text, family_error.with_table(text, family_error.table_lines(self.found)),
                         "docs/methodology.md's global-null rates are stale: run "
                         "`bazel run //bench/studies:family_error_table`")


class SetAsideTest(unittest.TestCase):
    def test_a_shifted_block_of_rounds_set_aside_keeps_the_rate(self):
        claims = family_error.synthetic_claims(lambda rng: rng.gauss(0.0, 0.03))
        case_s = {case: 1.0 for claim in claims for case in claim["cases"]}
        # Rounds 3-30 carry a 25% shift: counted, they decide most runs wrong; set aside, the rate holds (the
        # summary family's, here).
        for set_aside, check in ((False, lambda rate: self.assertGreater(rate, 0.5)),
                                 (True, lambda rate: self.assertLessEqual(rate, sequential.FAMILY_ALPHA))):
            wrong = 0
            for seed in range(300):
                run = sequential.simulate(claims, case_s, math.inf, sequential.Simulation(
                    seed=seed, max_rounds=family_error.LOOKS, disturbed=(3, 30, 0.25), set_aside=set_aside))
                wrong += any(d["outcome"] in (sequential.HOLDS, sequential.REVERSED) and
                             claim["family"] == sequential.SUMMARY
                             for claim, d in zip(claims, run["claims"].values()))
            check(wrong / 300)


if __name__ == "__main__":
    unittest.main()
