"""The three public write-ups netbench settles: each one's claim with its own numbers, the tables it printed
rebuilt from this run's rows (bench/scenarios/scenarios.py), and one computed verdict per claim (bench/analysis/verdict.py).

    section = writeups.echo_section(rows, fates, settings)            # data: claim, verdicts, tables, ...
    section = writeups.SECTIONS["echo"](rows, fates, settings, stored)  # again, from a stored run's verdicts

A section is data (bench/reporting/document.py says its fields), rendered by bench/reporting/markdown.py and
html_report.py; each claim's lines (one per load and placement) are grouped under its question, the write-up's own
load and placement its headline.

A claim line compares two cells of a table ("racket under go-spammer" vs "go under go-spammer"); its samples
are that cell's rows, one per round. A cell whose contestant is missing here gives "not measured" with the
reason; a claim about another operating system or more cores gives "not testable here" with the command to
run there. Nothing in a verdict is written by hand.
"""

import os
import statistics

from bench.analysis import medians
from bench.running import placement as cpu_placement
from bench.running import process_configuration
from bench.analysis import verdict
from bench.reporting import verdict_text

ECHO_CLAIM = ("A Racket echo server, a thread per client, did 114,584 msg/s against Go's 85,650, and Go with "
              "GOMAXPROCS=1 108,495 (3 clients of the Go spammer, 180 s, one machine).")
WEBSOCKET_CLAIM = ("Go's x/net WebSocket server and client, `client 1 100000` and `client 4 100000` at GOMAXPROCS "
                   "1-4: on Linux 233k msgs/s at 1 rising to 571k at 4; on macOS a loss of about 100k msgs/s "
                   "at GOMAXPROCS=2; FreeBSD on two cores shown too.")
FANOUT_CLAIM = ("Clojure's http-kit, JIT warmed by criterium, fetched 500 pages concurrently in 746 ms against "
                "Go's net/http 1,269 ms (`go test -bench`, run once, cold).")


def _cells(rows, **match):
    return [r for r in rows if all(r.get(k) == v for k, v in match.items())]


def _samples(cell_rows, figure):
    """The figure's samples (per-repetition lists are flattened) and its per-round medians."""
    samples, rounds = [], {}
    for row in cell_rows:
        if row.get("status") != "ok":
            continue
        value = row.get(figure)
        values = value if isinstance(value, list) else [value]
        values = [v for v in values if v is not None]
        samples += values
        if values:
            rounds[row["round"]] = statistics.median(values)
    return samples, rounds


def _why_missing(fates, *names):
    reasons = []
    for fate in fates:
        if fate["name"] in names and fate["status"] != "ran":
            reasons.append(f"{fate['name']} {fate['status']}: {fate.get('why', '')}")
    return "; ".join(reasons) or None


def claim_line(text, rows, fates, a, b, figure, higher_is_better, names=(), placement=None, same_if=()):
    """One claim's verdict: cell `a` beats cell `b` on `figure` (cells are dicts of row fields), within one
    `placement` (its name opens the claim when the rows have several). `same_if` names configuration values (a probe's, such as
    "gomaxprocs"): when both sides ran every one of them alike, on server and load, the comparison is of one
    configuration with itself and gets no verdict."""
    if placement is not None:
        a, b = {**a, "placement": placement}, {**b, "placement": placement}
    cells_a, cells_b = _cells(rows, **a), _cells(rows, **b)
    samples_a, rounds_a = _samples(cells_a, figure)
    samples_b, rounds_b = _samples(cells_b, figure)
    judged = verdict.judge(samples_a, samples_b, rounds_a, rounds_b, higher_is_better,
                           why_missing=_why_missing(fates, *names))
    several = len(placements_of(rows)) > 1
    line = {"claim": (f"[{placement}] " if placement and several else "") + text, "figure": figure, "a": a, "b": b,
            **judged}
    if placement is not None:
        line["placement"] = placement
    configuration = {f"{side}_{role}": config for side, cells in (("a", cells_a), ("b", cells_b))
                     for role, config in _configuration(cells).items()}
    if configuration:
        line["configuration"] = configuration
    same = _same_configuration(configuration, same_if)
    if same and line["verdict"] != verdict.NOT_MEASURED:
        line.update(verdict=verdict.SAME_CONFIGURATION, why=same)
    line["bottleneck"] = _bottleneck_text(cells_a, cells_b)
    if figure == "msgs_per_s" and _load_saturated(cells_a) and _load_saturated(cells_b):
        note = "the load was saturated in most rounds of both sides: msgs/s measured the load generator"
        line["why"] = f"{line['why']}; {note}" if line.get("why") else note
    return line


