"""Which cases run in a round, and in what order: the scheduler's policy (bench/running/scheduler.py).

Every case runs once per round and the cases are interleaved within each round, so that slow drift of the
machine (this VM's speed wanders) hits all cases alike and ratios can be taken within a round.

    policy = rounds.EveryCase()                  # the fixed design: every case, every round, in order
    policy = rounds.Shuffled(seed=1)             # every case, every round, in an order drawn per round
    policy = rounds.Alternating()                # every case, the order reversed every other round (A-B, B-A)
    policy.cases(round_index, cases, rows)       # -> the cases of this round, in the order they run

A policy that spends rounds only where a claim is still open returns fewer cases, and none to stop.
"""

import random


class EveryCase:
    """The fixed design: every case in every round, in the order the scenario lists them."""

    def cases(self, round_index, cases, rows):
        return list(cases)


class Shuffled:
    """Every case in every round, in an order drawn afresh for each round: a case that gains from running
    first (a cache it warms, a server it follows) gains in some rounds and loses in others. The order depends
    only on `seed` and the round's index, so that a run is repeated exactly and a round asked twice answers
    alike."""

    def __init__(self, seed=0):
        self.seed = seed

    def cases(self, round_index, cases, rows):
        chosen = list(cases)
        random.Random(f"{self.seed}:{round_index}").shuffle(chosen)
        return chosen


class Alternating:
    """Every case in every round, in the listed order in even rounds and reversed in odd ones: over two rounds
    of two cases, A-B-B-A. Whatever grows or shrinks steadily within a pair of rounds (a warming cache, a
    neighbour's load coming or going) then favours each case alike, where a fixed order would hand it to one."""

    def cases(self, round_index, cases, rows):
        return list(cases) if round_index % 2 == 0 else list(reversed(cases))
