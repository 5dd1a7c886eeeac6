"""Which side of a claim ran first, round by round, and whether that split is one a fair coin gives.

A drawn order makes each round's order a coin: over a claim's rounds its A should run first about half the time.
A split far from half says the draw did not do its work (a bug, or rounds lost unevenly between the two orders),
and a verdict on such rounds may carry the order's effect. Experimentation platforms check their sample ratio the
same way before they trust a comparison (Kohavi, Tang and Xu, "Trustworthy Online Controlled Experiments",
ch. 21): a two-sided binomial test against one half, at a level strict enough that a fair design seldom trips it.

    order_balance.balance({3: 0, 4: 2}, {3: 1, 4: 0})   # {"a_first": 1, "rounds": 2, "p_value": 1.0, "unbalanced": False}
"""

# A split is marked unbalanced below this two-sided p-value: a fair coin trips it once in a thousand claims.
UNBALANCED_P = 0.001


def balance(slots_a, slots_b):
    """How often A ran first over the rounds both sides ran ({round: slot}, a run's position in its round), and
    the binomial test of that split against half; None where no round has both sides' slots (rows stored
    before rounds were drawn)."""
    rounds = sorted(set(slots_a) & set(slots_b))
    if not rounds:
        return None
    from scipy.stats import binomtest  # noqa: PLC0415 - SciPy loads slowly; only judged lines need it

    a_first = sum(1 for i in rounds if slots_a[i] < slots_b[i])
    p_value = float(binomtest(a_first, len(rounds), 0.5).pvalue)
    return {"a_first": a_first, "rounds": len(rounds), "p_value": p_value, "unbalanced": p_value < UNBALANCED_P}