def _configuration(cells):
    """{"server": {...}, "client": {...}}: each side's configuration as it ran over its rows (the peak threads,
    the newest of the rest)."""
    found = {}
    for row in cells:
        for role in ("server", "client"):
            if row.get(f"{role}_config"):
                found[role] = process_configuration.merge(found.get(role), row[f"{role}_config"])
    return found


def _same_configuration(configuration, keys):
    """Why the two sides are one configuration, or None: every value of `keys` present on A's server and found
    alike on B's, and on the loads where they report it."""
    if not keys or not configuration:
        return None
    said = []
    for key in keys:
        for role in ("server", "client"):
            a, b = configuration.get(f"a_{role}", {}), configuration.get(f"b_{role}", {})
            if key not in a and key not in b:
                continue
            if a.get(key) is None or a.get(key) != b.get(key):
                return None
            cpus = a.get("cpus")
            said.append(f"{role} {key} {a[key]} on both sides" + (f" ({cpus} CPU{'s' if cpus != 1 else ''} it may "
                                                                  "use)" if cpus else ""))
    if not said:
        return None
    return ("both sides ran the same configuration: " + "; ".join(said)
            + ("; GOMAXPROCS unset follows the CPUs a process may use" if "gomaxprocs" in keys else ""))


def _bottlenecks(cells):
    """The bottleneck of each run of a cell that ran and has one."""
    return [r["bottleneck"] for r in cells if r.get("status") == "ok" and r.get("bottleneck")]


def _load_saturated(cells):
    marks = _bottlenecks(cells)
    return bool(marks) and sum(m in ("load", "both") for m in marks) * 2 > len(marks)


def _bottleneck_text(cells_a, cells_b):
    """"A: load 10/10; B: server 7/10": which side was saturated, in how many rounds of each cell."""
    parts = []
    for side, cells in (("A", cells_a), ("B", cells_b)):
        marks = _bottlenecks(cells)
        if not marks:
            continue
        counts = {m: marks.count(m) for m in ("load", "server", "both", "neither") if m in marks}
        parts.append(f"{side}: " + ", ".join(f"{m} {n}/{len(marks)}" for m, n in counts.items()))
    return "; ".join(parts) or None


def placements_of(rows):
    """The placements the rows ran under, in the order of placement.NAMES; [None] for rows without one."""
    found = [p for p in cpu_placement.NAMES if any(r.get("placement") == p for r in rows)]
    return found or [None]


_fmt = verdict_text.number


def _median_of(rows, figure):
    return medians.median([r.get(figure) for r in rows if r.get("status") == "ok"])


def _span(values):
    """"lowest .. highest" as the tables print numbers; "-" when there are none."""
    values = [v for v in values if v is not None]
    return f"{_fmt(min(values))} .. {_fmt(max(values))}" if values else "-"


def _range_of(rows, figure):
    return _span(r.get(figure) for r in rows if r.get("status") == "ok")


def _failures(rows):
    """The failed runs, once per server, client and error: [{"where", "error", "tail"}]."""
    out, seen = [], set()
    for r in rows:
        if r.get("status") == "ok":
            continue
        key = (r.get("server"), r.get("client"), r.get("error"))
        if key in seen:
            continue
        seen.add(key)
        where = ", ".join(f"{k} {r[k]}" for k in ("client", "server", "scheme", "condition", "procs", "clients")
                          if k in r)
        out.append({"where": where, "error": r.get("error"), "tail": r.get("tail")})
    return out


