"""A stored run's claims as rounds to replay: each judgeable claim's two sides per round, in the order they were
measured, with the truth set (the null: no difference; or a difference beyond the margin), and the orders in
which the replays visit the stored rounds: every circular shift of the measured order, or a block bootstrap of
whole rounds with its block length from the rounds' autocorrelation.

    claims = replayed_rounds.stored(folder, doc)                 # [StoredClaim]: its rounds in measured order
    values = claims[0].replayed(truth=1.0)                       # [(A's figure, B's figure)], true median ratio 1
    shifts = replayed_rounds.shifted(claims, shift, rounds)      # stored positions, the measured order from `shift`
    blocks = replayed_rounds.block_bootstrap(claims, rng, rounds)
    length = replayed_rounds.block_length(claims)                # Politis and White's rule, whole rounds

The null keeps each round's A as it was measured and sets its B to A divided by the round's own stored ratio
over the claim's median ratio: the ratios keep their shape, their spread and their order (whatever drift and
dependence between rounds the machine gave them), and their median is the truth. Rounds are whole: a position
p stands for every claim's p-th stored round (a claim with fewer stored rounds wraps round its own, p modulo
its count), so that what one round of the machine did to several claims at once stays together.
"""

import dataclasses
import json
import math
import os
import statistics

from bench.analysis import judged_link
from bench.analysis import sequential
from bench.analysis import verdict
from bench.design import judging

# A claim needs this many stored rounds to be replayed: fewer say too little of its rounds' shape.
FEWEST_STORED_ROUNDS = 5
UNJUDGED = (verdict.NOT_MEASURED, verdict.NOT_TESTABLE, verdict.SAME_CONFIGURATION)


@dataclasses.dataclass(frozen=True)
class StoredClaim:
    """A claim of a stored run: its name, its family (sequential.SUMMARY where its line is its question's
    headline), its sides' per-round figures over the rounds both ran and the host did not disturb, in round
    order (`a`, `b`), and each side's median run time in seconds (what a replayed run takes on the fake clock)."""
    name: str
    family: str
    a: tuple
    b: tuple
    wall_s: tuple = (1.0, 1.0)

    def log_ratios(self):
        return [math.log(x / y) for x, y in zip(self.a, self.b)]

    def replayed(self, truth=1.0):
        """[(A, B)] per stored round: A as measured, B set so that the ratio A / B is the round's stored ratio
        over the claim's median ratio, times `truth`: the rounds' shape and order, about a true median of
        `truth`."""
        ratios = self.log_ratios()
        middle = statistics.median(ratios)
        return [(x, x / math.exp(r - middle + math.log(truth))) for x, r in zip(self.a, ratios)]


def _per_round(cells, figure, disturbed):
    """{round: (median figure, median wall_s)} of a cell's rows that ran, outside `disturbed`."""
    out = {}
    for row in cells:
        value = judging.figure_of(row, figure) if row.get("status") == "ok" else None
        values = [v for v in (value if isinstance(value, list) else [value]) if v]
        if values and row.get("round") not in disturbed:
            out[row["round"]] = (statistics.median(values), row.get("wall_s") or 1.0)
    return out


def _claim(name, family, line, rows):
    """A StoredClaim of a verdict `line` over its run's `rows` (judging.claim_rounds' pairing), or None."""
    cells = [[r for r in rows if all(r.get(k) == v for k, v in line[side].items())] for side in ("a", "b")]
    disturbed = verdict.disturbed_rounds(cells[0] + cells[1])
    a, b = (_per_round(c, line["figure"], disturbed) for c in cells)
    paired = sorted(set(a) & set(b))
    if len(paired) < FEWEST_STORED_ROUNDS:
        return None
    walls = tuple(statistics.median(side[i][1] for i in paired) for side in (a, b))
    return StoredClaim(name, family, tuple(a[i][0] for i in paired), tuple(b[i][0] for i in paired), walls)


