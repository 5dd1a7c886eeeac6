"""The order in which a bench runs its cases: in rounds, every case once per round, so that slow drift of the
machine (this VM's speed wanders) hits all cases alike and ratios can be taken within a round.

    for round_index, (server, load) in rounds.interleaved(cases, samples):
        row = run_case(server, load)
        row["round"] = round_index
"""


def interleaved(cases, samples):
    """Yields (round, case) with every case once per round, so slow drift hits all cases alike."""
    for round_index in range(samples):
        for case in cases:
            yield round_index, case