def _claim(question, text, placement, a, b, figure, higher_is_better, names, same_if=(), headline=False,
           variant=None):
    """One claim of a section before it is judged: `question` groups the lines of one claim (one line per load
    and placement), `headline` marks the write-up's own load and placement."""
    return {"question": question, "text": text, "placement": placement, "a": a, "b": b, "figure": figure,
            "higher_is_better": higher_is_better, "names": names, "same_if": same_if, "headline": headline,
            "variant": variant}


def _cell(cell, placement):
    return {**cell, "placement": placement} if placement is not None else cell


def _judged(claims, rows, fates, stored):
    """The verdict of each claim: computed from the rows, or, re-rendering (`stored`: the verdicts a run
    kept), the stored line of the same cells, figure and placement. A stored line no claim matches keeps its
    own row of the summary."""
    lines, groups, where = [], {}, []
    for claim in claims:
        if "verdict" in claim:  # judged where it was made (not testable here)
            line = ({k: v for k, v in claim.items() if k not in _CLAIM_KEYS} if stored is None else
                    next((s for s in stored if s.get("claim") == claim["text"]), None))
        elif stored is None:
            line = claim_line(claim["text"], rows, fates, claim["a"], claim["b"], claim["figure"],
                              claim["higher_is_better"], names=claim["names"], placement=claim["placement"],
                              same_if=claim["same_if"])
        else:
            a, b = _cell(claim["a"], claim["placement"]), _cell(claim["b"], claim["placement"])
            line = next((s for s in stored if s.get("a") == a and s.get("b") == b
                         and s.get("figure") == claim["figure"]), None)
        if line is None or line in lines:
            continue
        group = groups.setdefault(claim["question"], {"question": claim["question"], "headline": None,
                                                      "others": []})
        if claim["headline"] and group["headline"] is None:
            group["headline"] = len(lines)
        else:
            group["others"].append(len(lines))
        lines.append(line)
        where.append({"placement": claim["placement"], "variant": claim["variant"]})
    for line in stored or []:
        if line not in lines:
            groups[line["claim"]] = {"question": line["claim"], "headline": len(lines), "others": []}
            lines.append(line)
            where.append({"placement": line.get("placement"), "variant": None})
    for group in groups.values():
        if group["headline"] is None:  # the write-up's own placement did not run: the first that did speaks
            group["headline"] = group["others"].pop(0)
    return lines, list(groups.values()), where


_CLAIM_KEYS = ("question", "text", "placement", "a", "b", "figure", "higher_is_better", "names", "same_if",
               "headline", "variant")


def _section(part, title, claim, measured, rows, fates, claims, stored, tables, notes=()):
    """A write-up's section as data: what the renderers (bench/reporting/) show."""
    lines, groups, where = _judged(claims, rows, fates, stored)
    return {"id": part, "kind": "writeup", "title": title, "claim": claim, "measured": measured,
            "placements": [{"name": p, "answers": cpu_placement.ANSWERS[p]} for p in placements_of(rows) if p],
            "verdicts": lines, "claims": groups, "where": where, "tables": tables, "notes": list(notes),
            "failures": _failures(rows), "contestants": fates, "charts": []}


def _table(caption, columns, rows):
    return {"caption": caption, "columns": columns, "rows": rows}


# ------------------------------------------------------------------------------------------------------ echo

def _config_text(cell, role):
    """A side's configuration as it ran, for a table: "2 CPUs, 5 threads, gomaxprocs 2"."""
    config = _configuration(cell).get(role) or {}
    parts = []
    if config.get("cpus") is not None:
        parts.append(f"{config['cpus']} CPU{'s' if config['cpus'] != 1 else ''}")
    if config.get("threads") is not None:
        parts.append(f"{config['threads']} threads")
    parts += [f"{k} {v}" for k, v in config.items() if k not in ("cpus", "threads")]
    return ", ".join(parts) or "-"


