"""Which cases run in a round, and in what order: the scheduler's policy (bench/running/scheduler.py).

Every case runs once per round and the cases are interleaved within each round, so that slow drift of the
machine (this VM's speed wanders) hits all cases alike and ratios can be taken within a round.

    policy = rounds.EveryCase()                  # the fixed design: every case, every round, in order
    policy.cases(round_index, cases, rows)       # -> the cases of this round, in the order they run

A policy that spends rounds only where a claim is still open returns fewer cases, and none to stop.
"""


class EveryCase:
    """The fixed design: every case in every round, in the order the scenario lists them."""

    def cases(self, round_index, cases, rows):
        return list(cases)

