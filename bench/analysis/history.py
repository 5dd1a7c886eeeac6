"""A claim across runs: the verdicts of every stored run that ran the same claim, set beside one run's, and
their ratios pooled across machines by random effects.

A claim is identified by what it compares, not by its words: the part, the two cells (their row fields, the
placement included: a stored line without one ran shared), the figure (a steady-state rate and the whole run's
that stood for it are one), and the commands of the contestants the cells name (a name can come to mean
another program). Run lengths are not part of it: how long a run is changes the precision, not the question.

    entry = history.entry(line, part, commands, run)      # one run's verdict of one claim, keyed
    pooled = history.pool([entry, ...])                   # random effects over the runs
    history.relation(this_line, earlier_entry)            # "agree", "differ" or "conflict"
    history.design(document)                              # which design judged a stored part's claims

Each run's ratio enters as its log and the standard error of its mean log ratio: a sequential verdict's sd_log
over the square root of its rounds; a fixed one's from its 95% t interval. The pooling is
statsmodels' combine_effects (Debian's python3-statsmodels) with the Paule-Mandel estimate of the variance
between runs, which behaves with few runs; I-squared says the share of the spread that is between runs, and
the prediction interval (Higgins, Thompson and Spiegelhalter 2009: t with k - 2 degrees of freedom over the
between-run and the pooled variance) where a new machine's ratio would fall. Pure; no I/O.
"""

import math

from bench.analysis import verdict

HOLDS, REVERSED, OPEN = verdict.HOLDS, verdict.REVERSED, verdict.OPEN
# The fixed design's word for open in documents stored before the two designs shared one.
OLDER_OPEN = verdict.OLDER_NOT_SEPARABLE
AGREE, DIFFER, CONFLICT = "agree", "differ", "conflict"
# A whole run's rate that a steady-state figure stands in for: the same claim.
SAME_FIGURE = {"steady_msgs_per_s": "msgs_per_s"}
# Where a line has no placement, it ran shared (placements came later).
DEFAULT_PLACEMENT = "shared"
CONFIDENCE = 0.95

# The designs that have judged stored runs, oldest first; the last is this version's. A run of an older design
# stays in the history (its ratio is the same quantity), but is never the one cited as what `bench` does now.
FIXED = "fixed rounds, each claim at 5% alone"
MEAN_ALONE = "the mean's sequence, each claim at 5% alone"
MEAN_TOGETHER = "the mean's sequence, one family at 5%"
MEDIAN_FAMILIES = "the median's sign sequence, two families at 5% each"
CURRENT_DESIGN = MEDIAN_FAMILIES


def design(document):
    """Which design judged a part's document (a write-up's JSON): read from its settings and its verdicts'
    sequences, since the documents have named their rule and family from the start of each design."""
    from bench.analysis import sequential
    settings = document.get("settings") or {}
    if settings.get("design") != "sequential":
        return FIXED
    rules = {(line.get("sequence") or {}).get("rule") for line in document.get("verdicts", [])}
    if sequential.RULE in rules:
        return MEDIAN_FAMILIES
    return MEAN_TOGETHER if settings.get("family") else MEAN_ALONE


def key(line, part, commands):
    """The claim's identity: (part, figure, A's cell, B's cell, the commands of the contestants they name), as
    a string (JSON-like and sorted, so that it can be a dict key and stored)."""
    cells = []
    for cell in (line.get("a") or {}, line.get("b") or {}):
        cell = {**cell, "placement": cell.get("placement") or DEFAULT_PLACEMENT}
        named = sorted(str(v) for k, v in cell.items() if k in ("server", "client"))
        cells.append(sorted(cell.items()) + [("commands", [commands.get(n, "?") for n in named])])
    figure = SAME_FIGURE.get(line.get("figure"), line.get("figure"))
    return repr((part, figure, cells[0], cells[1]))


