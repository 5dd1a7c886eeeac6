"""Verdicts on the write-ups' claims, computed from the samples of one run, never written by hand.

A claim says that system A beats system B on one figure (more msgs/s, less wall time). Both are measured in
every round, interleaved, so `judge()` pairs the rounds (bench/analysis/paired_ratio.py): the ratio A/B within each
round, their geometric mean with a 95% t interval on the log ratios, a sign-flip test beside it as a check,
and the smallest difference the run could have detected. The verdict follows from the interval:

    EQUIVALENT    the whole interval lies within 1 +- EQUIVALENCE_MARGIN (0.98 .. 1.02), even if it excludes 1
    HOLDS         the interval excludes 1 on the claim's side (A better)
    REVERSED      the interval excludes 1 on the other side (B better)
    NOT_SEPARABLE the interval holds 1 (it says how many rounds would resolve the difference seen): "open", the
                  word the sequential design uses for a claim its rounds did not decide
    NOT_MEASURED  a side has no samples here (a contestant skipped or failed; `why` says which)

and, for a claim about a system this machine is not, NOT_TESTABLE (see `not_testable()`). With fewer than two
rounds holding both sides (or no rounds given) nothing pairs, and the samples are pooled and judged by a
two-sided Mann-Whitney U test (SciPy, as Google Benchmark's compare.py does) at p < ALPHA with the ratio on the
claim's side in every round. compare.py, whose runs of different machines do not pair, uses that test alone
(`mann_whitney_p`).

    v = verdict.judge(racket_msgs, go_msgs, rounds_a, rounds_b, higher_is_better=True)
    v["verdict"], v["ci95"], v["detectable_pct"]  # "holds", [1.28, 1.35], 4.1
"""

import statistics

from bench.analysis import paired_ratio
from bench.analysis import sequential

HOLDS = "holds"
REVERSED = "reversed"
# One word for a claim the rounds did not decide, whichever design ran them; documents stored before say
# "not separable on this machine" (OLDER_NOT_SEPARABLE), which means the same.
NOT_SEPARABLE = "open"
OLDER_NOT_SEPARABLE = "not separable on this machine"
NOT_MEASURED = "not measured"
NOT_TESTABLE = "not testable here"
EQUIVALENT = "equivalent within \u00b12%"
# The two sides ran the same effective configuration (bench/running/process_configuration.py): no experiment.
SAME_CONFIGURATION = "same configuration here"

ALPHA = 0.05
OPEN = "open"
# A round whose runs lost more than this share of the machine's CPU time to the hypervisor (a row's
# noise.steal, bench/running/noise.py) is counted as noisy in its verdict. The stored run's 5-second samples
# ranged from 0-2% to about a tenth.
STEAL_LEVEL = 0.05
# A round the host disturbed is set aside: not counted in any claim's verdict (the adaptive design runs another
# in its place), and counted per claim in the report. Chosen from the stored variance study (results/data/
# linux-x86_64-2cpu/variance/echo, 320 paired rounds of Racket against Go): the rounds' distance from the median
# log ratio is alike from no steal up to a fifth (medians 0.11-0.17) and grows above it (0.18, mean 0.24); other
# programs' CPU above 5% of the machine's comes with a distance of 0.29 against 0.18 below it.
DISTURBED_STEAL = 0.20
DISTURBED_OTHER = 0.05
# Far below the differences the write-ups claim (25% and more): an interval inside 1 +- this says "the same"
# rather than "could not tell", even where it also excludes 1.
EQUIVALENCE_MARGIN = 0.02
U_TEST = "two-sided Mann-Whitney U"


def mann_whitney_p(a, b):
    """Two-sided p-value of the Mann-Whitney U test of samples a and b (SciPy: exact for small samples
    without ties). None when either side has fewer than 2 samples or SciPy is missing."""
    if len(a) < 2 or len(b) < 2:
        return None
    try:
        from scipy.stats import mannwhitneyu
    except ImportError:  # the verdict then says why: tools/bootstrap.sh installs python3-scipy
        return None
    if len(set(a) | set(b)) == 1:
        return 1.0  # every sample equal: nothing separates them (SciPy would divide by zero)
    return float(mannwhitneyu(a, b, alternative="two-sided").pvalue)


