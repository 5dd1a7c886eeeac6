"""The error rate a run states for its verdicts together ("at most 5% chance that any of these verdicts is
wrong"), checked on rounds shaped like the suite's own, not only on Gaussian ones.

The global null, resampled from stored runs: for each of the newest stored runs of the adaptive design, every
judgeable claim's own per-round log ratios (its cells' rounds, as its verdict paired them), centred on their
median so that no claim has a true difference in the quantity a verdict is about, drawn with replacement into
1,000 simulated runs of the budgeted round loop (sequential.simulate), the claims in their two families at the
run's rule (Holm's step-down on the sign sequences' anytime p-values). A simulated run is wrong for a family
when any of its claims holds or is reversed; for each family, no more than 5% of them may be (so at most 10% for
either, by the union of the two). Every claim gets up to 100 looks, more than a 30-minute
budget gives any, so the rate is an upper bound on the main job's.

Beside it, printed for docs/methodology.md: the same on Gaussian, heavy-tailed (t with 2 degrees of freedom)
and outlier rounds (one in eight far off), and what the mean's t-calibrated sequence the suite used before
gives on the stored rounds (centred on their mean, its own null): far above 5%, the reason for the change.

    bazel test //bench/design:family_error_test --test_output=all     # prints the rates
"""

import glob
import json
import math
import os
import random
import statistics
import unittest

from bench.analysis import judged_link
from bench.analysis import sequential
from bench.analysis import verdict
from bench.scenarios import writeups

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results", "data")
RUNS = 1000
LOOKS = 100
# The newest stored runs of the adaptive design the test resamples (every one, up to this many, newest first).
NEWEST = 4
# A claim needs this many stored rounds to be resampled: fewer say too little of its rounds' shape.
FEWEST_STORED_ROUNDS = 5
UNJUDGED = (verdict.NOT_MEASURED, verdict.NOT_TESTABLE, verdict.SAME_CONFIGURATION)


def adaptive_runs():
    """The stored runs whose write-ups ran adaptively and in full (not --quick), newest first:
    [(folder, report.json)]."""
    found = []
    for path in glob.glob(os.path.join(DATA, "*", "report.json")):
        with open(path) as f:
            doc = json.load(f)
        folder = os.path.dirname(path)
        settings = []
        for part in ("echo", "websocket", "fanout"):
            document = os.path.join(folder, f"{part}_writeup.json")
            if os.path.exists(document):
                with open(document) as f:
                    settings.append(json.load(f).get("settings", {}))
        if settings and all(s.get("design") == "sequential" for s in settings) and \
                not any(s.get("quick") for s in settings) and \
                not any((section.get("run") or {}).get("quick") for section in doc["sections"]):
            found.append((folder, doc))
    return sorted(found, key=lambda found_: found_[1]["run"]["time"], reverse=True)[:NEWEST]


def stored_claims(folder, doc):
    """[{"name", "family", "rounds"}]: every judgeable claim of a stored run with its per-round log ratios; a
    claim is of the summary's family where its line is its question's headline."""
    claims = []
    for section in doc["sections"]:
        if section.get("kind") != "writeup":
            continue
        with open(os.path.join(folder, f"{section['id']}_writeup.json")) as f:
            rows = judged_link.on_the_judged_link(json.load(f)["rows"])
        headlines = {group["headline"] for group in section.get("claims", [])}
        for index, line in enumerate(section["verdicts"]):
            if line.get("verdict") in UNJUDGED or not line.get("a") or not line.get("figure"):
                continue
            rounds = writeups.claim_rounds(line, rows)
            if len(rounds) >= FEWEST_STORED_ROUNDS:
                family = sequential.SUMMARY if index in headlines else sequential.OTHER
                claims.append({"name": f"{section['id']}: {line['claim']}", "family": family, "rounds": rounds})
    return claims


def centred_claims(claims, centre):
    """The claims for simulate(), each drawing from its own rounds less their `centre` (statistics.median or
    statistics.fmean), each with its own two cases of 1 s."""
    out = []
    for claim in claims:
        middle = centre(claim["rounds"])
        out.append({"name": claim["name"], "family": claim["family"], "cases": (claim["name"] + " a", claim["name"] + " b"),
                    "draw": sequential.resampled([x - middle for x in claim["rounds"]])})
    return out


def false_claim_rates(claims, runs=RUNS):
    """{family: the share of `runs` simulated runs of `claims` (none with a true difference) in which any claim
    of that family holds or is reversed}, and under "any" the share in which any claim of either does: each
    claim looked at after each of up to LOOKS rounds."""
    case_s = {case: 1.0 for claim in claims for case in claim["cases"]}
    family_of = {claim["name"]: claim["family"] for claim in claims}
    wrong = {family: 0 for family in list(sequential.FAMILIES) + ["any"]}
    for seed in range(runs):
        run = sequential.simulate(claims, case_s, math.inf, sequential.Simulation(seed=seed, max_rounds=LOOKS))
        families = {family_of[name] for name, d in run["claims"].items()
                    if d["outcome"] in (sequential.HOLDS, sequential.REVERSED)}
        for family in families:
            wrong[family] += 1
        wrong["any"] += bool(families)
    return {family: n / runs for family, n in wrong.items()}


def _said(rates):
    return (f"summary family {rates[sequential.SUMMARY]:.1%}, other family {rates[sequential.OTHER]:.1%} "
            f"(either: {rates['any']:.1%})")


def synthetic_claims(draw, summary=5, other=17):
    """The main job's shape of families (5 summary claims, 17 others), every claim drawing by `draw(rng)`."""
    return [{"name": f"c{i}", "family": sequential.SUMMARY if i < summary else sequential.OTHER,
             "cases": (f"a{i}", f"b{i}"), "draw": draw} for i in range(summary + other)]


