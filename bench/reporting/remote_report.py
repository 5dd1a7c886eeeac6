"""The part of a write-up's report that says where its programs ran and what the network changed:
with --compare-loopback every case ran on loopback and over the link to the remote hosts in the same rounds,
and this puts the two side by side (msgs/s and CPU per message of both sides, the ratio link / loopback of
the medians and its range within single rounds); with --client-hosts, each host's share of a fleet's msgs/s.

    extra, summary = remote_report.section(rows, ("server", "client"), "server on 10.0.0.11, ...")
    # extra: {"notes": [...], "tables": [...]}, added to the write-up's section (bench/reporting/document.py)

Rows are the scenario's (bench/scenarios/writeup_cases.py): `link` "loopback" or "remote"; fleet rows carry `hosts`.
"""

import statistics

from bench.analysis import medians
from bench.reporting import tables

LOOPBACK, REMOTE = "loopback", "remote"
FIGURES = (("msgs_per_s", "msgs/s"), ("server_cpu_us_per_msg", "server CPU us/msg"),
           ("client_cpu_us_per_msg", "client CPU us/msg"))


def _ok(rows, case, keys, link):
    return [r for r in rows if r.get("status") == "ok" and r.get("link") == link
            and tuple(r.get(k) for k in keys) == case]


def _round_ratios(remote_rows, loopback_rows, figure):
    by_round = {r["round"]: r.get(figure) for r in loopback_rows}
    ratios = []
    for row in remote_rows:
        base = by_round.get(row["round"])
        if row.get(figure) is not None and base:
            ratios.append(row[figure] / base)
    return ratios


def cases_of(rows, keys):
    return list(dict.fromkeys(tuple(r.get(k) for k in keys) for r in rows))


def link_summary(rows, keys):
    """One entry per case: each figure's median on each link, the ratio remote / loopback of the medians and
    the lowest and highest ratio within single rounds."""
    summary = []
    for case in cases_of(rows, keys):
        loopback, remote = _ok(rows, case, keys, LOOPBACK), _ok(rows, case, keys, REMOTE)
        if not loopback or not remote:
            continue
        entry = dict(zip(keys, case))
        for figure, _ in FIGURES:
            a = medians.median([r.get(figure) for r in loopback])
            b = medians.median([r.get(figure) for r in remote])
            per_round = _round_ratios(remote, loopback, figure)
            entry[figure] = {LOOPBACK: a, REMOTE: b, "ratio": b / a if a and b is not None else None,
                             "per_round": [min(per_round), max(per_round)] if per_round else None}
        summary.append(entry)
    return summary


def _case_name(entry, keys):
    return " ".join(f"{k}={entry[k]}" if k in ("procs", "clients") else str(entry[k]) for k in keys)


def link_table(summary, keys):
    """Loopback against the link, per case: {"columns", "rows"} (bench/reporting/document.py's table)."""
    head = ["case"]
    for _, label in FIGURES:
        head += [f"{label} loopback", f"{label} link", "link / loopback (per round)"]
    body = []
    for entry in summary:
        cells = [_case_name(entry, keys)]
        for figure, _ in FIGURES:
            value = entry[figure]
            span = value["per_round"]
            ratio = tables.format_number(value["ratio"]) + (
                f" ({tables.format_number(span[0])} .. {tables.format_number(span[1])})" if span else "")
            cells += [tables.format_number(value[LOOPBACK]), tables.format_number(value[REMOTE]), ratio]
        body.append(cells)
    return {"columns": head, "rows": body}


def fleet_table(rows, keys):
    """Per case, each client host's median msgs/s and share of the fleet's; None without a fleet."""
    body = []
    for case in cases_of(rows, keys):
        fleet = [r for r in _ok(rows, case, keys, REMOTE) + _ok(rows, case, keys, None) if r.get("hosts")]
        if not fleet:
            continue
        hosts = list(dict.fromkeys(h["host"] for r in fleet for h in r["hosts"]))
        cells = []
        for host in hosts:
            rates = [h.get("msgs_per_s") for r in fleet for h in r["hosts"] if h["host"] == host]
            shares = [h.get("share") for r in fleet for h in r["hosts"] if h["host"] == host and h.get("share")]
            share = f" ({statistics.median(shares):.0%})" if shares else ""
            cells.append(f"{host} {tables.format_number(medians.median(rates))}{share}")
        total = medians.median([r.get("msgs_per_s") for r in fleet])
        body.append([_case_name(dict(zip(keys, case)), keys), tables.format_number(total), "; ".join(cells)])
    if not body:
        return None
    return {"columns": ["case", "fleet msgs/s", "each host's msgs/s (share)"], "rows": body}