def judge(a, b, rounds_a=None, rounds_b=None, higher_is_better=True, why_missing=None):
    """The verdict on "A beats B". `a` and `b` are the samples of each side (None entries are dropped).
    `rounds_a` and `rounds_b` map a round's index to that round's value of each side (its median, where a
    round holds several samples); rounds that both sides have are paired. `test` says which test decided and
    `p_value` is that test's."""
    a = [x for x in a if x is not None]
    b = [x for x in b if x is not None]
    out = {"samples_a": len(a), "samples_b": len(b), "median_a": None, "median_b": None, "ratio": None,
           "per_round_min": None, "per_round_max": None, "p_value": None, "test": None, "rounds_paired": None,
           "geomean_ratio": None, "ci95": None, "sign_flip_p": None, "sign_flip_method": None,
           "detectable_pct": None, "rounds_needed": None}
    if not a or not b:
        out["verdict"] = NOT_MEASURED
        out["why"] = why_missing or ("no samples of " + " and ".join(
            side for side, xs in (("A", a), ("B", b)) if not xs))
        return out
    out["median_a"], out["median_b"] = statistics.median(a), statistics.median(b)
    out["ratio"] = out["median_a"] / out["median_b"] if out["median_b"] else None
    per_round = []
    for index, value_a in sorted((rounds_a or {}).items()):
        value_b = (rounds_b or {}).get(index)
        if value_a is not None and value_b:
            per_round.append(value_a / value_b)
    if per_round:
        out["per_round_min"], out["per_round_max"] = min(per_round), max(per_round)
    if len(paired_ratio.paired_rounds(rounds_a, rounds_b)) >= 2:
        try:
            paired = paired_ratio.analyse(rounds_a, rounds_b)
        except ImportError:  # the t quantiles are SciPy's: tools/bootstrap.sh installs python3-scipy
            out["test"] = paired_ratio.TEST
            out["verdict"], out["why"] = NOT_SEPARABLE, "SciPy is missing (tools/bootstrap.sh installs python3-scipy)"
            return out
        out.update(test=paired["test"], p_value=paired["t_p_value"], rounds_paired=paired["rounds"],
                   **{k: paired[k] for k in ("geomean_ratio", "ci95", "sign_flip_p", "sign_flip_method",
                                             "detectable_pct", "rounds_needed")})
        out["verdict"], out["why"] = _decide_paired(out, higher_is_better)
        return out
    out["test"] = U_TEST
    out["p_value"] = mann_whitney_p(a, b)
    out["verdict"], out["why"] = _decide(out, higher_is_better)
    return out


def _decide_paired(out, higher_is_better):
    low, high = out["ci95"]
    if 1 - EQUIVALENCE_MARGIN <= low and high <= 1 + EQUIVALENCE_MARGIN:
        return EQUIVALENT, f"the interval lies within {1 - EQUIVALENCE_MARGIN:g} .. {1 + EQUIVALENCE_MARGIN:g}"
    if low > 1 or high < 1:
        a_better = (low > 1) == higher_is_better
        return (HOLDS if a_better else REVERSED), "the interval excludes 1"
    needed = out["rounds_needed"]
    if needed is None:
        return NOT_SEPARABLE, "the interval holds 1; no difference seen"
    seen = abs(out["geomean_ratio"] - 1) * 100
    shown = f"{seen:.2g}" if seen < 99.5 else f"{seen:.0f}"  # 520, not 5.2e+02
    return NOT_SEPARABLE, f"the interval holds 1; {needed} rounds would resolve the {shown}% seen"


def _decide(out, higher_is_better):
    p, ratio = out["p_value"], out["ratio"]
    if p is None:
        if min(out["samples_a"], out["samples_b"]) < 2:
            return NOT_SEPARABLE, (f"{out['samples_a']} and {out['samples_b']} samples: too few for a U test "
                                   "(5 a side can reach p < 0.05)")
        return NOT_SEPARABLE, "SciPy is missing (tools/bootstrap.sh installs python3-scipy)"
    if p >= ALPHA:
        return NOT_SEPARABLE, f"p = {p:.3g} >= {ALPHA}"
    low, high = out["per_round_min"], out["per_round_max"]
    if low is not None and low <= 1 <= high:
        return NOT_SEPARABLE, f"the per-round ratio crosses 1 ({low:.3g} .. {high:.3g})"
    if ratio is None or ratio == 1:
        return NOT_SEPARABLE, "equal medians"
    a_better = ratio > 1 if higher_is_better else ratio < 1
    return (HOLDS if a_better else REVERSED), f"p = {p:.3g}"


def equivalent_within(margin):
    """The verdict of an interval inside 1 +- `margin`: "equivalent within \u00b15%"."""
    return f"equivalent within \u00b1{margin * 100:g}%"


def judge_sequential(a, b, rounds_a=None, rounds_b=None, higher_is_better=True, options=sequential.DEFAULT):
    """The verdict on "A beats B" by the sequential rule (bench/analysis/sequential.py), for rounds spent until a
    claim is decided: sequential_of(judge(...)) under `options` (sequential.Options)."""
    return sequential_of(judge(a, b, rounds_a, rounds_b, higher_is_better), rounds_a, rounds_b, higher_is_better,
                         options)


