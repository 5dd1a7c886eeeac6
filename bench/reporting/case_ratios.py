"""The ratios between two cases of a detail bench: the ratio of their medians, and how far the same
ratio ranged when taken within single rounds (a wide range says the ratio of medians is not settled).

    row = case_ratios.ratio_of(summary, "epoll / go", ("epoll", "rate", "cpu"), ("go", "rate", "cpu"), "<= 0.7")
    (row,) = case_ratios.add_round_ranges([row], rows)    # gains "per_round": "0.61 .. 0.66"
"""

from bench.analysis import medians
from bench.reporting import tables


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def ratio_of(summary, name, a, b, target):
    """A ratio row: the ratio of two cases' medians. `a` and `b` are (server, load, key); the cases are kept so
    that add_round_ranges() can take the same ratio round by round."""
    return {"ratio": name, "value": ratio(medians.lookup(summary, *a), medians.lookup(summary, *b)),
            "target": target, "_cases": (a, b)}


def value_range(values):
    """"lowest .. highest" of `values` as the tables print numbers; None when there are none."""
    return f"{tables.format_number(min(values))} .. {tables.format_number(max(values))}" if values else None


def add_round_ranges(ratio_rows, rows):
    """Gives each ratio_of() row a `per_round` column: the lowest and highest value of the same ratio taken
    within each round (the two cases of one round ran minutes apart at most). A wide range says the ratio of
    medians is not settled by this run; more --samples narrow it."""
    out = []
    for entry in ratio_rows:
        cases = entry.get("_cases")
        per_round = []
        if cases:
            (server_a, load_a, key_a), (server_b, load_b, key_b) = cases
            for round_index in sorted({r.get("round") for r in rows if r.get("round") is not None}):
                def value(server, load, key):
                    for r in rows:
                        if r.get("round") == round_index and r["server"] == server and r["load"] == load:
                            return r.get(key)
                    return None

                per_round_value = ratio(value(server_a, load_a, key_a), value(server_b, load_b, key_b))
                if per_round_value is not None:
                    per_round.append(per_round_value)
        out.append({"ratio": entry["ratio"], "value": entry["value"], "per_round": value_range(per_round),
                    "target": entry["target"],
                    **{k: v for k, v in entry.items() if k not in ("ratio", "value", "target", "_cases")}})
    return out
