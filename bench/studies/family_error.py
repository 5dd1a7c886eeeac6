"""The error rate a run states for its verdicts together ("at most 5% chance that any of these verdicts is
wrong"), measured on rounds shaped like the suite's own, not only on Gaussian ones.

The global null, resampled from stored runs: for each of the newest stored runs of the adaptive design, every
judgeable claim's own per-round log ratios (its cells' rounds, as its verdict paired them), centred on their
median so that no claim has a true difference in the quantity a verdict is about, drawn with replacement into
1,000 simulated runs of the budgeted round loop (sequential.simulate), the claims in their two families at the
run's rule (Holm's step-down on the sign sequences' anytime p-values). A simulated run is wrong for a family
when any of its claims holds or is reversed. Every claim gets up to 100 looks, more than a 30-minute budget
gives any, so the rate is an upper bound on the main job's.

Beside it: the same on Gaussian, heavy-tailed (t with 2 degrees of freedom) and outlier rounds (one in eight far
off), and what the mean's t-calibrated sequence the suite used before gives on the stored rounds (centred on
their mean, its own null). docs/methodology.md shows them in a block this module writes; family_error_test
checks every rate against the 5% and the block against the rates.

    rates = family_error.measured()                                 # every row, computed (about 90 s)
    bazel run //bench/studies:family_error_table                     # writes docs/methodology.md's block
"""

import glob
import json
import math
import os
import random
import statistics

from bench.analysis import judged_link
from bench.analysis import sequential
from bench.analysis import verdict
from bench.base import generated_block
from bench.design import judging

DATA = os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY") or
                    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."), "results", "data")
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
            rounds = judging.claim_rounds(line, rows)
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


SYNTHETIC = (("Gaussian, sd 0.2 (5 + 17 claims)", lambda rng: rng.gauss(0.0, 0.2)),
             ("t with 2 degrees of freedom (heavy tails)", _t2),
             ("a bulk near 1 and one round in eight 35-145% off, to one side", _outliers))
MEAN_RULE_RUNS = 300


def measured():
    """{"stored": [(run label, {family: claims}, rates)], "synthetic": [(name, rates)], "mean_rule": (run
    label, its share of MEAN_RULE_RUNS simulated runs that claim a difference)}: every rate the table shows."""
    stored, newest = [], None
    for folder, doc in adaptive_runs():
        claims = stored_claims(folder, doc)
        newest = newest or (os.path.basename(folder), claims)
        families = {f: sum(c["family"] == f for c in claims) for f in sequential.FAMILIES}
        stored.append((os.path.basename(folder), families, false_claim_rates(centred_claims(claims, statistics.median))))
    synthetic = [(name, false_claim_rates(synthetic_claims(draw))) for name, draw in SYNTHETIC]
    mean_rule = None
    if newest:
        label, claims = newest
        mean_rule = (label, mean_sequence_rate(centred_claims(claims, statistics.fmean), MEAN_RULE_RUNS))
    return {"stored": stored, "synthetic": synthetic, "mean_rule": mean_rule}


COMMAND = "`bazel run //bench/studies:family_error_table`"
BEGIN = f"<!-- the global-null rates: written by {COMMAND} -->"
END = "<!-- end of the global-null rates -->"


def table_lines(found):
    """docs/methodology.md's block: the rates of `found` (measured()) as a table, and the older rule's line."""
    def cells(rates):
        return f"{rates[sequential.SUMMARY]:.1%} | {rates[sequential.OTHER]:.1%} | {rates['any']:.1%}"
    lines = ["| rounds resampled or drawn | summary family | other family | either |", "|---|---|---|---|"]
    lines += [f"| stored: {label} ({families[sequential.SUMMARY]} + {families[sequential.OTHER]} claims) | "
              f"{cells(rates)} |" for label, families, rates in found["stored"]]
    lines += [f"| {name} | {cells(rates)} |" for name, rates in found["synthetic"]]
    if found["mean_rule"]:
        label, rate = found["mean_rule"]
        lines += ["", f"The mean's t-calibrated sequence with Bonferroni over the run's claims, on {label}'s rounds "
                  f"centred on their means (its own null): {rate:.0%} of {MEAN_RULE_RUNS} simulated runs claim a "
                  "difference."]
    return lines


def with_table(text, lines):
    """docs/methodology.md's `text` with its block set to `lines`."""
    return generated_block.replaced(text, BEGIN, END, lines, "docs/methodology.md's global-null rates")


def page():
    """docs/methodology.md of the checkout (`bazel run` sets BUILD_WORKSPACE_DIRECTORY), else of the runfiles."""
    root = os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                      "..", "..")
    return os.path.join(root, "docs", "methodology.md")


def main():
    found = measured()
    path = page()
    with open(path) as f:
        before = f.read()
    after = with_table(before, table_lines(found))
    if after != before:
        with open(path, "w") as f:
            f.write(after)
    print("\n".join(table_lines(found)))
    print(f"family_error_table: {'wrote' if after != before else 'unchanged:'} {path}")
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main())
