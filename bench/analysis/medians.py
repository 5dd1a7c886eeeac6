"""Medians of samples, missing ones left out, and the per-case summary of a detail bench: one entry per
(server, load) case with the median of each figure over its rounds.

    summary = medians.summarize_cases(rows, [("epoll", "stream3"), ("go", "stream3")], ("msgs_per_s",))
    medians.lookup(summary, "epoll", "stream3", "msgs_per_s")
"""

import statistics


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summarize_cases(rows, cases, keys):
    """One entry per (server, load) case: the median of each of `keys` over its sample rows, the number of
    samples, the errors summed and the runs that failed."""
    summary = []
    for server_name, load in cases:
        mine = [r for r in rows if r["server"] == server_name and r["load"] == load]
        entry = {"server": server_name, "load": load, "samples": len(mine)}
        for key in keys:
            entry[key] = median([r.get(key) for r in mine])
        entry["errors"] = sum(r.get("errors") or 0 for r in mine)
        entry["failed_runs"] = sum(1 for r in mine if r["returncode"] != 0)
        summary.append(entry)
    return summary


def lookup(summary, server_name, load, key):
    """The `key` figure of one case of a summarize_cases() summary; None when absent."""
    for entry in summary:
        if entry["server"] == server_name and entry["load"] == load:
            return entry.get(key)
    return None
