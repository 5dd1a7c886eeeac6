"""The main job's budget across its parts (the write-ups and detail scenarios a run holds): each adaptive part
runs within a share of the whole run's budget, and what a part decided early leaves goes, in later passes, to
the parts whose claims are still open, nearest to a decision first. A part here is anything with the methods
the suite's Part has (adaptive, round_s, next_round_s, cheapest_s, wants_more, outcome, settings).

    codes = budget.spend_budget(parts, rounds.Budget(1800).start(), run_one)   # run_one(part, budget) -> code
"""

from bench.base import progress
from bench.design import rounds


def share_of(parts, index, whole):
    """The budget of parts[index], an adaptive part: what is left of the `whole` run's budget, less the
    expected time of the fixed parts after it, split equally among the adaptive parts still to run, and at
    least one round of the part's every case where that much is left (its table). A part whose claims are
    decided early leaves the rest of its share to the parts after it. Equal, not in proportion to a round's
    length: a write-up with long rounds (the fan-out's JVM runs) decides its large differences in few rounds,
    while the echo's short runs are the noisiest and need the most of them."""
    later = parts[index:]
    fixed = sum(p.round_s() * p.settings["samples"] for p in later if not p.adaptive())
    adaptive_parts = sum(1 for p in later if p.adaptive())
    left = whole.left() - fixed
    share = max(left / adaptive_parts, min(left, parts[index].round_s()))
    return rounds.Budget(max(share, 0.0), clock=whole.clock)


def spend_budget(parts, whole, run_one, first_pass=True):
    """Runs every part once, in order, the adaptive ones each within its share of the `whole` run's budget
    (share_of). The write-ups' own claims come first across the whole run: until none is open and within reach
    in any part, the parts run those alone (hold_others), and a part whose own are decided stops and leaves the
    rest of its share to the others; then the other claims get what is left. Then one loop over every write-up's
    open claims: while a pass adds rounds and budget is left,
    the parts stopped by their share with claims still open go on, the one nearest to deciding a claim first
    (the fewest seconds to decide one at the rounds seen), those with one of the write-ups' own claims open before
    the others, each with an equal split of what is left at its turn (_later_share), or all of what is left
    where that split buys it no round but the rest does; one that would not get a round of its open claims'
    cases from all that is left is passed over. A part whose open claims were all set aside as out of reach
    still wants the budget: it is spent on them rather than left (rounds.UntilDecided).
    `run_one(part, budget)` runs a part (budget None for a fixed one) and returns its exit code; without
    `first_pass`, the parts go straight to the loop (they ran before). Returns {index in parts: its last code}."""
    codes = {}
    turn = list(range(len(parts)))
    set_aside_spent = False
    holding = _hold_others(parts, True)
    while turn:
        rows_before = _rows_run(parts)
        for index in turn:
            part = parts[index]
            if not part.adaptive():
                budget = None
            elif first_pass:
                budget = share_of(parts, index, whole)
            else:
                budget = _later_share(turn, index, whole)
                if budget.seconds < part.next_round_s():
                    if whole.left() < part.next_round_s():
                        continue
                    # Its equal split buys no round, but what is left does: it takes it rather than leave it.
                    budget = rounds.Budget(max(whole.left(), 0.0), clock=whole.clock)
            codes[index] = run_one(part, budget)
        first_pass = False
        more = _rows_run(parts) > rows_before and whole.left() > 0
        wanting = [p for p in parts if p.wants_more()]
        if holding and (not more or not any(_summary_within_reach(p) for p in wanting)):
            # Every write-up's own claims are decided or out of reach, or what is left buys none of them a round:
            # the other claims get what is left.
            holding = _hold_others(parts, False)
            more = whole.left() > 0 and bool(wanting)
            if more:
                progress.log(f"bench: the write-ups' own claims have had their rounds; the other claims get the "
                             f"{whole.left():.0f} s left")
        elif not more and whole.left() > 0 and wanting and not set_aside_spent:
            # Nothing within reach could use what is left: it goes to the claims set aside, not unspent.
            set_aside_spent = more = True
            for part in wanting:
                getattr(part, "spend_set_aside", lambda: None)()
        turn = sorted((i for i, p in enumerate(parts) if p.wants_more()
                       and (not holding or _summary_within_reach(p))), key=lambda i: _turn_order(parts[i])) \
            if more else []
    return codes


def _hold_others(parts, held):
    """Every part's claims other than the write-ups' own wait (`held`) or go; whether any part holds some."""
    for part in parts:
        getattr(part, "hold_others", lambda held: None)(held)
    return held


def _summary_within_reach(part):
    return getattr(part, "summary_within_reach", lambda: False)()


def _turn_order(part):
    """A later pass's order: the parts with one of the write-ups' own claims open first, then the one nearest to
    deciding a claim."""
    summary = getattr(part, "wants_more_for_summary", lambda: False)()
    return (not summary, getattr(part, "cheapest_s", lambda: 0.0)())


def _rows_run(parts):
    return sum(len(p.outcome.rows) for p in parts if p.outcome)


def _later_share(turn, index, whole):
    """After the first pass, parts[index]'s budget: what is left, split equally among it and the parts after
    it in `turn`."""
    after = turn[turn.index(index):]
    return rounds.Budget(max(whole.left(), 0.0) / len(after), clock=whole.clock)