def _t2(rng):
    return rng.gauss(0, 1) / math.sqrt((rng.gauss(0, 1) ** 2 + rng.gauss(0, 1) ** 2) / 2) * 0.1


def _outliers(rng):
    """A bulk near 0 and one round in eight far off, to one side (the stored fan-out warm line's shape), less
    the mixture's median (about 0.0066: the bulk's 4/7 quantile), so that the median is 0."""
    return (rng.gauss(0.0, 0.05) if rng.random() > 0.125 else rng.uniform(0.3, 0.9)) - 0.05 * 0.1800


def mean_sequence_rate(claims, runs=RUNS, family_alpha=0.05):
    """What the rule the suite used before gives: the asymptotic confidence sequence on the mean log ratio
    (Waudby-Smith et al.), read from Student's t, every claim at family_alpha over the claims (Bonferroni)."""
    from scipy.special import lambertw
    from scipy.stats import norm, t
    alpha = family_alpha / len(claims)
    rho2 = float((-lambertw(-alpha * alpha * math.exp(alpha * alpha - 1), k=-1).real - 1) / 20)
    factor = {}
    for n in range(3, LOOKS + 1):
        z = math.sqrt(2 * (n * rho2 + 1) / (n * rho2) * math.log(math.sqrt(n * rho2 + 1) / alpha))
        factor[n] = float(t.isf(norm.sf(z), n - 1)) / math.sqrt(n)
    wrong = 0
    for seed in range(runs):
        rng = random.Random(seed)
        for claim in claims:
            seen = []
            for n in range(1, LOOKS + 1):
                seen.append(claim["draw"](rng))
                if n < 3:
                    continue
                mean, sd = statistics.fmean(seen), statistics.stdev(seen)
                half = sd * factor[n]
                if abs(mean) > half:  # a direction claimed
                    wrong += 1
                    break
                if abs(mean) + half < math.log(1.05):  # equivalent: it stops
                    break
            else:
                continue
            if seen and abs(statistics.fmean(seen)) > sd * factor[len(seen)]:
                break
    return wrong / runs


class StoredRoundsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.runs = [(os.path.basename(folder), stored_claims(folder, doc)) for folder, doc in adaptive_runs()]

    def test_there_are_stored_adaptive_runs_to_resample(self):
        self.assertGreaterEqual(len(self.runs), 3, [name for name, _ in self.runs])
        for name, claims in self.runs:
            self.assertGreaterEqual(len(claims), 8, name)

    def test_with_no_true_difference_at_most_5_percent_of_runs_claim_one(self):
        for name, claims in self.runs:
            with self.subTest(run=name):
                rates = false_claim_rates(centred_claims(claims, statistics.median))
                families = {f: sum(c["family"] == f for c in claims) for f in sequential.FAMILIES}
                print(f"stored rounds of {name} ({families[sequential.SUMMARY]} summary claims, "
                      f"{families[sequential.OTHER]} others), centred on their medians, {RUNS} simulated runs "
                      f"with a claimed difference: {_said(rates)}", flush=True)
                for family in sequential.FAMILIES:
                    self.assertLessEqual(rates[family], sequential.FAMILY_ALPHA, family)

    def test_the_mean_sequence_used_before_claims_far_more_on_the_same_rounds(self):
        # The reason for the sign sequence: the same rounds, centred on their means (that rule's null).
        name, claims = self.runs[0]
        rate = mean_sequence_rate(centred_claims(claims, statistics.fmean), runs=300)
        print(f"stored rounds of {name}, centred on their means, under the mean's t-calibrated sequence "
              f"(Bonferroni): {rate:.1%} of 300 simulated runs claim a difference", flush=True)
        self.assertGreater(rate, sequential.FAMILY_ALPHA)


class SyntheticRoundsTest(unittest.TestCase):
    def test_gaussian_heavy_tailed_and_outlier_rounds_keep_the_rate(self):
        for name, draw in (("Gaussian, sd 0.2", lambda rng: rng.gauss(0.0, 0.2)),
                           ("t with 2 degrees of freedom", _t2),
                           ("outliers one round in eight", _outliers)):
            with self.subTest(rounds=name):
                rates = false_claim_rates(synthetic_claims(draw))
                print(f"{name} rounds, 5 summary claims and 17 others with no difference, {RUNS} simulated runs "
                      f"with a claimed difference: {_said(rates)}", flush=True)
                for family in sequential.FAMILIES:
                    self.assertLessEqual(rates[family], sequential.FAMILY_ALPHA, family)
                self.assertGreater(rates["any"], 0.0, "a rule that never claims anything would pass too")

    def test_a_shifted_block_of_rounds_set_aside_keeps_the_rate(self):
        claims = synthetic_claims(lambda rng: rng.gauss(0.0, 0.03))
        case_s = {case: 1.0 for claim in claims for case in claim["cases"]}
        # Rounds 3-30 carry a 25% shift: counted, they decide most runs wrong; set aside, the rate holds (the
        # summary family's, here).
        for set_aside, check in ((False, lambda rate: self.assertGreater(rate, 0.5)),
                                 (True, lambda rate: self.assertLessEqual(rate, sequential.FAMILY_ALPHA))):
            wrong = 0
            for seed in range(300):
                run = sequential.simulate(claims, case_s, math.inf, sequential.Simulation(
                    seed=seed, max_rounds=LOOKS, disturbed=(3, 30, 0.25), set_aside=set_aside))
                wrong += any(d["outcome"] in (sequential.HOLDS, sequential.REVERSED) and
                             claim["family"] == sequential.SUMMARY
                             for claim, d in zip(claims, run["claims"].values()))
            check(wrong / 300)


if __name__ == "__main__":
    unittest.main()
