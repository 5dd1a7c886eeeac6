"""Runs a claim lost, side by side: what a verdict leaves out when a side's run gave no figure, and what the
verdict would say if each such round were counted against the side that lost it.

A round enters a verdict only when both sides gave a figure. A side that fails, reaches no steady state or
counts zero more often than the other loses rounds by its outcome, and a verdict on the rounds left favours
it: the unstable side is judged on its good rounds only. So each line counts each side's lost runs by why, and
where the sides lost unequally the ratio with every lost round counted as its side's loss stands beside it.

    lost_runs.why_lost(row, value)                     # "failed", "no steady state", "zero" or None
    lost_runs.unequal({"failed": 3}, {}, rounds=20)    # True: more than 2 in 20 apart
    lost_runs.ratio_counting_losses({0: 0.1, 1: -0.2}, lost_a={2}, lost_b=set(), higher_is_better=True)
"""

import math

from bench.analysis import sign_sequence

FAILED, NO_STEADY_STATE, ZERO, NO_FIGURE = "failed", "no steady state", "zero", "no figure"
# Sides that lost more than this share of the rounds apart are said to lose unequally.
UNEQUAL_SHARE = 2 / 20


def why_lost(row, value, steady_figure=False):
    """Why a run gave no usable figure (`value`, the figure it gave): FAILED, NO_STEADY_STATE (a steady-state
    figure of a run that reached none), ZERO, NO_FIGURE; None for a usable one."""
    if row.get("status") != "ok":
        return FAILED
    if value is None:
        return NO_STEADY_STATE if steady_figure else NO_FIGURE
    if value == 0:
        return ZERO
    return None


def unequal(lost_a, lost_b, rounds):
    """Whether two sides' lost runs ({why: count}) differ by more than UNEQUAL_SHARE of `rounds`."""
    return rounds > 0 and abs(sum(lost_a.values()) - sum(lost_b.values())) > UNEQUAL_SHARE * rounds


def ratio_counting_losses(log_ratios, lost_a, lost_b, higher_is_better=True):
    """The median ratio A/B with every round a side lost (and the other did not) counted as that side's loss:
    `log_ratios` {round: log(A/B)} of the rounds both gave, `lost_a`/`lost_b` the rounds each lost. None
    without rounds."""
    worse_for_a = -math.inf if higher_is_better else math.inf
    counted = list(log_ratios.values())
    counted += [worse_for_a] * len(set(lost_a) - set(lost_b))
    counted += [-worse_for_a] * len(set(lost_b) - set(lost_a))
    if not counted:
        return None
    middle = sign_sequence.median(sorted(counted))
    if math.isnan(middle):  # as many rounds lost by each side as kept: no median
        return None
    return 0.0 if middle == -math.inf else (math.inf if middle == math.inf else math.exp(middle))