def sequential_of(judged, rounds_a, rounds_b, higher_is_better=True, options=sequential.DEFAULT):
    """A judge() line (`judged`) turned sequential: its fields (the t interval and sign-flip check stay, as the
    fixed design's view of the same rounds), with `verdict` from the confidence sequence instead, looked at
    after every round and stopped at the first that decides (sequential.first_decision): HOLDS, REVERSED,
    equivalent_within(margin) or OPEN; `sequence`: that decision (its `rounds`, `median_ratio`, `interval`,
    `p_value`, `rounds_to_decide`, ...). An open claim's `why` bounds it ("any difference is below 12%; about
    40 rounds would decide it"), or says its rounds are too few to ("6 rounds: not enough to bound it")."""
    out = dict(judged)
    if out["verdict"] == NOT_MEASURED:
        return out
    decision = sequential.first_decision(sequential.log_ratios(rounds_a, rounds_b), higher_is_better, options)
    if decision["outcome"] != sequential.OPEN:  # the run's round (from 1) of the look that decided it
        decision["decided_at_round"] = _paired_round_indexes(rounds_a, rounds_b)[decision["rounds"] - 1] + 1
    out["sequence"] = decision
    out["test"] = decision["rule"]
    outcome = decision["outcome"]
    if outcome == sequential.OPEN:
        out["verdict"], out["why"] = OPEN, sequential.bound_text(decision)
    elif outcome == sequential.EQUIVALENT:
        low, high = decision["interval"]
        out["verdict"] = equivalent_within(options.margin)
        out["why"] = f"the median ratio's interval {low:.3g} .. {high:.3g} lies within the margin"
    else:
        out["verdict"] = HOLDS if outcome == sequential.HOLDS else REVERSED
        out["why"] = "the median ratio's interval excludes 1"
        if sequential.small_difference(decision, options.margin):
            out["small"] = True
            out["why"] += f"; the difference seen is under the {options.margin * 100:g}% margin"
    return out


def _paired_round_indexes(rounds_a, rounds_b):
    """The round indexes paired_ratio.paired_rounds pairs, in the same order."""
    return [i for i in sorted(set(rounds_a) & set(rounds_b))
            if rounds_a[i] is not None and rounds_b[i] is not None and rounds_a[i] > 0 and rounds_b[i] > 0]


# Rows that name their neighbours (noise.neighbours: the other programs, by process) are judged against the
# machine's own quiet level (noise.neighbours.quiet_share, measured before the first round): a round is set
# aside for "other" when the neighbours took more than NEIGHBOURS_ABOVE of the CPUs or QUIET_TIMES the quiet
# level, whichever is higher, and their CPU came to more than MOVED_ABOVE of what the measured programs used
# (what they could have moved: a short run's share alone is a few ticks). A level above QUIET_CAP is a busy
# machine, not a quiet one, and counts as QUIET_CAP, so that a neighbour there from the start is still seen.
# Rows without them (stored before, a server over SSH) keep the rule above: other_cpu_share over
# DISTURBED_OTHER, which counts the kernel's own work too.
NEIGHBOURS_ABOVE = 0.05
QUIET_TIMES = 3
QUIET_CAP = 0.05
MOVED_ABOVE = 0.05


def neighbours_level(quiet_share):
    """The neighbours' share above which a round is disturbed, on a machine whose quiet level is `quiet_share`
    (None: not measured, 0)."""
    return max(NEIGHBOURS_ABOVE, QUIET_TIMES * min(quiet_share or 0.0, QUIET_CAP))


def disturbance(row, steal_above=DISTURBED_STEAL, other_above=DISTURBED_OTHER):
    """Why one run (a row) disturbed its round, or None: {"why": "steal" or "other", "share": the share of the
    CPUs the hypervisor or the other programs took, "top": the neighbour that took most ({"pid", "name",
    "cpu_s"}; None where the row does not name them), and, where it does, "next": the two after it}."""
    noise = row.get("noise") or {}
    steal = noise.get("steal")
    if steal is not None and steal > steal_above:
        return {"why": "steal", "share": steal, "top": None}
    near = noise.get("neighbours")
    if not near:
        other = noise.get("other_cpu_share")
        return {"why": "other", "share": other, "top": None} if other is not None and other > other_above else None
    share, measured = near.get("share"), (noise.get("server_cpu_s") or 0.0) + (noise.get("client_cpu_s") or 0.0)
    if share is None or share <= neighbours_level(near.get("quiet_share")) or near["cpu_s"] <= MOVED_ABOVE * measured:
        return None
    return {"why": "other", "share": share, "top": near.get("top"), "next": near.get("next") or []}