def stored(folder, doc):
    """[StoredClaim]: every judgeable claim of the stored run in `folder` (its report.json `doc`) with at least
    FEWEST_STORED_ROUNDS paired rounds."""
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
            family = sequential.SUMMARY if index in headlines else sequential.OTHER
            claim = _claim(f"{section['id']}: {line['claim']}", family, line, rows)
            if claim is not None:
                claims.append(claim)
    return claims


# The claims a study replays: those whose stored ratios lie within this of their median in half their rounds
# (median absolute deviation, in logs). A bias of a few percent can decide only these within a run's rounds; the
# wider ones stay open whatever the order, and would cost most of a replay's time.
TIGHT = 0.05


def tight(claims):
    """The claims of `claims` whose rounds' median absolute deviation from their median is within TIGHT."""
    def spread(claim):
        ratios = claim.log_ratios()
        middle = statistics.median(ratios)
        return statistics.median(abs(r - middle) for r in ratios)
    return [c for c in claims if spread(c) <= TIGHT]


def longest(claims):
    return max(len(c.a) for c in claims)


def shifted(claims, shift, rounds):
    """The stored positions of `rounds` replayed rounds in the measured order, from position `shift` on
    (circularly, over the longest claim's rounds)."""
    return [(shift + i) % longest(claims) for i in range(rounds)]


def block_bootstrap(claims, rng, rounds, length=None):
    """The stored positions of `rounds` replayed rounds drawn as a circular block bootstrap of whole rounds:
    blocks of `length` consecutive positions (None: block_length(claims)) from starts drawn uniformly."""
    n, length = longest(claims), length or block_length(claims)
    out = []
    while len(out) < rounds:
        start = rng.randrange(n)
        out += [(start + i) % n for i in range(length)]
    return out[:rounds]


def autocorrelations(series, lags):
    """The sample autocorrelations of `series` at lags 1 .. `lags` (0 where the series is constant)."""
    n, mean = len(series), statistics.fmean(series)
    centred = [x - mean for x in series]
    variance = sum(x * x for x in centred) / n
    if variance == 0:
        return [0.0] * lags
    return [sum(centred[i] * centred[i + k] for i in range(n - k)) / n / variance for k in range(1, lags + 1)]


def politis_white(series):
    """The circular block bootstrap's block length for `series` (Politis and White 2004, with Patton, Politis
    and White's 2009 correction): the autocorrelations are cut at twice the first lag m after which K_N of them
    in a row are within 2 sqrt(log10(n) / n) of 0, weighted by the flat-top kernel, and the length that balances
    the variance estimate's bias against its variance is (2 G^2 / D)^(1/3) n^(1/3); at least 1, at most n / 3."""
    n = len(series)
    k_n = max(5, math.ceil(math.sqrt(math.log10(n))))
    most = min(math.ceil(math.sqrt(n)) + k_n, n - 1)
    rho = autocorrelations(series, most)
    band = 2 * math.sqrt(math.log10(n) / n)
    m = next((lag for lag in range(0, most - k_n + 1)
              if all(abs(r) < band for r in rho[lag:lag + k_n])), most - k_n)
    cut = min(2 * m, most)
    if cut == 0:  # no autocorrelation outside the band: rounds are as good as independent
        return 1
    variance = statistics.pvariance(series)
    acov = [variance] + [r * variance for r in rho]

    def flat_top(x):
        return 1.0 if abs(x) <= 0.5 else max(2 * (1 - abs(x)), 0.0)
    g = sum(flat_top(k / cut) * 2 * k * acov[k] for k in range(1, cut + 1))
    spectrum_0 = acov[0] + sum(flat_top(k / cut) * 2 * acov[k] for k in range(1, cut + 1))
    if g == 0 or spectrum_0 <= 0:
        return 1
    length = (2 * g * g / (4 / 3 * spectrum_0 ** 2)) ** (1 / 3) * n ** (1 / 3)
    return int(min(max(round(length), 1), max(n // 3, 1)))


def block_length(claims):
    """One block length for whole rounds: the longest Politis and White give any claim with at least 20 stored
    rounds (those shorter say little of their dependence), so that the most dependent claim's runs of rounds
    stay together; 1 where none has 20."""
    return max((politis_white(c.log_ratios()) for c in claims if len(c.a) >= 20), default=1)
