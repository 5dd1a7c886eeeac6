"""What a section's charts show, as data the run's document carries (a section's `chart_data`), so that charts.py
draws from the document alone: per cell of the section (a server and its load, ...) the median, lowest and
highest round of each charted figure, and, for a write-up, the steal per round, a typical run's series on each
side of its first steady-state claim and the stored run-length study. No matplotlib here.

    section["chart_data"] = chart_data.of("echo_writeup", stored)   # None when the document charts nothing

A write-up is charted from its headline placement's rows: "shared", the write-ups' own way, where the run has
it (both placements in one chart would put two experiments under one bar); the verdict tables give both.
"""

import statistics

# Per stored document (file stem): the fields that name a cell, the figures charted, the settings the titles
# say; the detail scenarios' cells also leave out a fan-out whose requests failed.
KINDS = {
    "echo_writeup": (("server", "client"), ("msgs_per_s", "server_cpu_us_per_msg", "client_cpu_us_per_msg")),
    "websocket_writeup": (("client", "server", "procs", "clients"),
                          ("msgs_per_s", "server_cpu_us_per_msg", "client_cpu_us_per_msg")),
    "fanout_writeup": (("scheme", "server", "client", "condition"), ("wall_s_median",)),
    "echo_bench": (("server", "client"), ("msgs_per_s", "server_cpu_us_per_msg", "client_cpu_us_per_msg",
                                          "p50_us", "p99_us", "p999_us")),
    "websocket_bench": (("server", "client"), ("msgs_per_s", "server_cpu_us_per_msg", "client_cpu_us_per_msg",
                                               "p50_us", "p99_us", "p999_us")),
    "httpfanout_bench": (("scheme", "server", "client"), ("wall_s_median",)),
}
SETTINGS = ("clients", "seconds", "samples", "messages", "requests", "reps", "placement_drawn")


def machine_line(env):
    return (f"{env.get('cpu_model', '?')}, {env.get('cores', '?')} cores, {env.get('os', '?')} "
            f"{env.get('kernel', '?')}; run {env.get('timestamp_utc', '?')}, commit {env.get('git_commit', '?')}")


def stat(values):
    """[median, lowest, highest] of the values present; None when there are none."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    return [statistics.median(values), min(values), max(values)]


def ok(rows):
    return [r for r in rows if r.get("status", "ok") == "ok" and not r.get("returncode")]


def headline_placement(document):
    rows = document.get("rows")
    placements = {r.get("placement") for r in rows or []}
    if not rows or len(placements) < 2:
        return document
    chosen = "shared" if "shared" in placements else sorted(p for p in placements if p)[0]
    settings = {**document.get("settings", {}), "placement_drawn": chosen}
    return {**document, "rows": [r for r in rows if r.get("placement") == chosen], "settings": settings}


def cells(rows, keys, figures, counted=ok):
    """Every cell of `rows` in order of first appearance: its key fields and each figure's stat over its rows
    that ran (`counted`)."""
    out = {}
    for row in rows:
        key = tuple(row.get(k) for k in keys)
        out.setdefault(key, []).append(row)
    return [{"key": dict(zip(keys, key)), "stats": {f: stat([r.get(f) for r in counted(group)]) for f in figures}}
            for key, group in out.items()]


def microbenchmark_families(document):
    """{binary: {family: [[argument, GB/s]]}} of the benchmarks run at several sizes: the median over rounds."""
    sizes = {}
    for row in document["rows"]:
        family, _, argument = row["benchmark"].rpartition("/")
        if row["status"] == "ok" and family and argument.isdigit() and row.get("GB_per_s"):
            sizes.setdefault((row["binary"], family, int(argument)), []).append(row["GB_per_s"])
    families = {}
    for (binary, family, argument), values in sizes.items():
        families.setdefault(binary, {}).setdefault(family, []).append([argument, statistics.median(values)])
    return families


def steal(rows):
    """[[round (from 1), [steal % of each run]]] of the rows with a noise reading, by round."""
    by_round = {}
    for row in rows:
        value = (row.get("noise") or {}).get("steal")
        if value is not None and row.get("round") is not None:
            by_round.setdefault(row["round"] + 1, []).append(value * 100)
    return [[r, by_round[r]] for r in sorted(by_round)]


def _typical(rows):
    """Of `rows` with a series, a typical one: among the longest runs, the one whose steady rate is the median."""
    longest = max(len(r["series"]["sent"]) for r in rows)
    chosen = sorted((r for r in rows if len(r["series"]["sent"]) == longest),
                    key=lambda r: r.get("steady_msgs_per_s") or 0)
    return chosen[len(chosen) // 2]


def typical_series(document):
    """A typical run's rate per interval for each side of the first claim judged on the steady-state rate, with
    its steady segment: {"claim", "sides": [{label, words, round, class, interval_s, values, steady_rate,
    steady_start_s}]}; None where the rows have no series."""
    from bench.analysis import steady_state
    line = next((v for v in document.get("verdicts") or [] if v.get("figure") == "steady_msgs_per_s"
                 and v.get("a") and v.get("b")), None)
    if line is None:
        return None
    sides = []
    for side in ("a", "b"):
        cell = {k: v for k, v in line[side].items() if k != "placement"}
        rows = [r for r in ok(document["rows"]) if r.get("series") and r.get("steady")
                and all(r.get(k) == v for k, v in cell.items())]
        if not rows:
            continue
        row = _typical(rows)
        series, steady = row["series"], row["steady"]
        sides.append({"label": side.upper(), "round": row["round"], "class": steady["class"],
                      "words": ", ".join(str(v) for k, v in cell.items() if k in ("server", "procs", "clients")),
                      "interval_s": series["interval_s"], "steady_rate": steady.get("steady_rate"),
                      "values": steady_state.rates(series, steady.get("counted") or "sent"),
                      "steady_start_s": steady.get("steady_start_s")})
    return {"claim": line["claim"], "sides": sides} if sides else None


def _writeup_extras(document):
    settings = document.get("settings") or {}
    study = settings.get("run_length_study")
    length = None
    if study and study.get("points"):
        length = settings.get("seconds") if study["unit"] == "s" else settings.get("messages")
    return {"steal": steal(document["rows"]), "series": typical_series(document),
            "study": study if study and study.get("points") else None, "length": length}


# The documents of a user's own claims (--claims, --versus) begin so: your_echo_writeup.
YOURS = "your_"


def of(name, document):
    """The chart data of the stored document `name` (file stem), converted to today's schema; None when it has
    no charts."""
    if name == "microbenchmarks":
        return {"kind": name, "machine": machine_line(document["environment"]),
                "families": microbenchmark_families(document)}
    if name.startswith(YOURS):  # a user's own claims over a write-up's scenario: that write-up's charts
        name = name[len(YOURS):]
    if name not in KINDS:
        return None
    document = headline_placement(document)
    keys, figures = KINDS[name]
    counted = (lambda rows: [r for r in ok(rows) if not r.get("failed")]) if name == "httpfanout_bench" else ok
    settings = document.get("settings") or {}
    data = {"kind": name, "machine": machine_line(document["environment"]),
            "cores": document["environment"].get("cores"),
            "settings": {k: settings[k] for k in SETTINGS if k in settings},
            "rounds": max((r.get("round", 0) for r in document["rows"]), default=-1) + 1,
            "cells": cells(document["rows"], keys, figures, counted)}
    if name.endswith("_writeup"):
        data.update(_writeup_extras(document))
    return data