def _saturated_text(cell):
    marks = _bottlenecks(cell)
    if not marks:
        return "-"
    top = max(dict.fromkeys(marks), key=marks.count)  # a tie: the first seen, the same on every render
    return f"{top} {marks.count(top)}/{len(marks)}"


ECHO_LOADS = ("go-spammer", "netbench-echo-client")  # the write-up's own load first


def echo_section(rows, fates, settings, stored=None):
    """The echo write-up's section (data: bench/reporting/document.py). `stored`: the verdicts a run kept, for
    re-rendering it; without them they are computed from the rows."""
    servers = list(dict.fromkeys(r["server"] for r in rows))
    clients = list(dict.fromkeys(r["client"] for r in rows))
    claims = []
    for placement in placements_of(rows):
        for load in [c for c in ECHO_LOADS if c in clients] or clients[:1]:
            note = "" if load == "go-spammer" else f" (second load: {load})"
            headline = placement in (None, "shared") and load == ECHO_LOADS[0]
            racket, go = {"server": "racket", "client": load}, {"server": "go", "client": load}
            claims += [
                _claim("Racket beats Go in msgs/s", f"Racket beats Go in msgs/s{note}", placement, racket, go,
                       "msgs_per_s", True, ("racket", "go", load), headline=headline, variant=load),
                _claim("Go with GOMAXPROCS=1 beats Go at its default",
                       f"Go with GOMAXPROCS=1 beats Go at its default{note}", placement,
                       {"server": "go-gomaxprocs1", "client": load}, go, "msgs_per_s", True,
                       ("go-gomaxprocs1", "go", load), same_if=("gomaxprocs",), headline=headline, variant=load),
                # A saturated load hides the servers' speed but not what each spends per message.
                _claim("Racket spends less server CPU per message than Go",
                       f"Racket spends less server CPU per message than Go{note}", placement, racket, go,
                       "server_cpu_us_per_msg", False, ("racket", "go", load), headline=headline, variant=load),
            ]
    table = []
    for placement in placements_of(rows):
        for client in clients:
            for server in servers:
                match = {"server": server, "client": client, **({"placement": placement} if placement else {})}
                cell = _cells(rows, **match)
                ok = sum(1 for r in cell if r.get("status") == "ok")
                table.append([placement or "-", server, client, _fmt(_median_of(cell, "msgs_per_s")),
                              _range_of(cell, "msgs_per_s"), _fmt(_median_of(cell, "server_cpu_us_per_msg")),
                              _fmt(_median_of(cell, "client_cpu_us_per_msg")),
                              _fmt(_median_of(cell, "tcp_segs_per_msg")), _config_text(cell, "server"),
                              _saturated_text(cell), f"{ok}/{len(cell)}"])
    columns = ["placement", "server", "load", "msgs/s", "msgs/s per round", "server CPU us/msg",
               "client CPU us/msg", "segments/msg", "server as it ran", "saturated", "runs ok"]
    measured = (f"{settings['clients']} connections writing 22-byte messages for {settings['seconds']:g} s per run "
                f"(not 180 s), {settings['samples']} interleaved rounds, every server under every load, in each "
                "placement. A = the first system named, B = Go at its default.")
    caption = ("Medians over rounds; CPU per message written, the scheduler's exact run time of each whole "
               "process; the server's configuration read from the running process.")
    return _section("echo", "Echo: does Racket beat Go?", ECHO_CLAIM, measured, rows, fates, claims, stored,
                    [_table(caption, columns, table)])


# ------------------------------------------------------------------------------------------------- websocket

def _grid(caption, rows, server, client, cell_text, procs, connections, placement=None):
    """The write-up's table: rows clients, columns GOMAXPROCS (or event loops); a column with more threads than
    the CPUs either side may use is marked oversubscribed."""
    where = {"placement": placement} if placement else {}
    header = []
    for p in procs:
        cell = _cells(rows, server=server, client=client, procs=p, **where)
        cpus = [c.get("cpus") for r in cell for c in (r.get("server_config") or {}, r.get("client_config") or {})
                if c.get("cpus")]
        header.append(f"{p} (oversubscribed)" if cpus and p > min(cpus) else str(p))
    body = [[str(n)] + [cell_text(_cells(rows, server=server, client=client, procs=p, clients=n, **where))
                        for p in procs] for n in connections]
    return _table(caption, ["clients \\ procs"] + header, body)