def overall_change(summary):
    """One sentence: how the link changed each figure over all cases (the median of the cases' ratios, and
    their lowest and highest), or "" when no case has both links."""
    parts = []
    for figure, what in (("msgs_per_s", "msgs/s"), ("server_cpu_us_per_msg", "the server's CPU per message"),
                         ("client_cpu_us_per_msg", "the client's CPU per message")):
        ratios = sorted(case[figure]["ratio"] for case in summary if case[figure].get("ratio"))
        if ratios:
            parts.append(f"{what} {statistics.median(ratios):.2f}x ({ratios[0]:.2f}x .. {ratios[-1]:.2f}x)")
    if not parts:
        return ""
    return (f"Over its {len(summary)} cases the link changed " + ", ".join(parts)
            + " against loopback (the median of the cases' ratios, and the lowest and highest).")


def clock_note(rows):
    """Which clock the remote rows' CPU figures came from (each row's `cpu_clock`: null where a host could not
    run netbench's reader; runs stored before it was recorded, or with "ticks", read clock ticks)."""
    remote = [r for r in rows if r.get("link") != "loopback"]
    clocks = {r.get("cpu_clock", "ticks") for r in remote}
    if clocks == {"scheduler"}:
        return ("On the remote hosts CPU time is the scheduler's nanosecond clock, read there by netbench's reader "
                "(//common:process_tree_cpu) as on this machine")
    if None in clocks:
        return ("CPU time was not measured on remote hosts that could not run netbench's reader "
                "(//common:process_tree_cpu): their rows' CPU figures are empty, never another clock's")
    if not any("cpu_clock" in r for r in remote):
        return ("On the remote hosts CPU time was read from /proc (clock ticks, 10 ms at 100 Hz), not the "
                "scheduler's nanosecond clock (this run predates netbench's remote reader)")
    return ("On the remote hosts CPU time was read from /proc (clock ticks, 10 ms at 100 Hz) where netbench's "
            "reader could not run there, not the scheduler's nanosecond clock")


def section(rows, keys, where, client_hosts=1):
    """({"notes", "tables"} to add to a write-up's section, link summary) for a write-up that ran on remote
    hosts; the summary is [] without loopback."""
    summary = link_summary(rows, keys)
    notes, found = [f"Where it ran: {where}."], []
    if summary:
        fleet_note = (f" The link's rows are a fleet of {client_hosts} client hosts, each offering the loopback "
                      f"case's load: {client_hosts} times its connections, so msgs/s is not the link's alone; "
                      "CPU per message still compares." if client_hosts > 1 else "")
        caption = ("**Loopback against the link**, the same cases interleaved in the same rounds (medians; the "
                   "ratio is link / loopback, with its lowest and highest value within single rounds). Over a link "
                   "the segments leave loopback's short cut for a network device's transmit and receive path. On "
                   "separate machines client and server then no longer share a kernel and its cores, and each side "
                   "pays only for its own half; between network namespaces of one machine "
                   "(bench/running/testnet.sh) they still share both, and every segment crosses two veth pairs and a bridge." + fleet_note
                   + (" " + overall_change(summary) if overall_change(summary) else ""))
        found.append({"caption": caption, **link_table(summary, keys)})
    fleet = fleet_table(rows, keys)
    if fleet:
        found.append({"caption": "**The client fleet**: every host's load started together; the row above is "
                      "their sum (msgs/s and messages summed, latency histograms merged exactly), with each host's "
                      "part", **fleet})
    notes.append(clock_note(rows) + "; segments per message are not counted over a link.")
    return {"notes": notes, "tables": found}, summary