def disturbed_rounds(rows, steal_above=DISTURBED_STEAL, other_above=DISTURBED_OTHER):
    """The rounds of `rows` (a claim's runs of both sides) in which any run lost more than `steal_above` of the
    machine's CPU time to the hypervisor, or saw other programs disturb it (disturbance(): rows that name their
    neighbours against the quiet level, older ones other load over `other_above`): {round: "steal" or "other",
    the reason of its first run disturbed}."""
    out = {}
    for row in rows:
        index = row.get("round")
        if index is None or index in out:
            continue
        found = disturbance(row, steal_above, other_above)
        if found is not None:
            out[index] = found["why"]
    return out


def share_text(share):
    """A share of the CPUs as a reader takes it: "31%", "4.5%", "100%" (never in e-notation)."""
    return f"{share * 100:.2g}%" if share < 0.995 else f"{share * 100:.0f}%"


def disturbance_text(found):
    """How a disturbance reads: "other programs took 31% of the CPUs (python3, pid 28796)", "the hypervisor
    took 25% of the CPUs (steal)"."""
    share = share_text(found["share"]) if found.get("share") is not None else "a share"
    if found["why"] == "steal":
        return f"the hypervisor took {share} of the CPUs (steal)"
    top = found.get("top")
    return f"other programs took {share} of the CPUs" + (f" ({top['name']}, pid {top['pid']})" if top else "")


def set_aside_of(rows):
    """What disturbed the rounds of `rows` that were set aside, None where none was: {"rounds", "of" (the
    rounds of `rows`), "why": {reason: rounds}, "share" (the median of each set-aside round's largest share),
    "top": the neighbours that took most over them (each run's three named, summed), [{"pid", "name",
    "cpu_s"}], at most three}."""
    by_round, seen = {}, set()
    for row in rows:
        if row.get("round") is None:
            continue
        seen.add(row["round"])
        found = disturbance(row)
        if found is not None:
            by_round.setdefault(row["round"], []).append(found)
    if not by_round:
        return None
    reasons = {}
    for found in by_round.values():
        reasons[found[0]["why"]] = reasons.get(found[0]["why"], 0) + 1
    shares = [max(f["share"] for f in found if f["share"] is not None) for found in by_round.values()
              if any(f["share"] is not None for f in found)]
    tops = {}
    for found in by_round.values():
        for f in found:
            for named in ([f["top"]] if f.get("top") else []) + f.get("next", []):
                key = (named["pid"], named["name"])
                tops[key] = tops.get(key, 0.0) + named["cpu_s"]
    top = sorted(tops.items(), key=lambda item: (-item[1], item[0]))[:3]
    return {"rounds": len(by_round), "of": len(seen), "why": dict(sorted(reasons.items())),
            "share": statistics.median(shares) if shares else None,
            "top": [{"pid": pid, "name": name, "cpu_s": round(cpu_s, 3)} for (pid, name), cpu_s in top]}


def set_aside_text(aside):
    """"other programs took 31% of the CPUs in 12 of 12 rounds (python3, pid 28796)": what set_aside_of found."""
    why = max(aside["why"], key=lambda reason: (aside["why"][reason], reason))
    said = disturbance_text({"why": why, "share": aside.get("share"), "top": None})
    top = aside.get("top") or []
    named = "; ".join(f"{t['name']}, pid {t['pid']}" for t in top[:1])
    return f"{said} in {aside['rounds']} of {aside['of']} rounds" + (f" ({named})" if named else "")


def steal_rounds(rows, level=STEAL_LEVEL):
    """How many of the rounds of `rows` (a claim's runs of both sides) ran with steal above `level` in any of
    their runs: {"steal_level", "rounds_with_steal", "rounds_with_noise" (rounds whose runs have a noise
    reading), "max_steal"}."""
    by_round = {}
    for row in rows:
        steal = (row.get("noise") or {}).get("steal")
        if steal is not None and row.get("round") is not None:
            by_round[row["round"]] = max(by_round.get(row["round"], 0.0), steal)
    return {"steal_level": level, "rounds_with_steal": sum(1 for s in by_round.values() if s > level),
            "rounds_with_noise": len(by_round), "max_steal": max(by_round.values()) if by_round else None}


def not_testable(what_it_needs, command):
    """A claim about a system this machine is not: what it needs and the command to run there."""
    return {"verdict": NOT_TESTABLE, "why": what_it_needs, "command": command}