def _msgs_cell(cell):
    return _fmt(_median_of(cell, "msgs_per_s"))


def _cpu_cell(cell):
    server, client = _median_of(cell, "server_cpu_us_per_msg"), _median_of(cell, "client_cpu_us_per_msg")
    return "-" if server is None and client is None else f"{_fmt(server)} / {_fmt(client)}"


def websocket_section(rows, fates, settings, stored=None):
    """The websocket write-up's section (data); `stored` as for echo_section."""
    procs = sorted({r["procs"] for r in rows}) or [1, 2, 3, 4]
    connections = sorted({r["clients"] for r in rows}) or [1, 4]
    pairs = list(dict.fromkeys((r["server"], r["client"]) for r in rows))
    go = {"server": "go-xnet", "client": "go-xnet-client"}
    names = ("go-xnet", "go-xnet-client")
    question = "Linux: Go at GOMAXPROCS=2 beats GOMAXPROCS=1"
    claims = []
    for placement in placements_of(rows):
        for n in connections:
            claims.append(_claim(question, f"{question} ({n} client{'s' if n > 1 else ''})", placement,
                                 {**go, "procs": 2, "clients": n}, {**go, "procs": 1, "clients": n}, "msgs_per_s",
                                 True, names, same_if=("gomaxprocs",),
                                 headline=placement in (None, "shared") and n == max(connections),
                                 variant=f"{n} client{'s' if n > 1 else ''}"))
    cores = os.cpu_count() or 1
    command = "bazel run //:bench -- --only=websocket"
    four = "Linux: Go at GOMAXPROCS=4 beats GOMAXPROCS=1 (4 clients; 233k to 571k)"
    if cores >= 4:
        claims.append(_claim(four, four, None, {**go, "procs": 4, "clients": 4}, {**go, "procs": 1, "clients": 4},
                             "msgs_per_s", True, names, headline=True))
    else:
        claims.append({**_claim(four, four, None, None, None, None, True, names, headline=True), "claim": four,
                       **verdict.not_testable(f"needs 4 cores, this machine has {cores} (columns 3 and 4 are "
                                              "oversubscribed here, like the write-up's dual-core FreeBSD rows)",
                                              command + " (on a machine of 4 or more cores)")})
    peers = ("bazel build //contestants/go:all; GOMAXPROCS=N bazel-bin/contestants/go/xnet_server -addr "
             "127.0.0.1:8080 & GOMAXPROCS=N bazel-bin/contestants/go/xnet_client 4 100000, N = 1 and 2")
    for text, why in (("macOS: Go loses about 100k msgs/s at GOMAXPROCS=2", "needs macOS (this is "
                       + os.uname().sysname + ")"), ("FreeBSD, two cores: the write-up's rows", "needs FreeBSD")):
        claims.append({**_claim(text, text, None, None, None, None, True, (), headline=True), "claim": text,
                       **verdict.not_testable(why, peers)})
    tables = []
    for placement in placements_of(rows):
        for server, client in pairs:
            where = f" ({placement})" if placement else ""
            tables.append(_grid(f"{client} against {server}{where}, msgs/s (medians)", rows, server, client,
                                _msgs_cell, procs, connections, placement))
            tables.append(_grid(f"{client} against {server}{where}, CPU per message, server / client (us)", rows,
                                server, client, _cpu_cell, procs, connections, placement))
    measured = (f"{settings['messages']:,} \"hello, world!\" text messages per client to a sink server, "
                f"{settings['samples']} interleaved rounds; each table has the write-up's shape (rows: clients, "
                "columns: GOMAXPROCS, or netbench's event loops, set alike on both sides), in each placement; a "
                "column whose threads exceed the CPUs a side may use is marked oversubscribed.")
    return _section("websocket", "WebSocket: does GOMAXPROCS=2 cost Go 100k msgs/s?", WEBSOCKET_CLAIM, measured,
                    rows, fates, claims, stored, tables)