def estimate(line):
    """(log ratio, its standard error, rounds) of a judged line; None where it has no paired interval."""
    sequence = line.get("sequence") or {}
    if sequence.get("geomean_ratio") and sequence.get("sd_log") and sequence.get("rounds", 0) >= 2:
        n = sequence["rounds"]
        return math.log(sequence["geomean_ratio"]), sequence["sd_log"] / math.sqrt(n), n
    ci = line.get("ci95")
    n = line.get("rounds_paired") or 0
    if line.get("geomean_ratio") and ci and n >= 2 and min(ci) > 0:
        from scipy.stats import t
        return (math.log(line["geomean_ratio"]), math.log(ci[1] / ci[0]) / (2 * t.ppf(0.975, n - 1)), n)
    return None


def ratio_and_interval(line):
    """(ratio, interval) as a verdict gave them: a sequential one's at its decision (the sign sequence's median
    ratio, with its interval where the claim was decided or the interval bounds it within a factor of 2), else the
    paired rounds' geometric
    mean and t interval (the ratio of medians where nothing paired); each None where absent."""
    sequence = line.get("sequence") or {}
    if "bounded" in sequence:  # the sign sequence's: the median ratio, and its interval where it bounds one
        shown = sequence["bounded"] or (sequence.get("outcome") != "open" and sequence.get("interval")
                                        and sequence["interval"][0] and sequence["interval"][1] != math.inf)
        return sequence.get("median_ratio"), sequence["interval"] if shown else None
    return (sequence.get("geomean_ratio") or line.get("geomean_ratio") or line.get("ratio"),
            sequence.get("interval") or line.get("ci95"))


def entry(line, part, commands, run):
    """One run's verdict of one claim: its key, words, verdict, ratio, interval (as the verdict gave it),
    estimate and `run` (label, time, machine)."""
    ratio, interval = ratio_and_interval(line)
    said = line.get("verdict")
    return {"key": key(line, part, commands), "claim": line.get("claim"), "verdict": OPEN if said == OLDER_OPEN else said,
            "small": bool(line.get("small")), "ratio": ratio, "interval": interval, "estimate": estimate(line),
            "run": run, **({"control": True} if line.get("control") else {})}


def relation(verdict, earlier):
    """"agree" (the same verdict), "conflict" (one holds where the other is reversed) or "differ"."""
    verdict, earlier = (OPEN if v == OLDER_OPEN else v for v in (verdict, earlier))
    if verdict == earlier:
        return AGREE
    return CONFLICT if {verdict, earlier} == {HOLDS, REVERSED} else DIFFER


def pool(entries):
    """The random-effects pooled ratio of `entries` that have an estimate: {"runs", "ratio", "interval" (95%),
    "prediction" (95%, for a new machine; None under 3 runs), "i2", "tau"}; None under 2 runs."""
    usable = [e["estimate"] for e in entries if e.get("estimate")]
    if len(usable) < 2:
        return None
    import numpy
    from scipy.stats import t
    from statsmodels.stats.meta_analysis import combine_effects
    effects = numpy.array([u[0] for u in usable])
    variances = numpy.array([max(u[1], 1e-9) ** 2 for u in usable])
    result = combine_effects(effects, variances, method_re="pm", alpha=1 - CONFIDENCE)
    mean, se = float(result.mean_effect_re), float(result.sd_eff_w_re)
    z = 1.959963984540054
    k, tau2 = len(usable), max(float(result.tau2), 0.0)
    prediction = None
    if k >= 3:
        half = float(t.ppf(0.5 + CONFIDENCE / 2, k - 2)) * math.sqrt(tau2 + se * se)
        prediction = [math.exp(mean - half), math.exp(mean + half)]
    return {"runs": k, "ratio": math.exp(mean), "interval": [math.exp(mean - z * se), math.exp(mean + z * se)],
            "prediction": prediction, "i2": _i_squared(float(result.q), k), "tau": math.sqrt(tau2)}


def _i_squared(q, k):
    """Higgins and Thompson's I², (Q - df) / Q floored at 0; 0 where Q is 0 (statsmodels divides by it)."""
    return max((q - (k - 1)) / q, 0.0) if q > 0 else 0.0