# ---------------------------------------------------------------------------------------------------- fanout

# The cells the fan-out's claims compare: all that its split placement runs (suite.py).
FANOUT_CLAIM_SERVERS = ("origin-50ms",)
FANOUT_CLAIM_CLIENTS = ("jvm", "go")

# Each condition's short name, for the summary (in the order of FANOUT_CONDITIONS).
FANOUT_CONDITION_NAMES = ("as written up", "both fresh", "both reusing")

FANOUT_CONDITIONS = (
    ("as written up: JVM keeping its connections (criterium), Go fresh (go test -bench)", "reuse", "fresh"),
    ("both fresh: new connections and TLS sessions every repetition", "fresh", "fresh"),
    ("both keeping connections between repetitions", "reuse", "reuse"),
)


def fanout_section(rows, fates, settings, stored=None):
    """The fan-out write-up's section (data); `stored` as for echo_section."""
    question = "JVM faster than Go fetching 500 URLs (origin 50 ms)"
    claims = []
    for placement in placements_of(rows):
        for scheme in ("http", "https"):
            for index, (text, jvm_condition, go_condition) in enumerate(FANOUT_CONDITIONS):
                claims.append(_claim(
                    question, f"JVM faster than Go, {scheme}, origin 50 ms; {text}", placement,
                    {"server": FANOUT_CLAIM_SERVERS[0], "scheme": scheme, "client": "jvm", "condition": jvm_condition},
                    {"server": FANOUT_CLAIM_SERVERS[0], "scheme": scheme, "client": "go", "condition": go_condition},
                    "walls_s", False, ("jvm", "go", "origin-50ms"),
                    headline=placement in (None, "shared") and scheme == "http" and index == 0,
                    variant=f"{scheme}, {FANOUT_CONDITION_NAMES[index]}"))
    table = []
    for key in dict.fromkeys((r.get("placement"), r["server"], r["scheme"], r["client"], r["condition"])
                             for r in rows):
        where = {"placement": key[0]} if key[0] else {}
        cell = _cells(rows, server=key[1], scheme=key[2], client=key[3], condition=key[4], **where)
        _, rounds = _samples(cell, "walls_s")
        ok = sum(1 for r in cell if r.get("status") == "ok")
        table.append([key[0] or "-", key[1], key[2], key[3], key[4], _fmt(_median_of(cell, "wall_s_median")),
                      _span(rounds.values()), _fmt(_median_of(cell, "client_cpu_us_per_req")),
                      _fmt(_median_of(cell, "server_cpu_us_per_req")), _saturated_text(cell), f"{ok}/{len(cell)}"])
    columns = ["placement", "server", "scheme", "client", "condition", "wall s (median)", "per round",
               "client CPU us/req", "server CPU us/req", "saturated", "runs ok"]
    measured = (f"{settings['requests']} concurrent GETs of a 25,600-byte page per repetition, {settings['reps']} "
                f"timed repetitions per run after {settings['warmup']} untimed ones (for the clients that take "
                f"them: the JVM, to warm its JIT, and netbench), {settings['samples']} interleaved rounds; a "
                "verdict pairs each round's median repetition with the other side's in the same round. The "
                "write-up fetched a remote site, so the origin answering after 50 ms is its faithful copy; the two "
                "sides of the write-up did not run alike, so each condition is judged. https clients skip "
                "certificate verification alike.")
    caption = ("Client CPU per request includes each process's start-up: the JVM's class loading and JIT, and its "
               "warm-up repetitions.")
    return _section("fanout", "Fan-out: does the JVM fetch 500 URLs faster than Go?", FANOUT_CLAIM, measured, rows,
                    fates, claims, stored, [_table(caption, columns, table)])


# Each write-up's section builder, by part.
SECTIONS = {"echo": echo_section, "websocket": websocket_section, "fanout": fanout_section}
