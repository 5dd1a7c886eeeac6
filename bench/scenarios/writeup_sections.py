"""The three public write-ups' sections: the tables each printed, rebuilt from this run's rows
(writeup_cases.py), beside one computed verdict per claim (judging.py). Each write-up's quote, loads and claims
are data (bench/registry/writeups/*.toml, read by claim_files.py for writeup_definitions.py).

    section = writeup_sections.echo_section(rows, fates, settings, claims, quote)          # data
    section = writeup_sections.echo_section(rows, fates, settings, claims, quote, stored)  # from kept verdicts

A section is data (bench/reporting/document.py says its fields), rendered by bench/reporting/markdown.py and
html_report.py; each claim's lines (one per load and placement) are grouped under its question, the write-up's own
load and placement its headline.
"""

from bench.design.judging import _cells, _configuration, _samples, placements_of, sequential_options
from bench.scenarios.section_parts import (_fmt, _median_of, _range_of, _run_length_notes, _saturated_text, _span,
                                           _table, rounds_text, section_of)

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


def echo_section(rows, fates, settings, claims, quote, stored=None):
    """The echo write-up's section (data: bench/reporting/document.py); `claims` are writeup_definitions.py's,
    `quote` the write-up's own words, `stored` the verdicts a run kept, for re-rendering it (without them they
    are computed from the rows)."""
    servers = list(dict.fromkeys(r["server"] for r in rows))
    clients = list(dict.fromkeys(r["client"] for r in rows))
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
    as_written = "(the write-up's own length)" if settings['seconds'] == 180 else "(the write-up: 180 s)"
    measured = (f"{settings['clients']} connections writing 22-byte messages for {settings['seconds']:g} s per run "
                f"{as_written}, {rounds_text(settings)}, every server under every load, in each "
                "placement. A = the first system named, B = Go at its default"
                + ("; msgs/s judged over each run's steady state." if any(r.get("steady") for r in rows) else "."))
    caption = ("Medians over rounds; CPU per message written, the scheduler's exact run time of each whole "
               "process; the server's configuration read from the running process.")
    head = {"id": "echo", "title": "Echo: does Racket beat Go?", "claim": quote, "measured": measured,
            "options": sequential_options(settings), "notes": _run_length_notes(settings, settings["seconds"])}
    return section_of(head, rows, fates, claims, stored, [_table(caption, columns, table)])


# ------------------------------------------------------------------------------------------------- websocket

def _grid(caption, grid, cell_text):
    """The write-up's table: rows clients, columns GOMAXPROCS (or event loops); a column with more threads than
    the CPUs either side may use is marked oversubscribed. `grid`: the rows, the (server, client) pair, the procs
    and connections of the columns and rows, and the placement (or None)."""
    rows, (server, client) = grid["rows"], grid["pair"]
    procs, connections, placement = grid["procs"], grid["connections"], grid["placement"]
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


def websocket_section(rows, fates, settings, claims, quote, stored=None):
    """The websocket write-up's section (data); `claims`, `quote` and `stored` as for echo_section."""
    procs = sorted({r["procs"] for r in rows}) or [1, 2, 3, 4]
    connections = sorted({r["clients"] for r in rows}) or [1, 4]
    pairs = list(dict.fromkeys((r["server"], r["client"]) for r in rows))
    tables = []
    for placement in placements_of(rows):
        for server, client in pairs:
            where = f" ({placement})" if placement else ""
            grid = {"rows": rows, "pair": (server, client), "procs": procs, "connections": connections,
                    "placement": placement}
            tables.append(_grid(f"{client} against {server}{where}, msgs/s (medians)", grid, _msgs_cell))
            tables.append(_grid(f"{client} against {server}{where}, CPU per message, server / client (us)", grid,
                                _cpu_cell))
    measured = (f"{settings['messages']:,} \"hello, world!\" text messages per client to a sink server, "
                f"{rounds_text(settings)}; each table has the write-up's shape (rows: clients, "
                "columns: GOMAXPROCS, or netbench's event loops, set alike on both sides), in each placement; a "
                "column whose threads exceed the CPUs a side may use is marked oversubscribed.")
    head = {"id": "websocket", "title": "WebSocket: does GOMAXPROCS=2 cost Go 100k msgs/s?",
            "claim": quote, "measured": measured, "options": sequential_options(settings),
            "notes": _run_length_notes(settings, settings["messages"])}
    return section_of(head, rows, fates, claims, stored, tables)


# ---------------------------------------------------------------------------------------------------- fanout

# The JVM sides: the write-up's first (a client built the way http-kit's is), then the JDK's HttpClient as a
# careful user configures it and as netbench ran it before. The write-up's side is judged against Go in every
# condition and placement; the JDK clients are measured beside it, in the table (each JVM run costs 8-20 s of
# start and warm-up, and judging all three would take half of the main job's budget before its echo and
# websocket claims start).
FANOUT_JVM_CLIENTS = (
    ("jvm", "the http-kit-design client"),
    ("jdk-tuned", "the JDK client (fixed executor)"),
    ("jdk-default", "the JDK client (default executor)"),
)
FANOUT_JUDGED_JVM_CLIENTS = FANOUT_JVM_CLIENTS[:1]

# (what is compared, the JVM side's condition, Go's client and condition). Warm means every connection kept:
# net/http's own -reuse keeps 2 per host, so Go's warm side is go-keep.
FANOUT_CONDITIONS = (
    ("as written up: the JVM keeping its connections (criterium), Go fresh (go test -bench)", "reuse", "go",
     "fresh"),
    ("cold against cold: new connections and TLS sessions every repetition", "fresh", "go", "fresh"),
    ("warm against warm: every connection kept by both", "reuse", "go-keep", "reuse"),
)
# Each condition's short name, for the summary (in the order of FANOUT_CONDITIONS).
FANOUT_CONDITION_NAMES = ("as written up", "cold", "warm")


def fanout_section(rows, fates, settings, claims, quote, stored=None):
    """The fan-out write-up's section (data); `claims`, `quote` and `stored` as for echo_section."""
    table = []
    for key in dict.fromkeys((r.get("placement"), r["server"], r["scheme"], r["client"], r["condition"])
                             for r in rows):
        where = {"placement": key[0]} if key[0] else {}
        cell = _cells(rows, server=key[1], scheme=key[2], client=key[3], condition=key[4], **where)
        _, rounds = _samples(cell, "walls_s")
        ok = sum(1 for r in cell if r.get("status") == "ok")
        table.append([key[0] or "-", key[1], key[2], key[3], key[4], _fmt(_median_of(cell, "wall_s_median")),
                      _span(rounds.values()), _fmt(_median_of(cell, "client_rep_cpu_us_per_req")),
                      _fmt(_median_of(cell, "client_cpu_us_per_req")), _fmt(_median_of(cell, "server_cpu_us_per_req")),
                      _saturated_text(cell), f"{ok}/{len(cell)}"])
    columns = ["placement", "server", "scheme", "client", "condition", "wall s (median)", "per round",
               "client CPU us/req, timed reps", "client CPU us/req, whole process", "server CPU us/req", "saturated",
               "runs ok"]
    measured = (f"{settings['requests']} concurrent GETs of a 25,600-byte page per repetition, {settings['reps']} "
                f"timed repetitions per run after {settings['warmup']} untimed ones (for the clients that take "
                f"them: the JVM clients, to warm the JIT, and more until {settings.get('warmup_seconds', 5):g} s have "
                "passed, as criterium runs code for 10 s before it times it; go-keep, to fill its pool; and netbench), "
                f"{rounds_text(settings)}; a verdict "
                "pairs each round's median repetition with the other side's in the same round. The write-up fetched "
                "a remote site, so the origin answering after 50 ms is its faithful copy; the two sides of the "
                "write-up did not run alike, so each condition is judged, for each JVM client against Go: cold (new "
                "connections every repetition), warm (every connection kept: go-keep, whose transport keeps as many "
                "idle connections as it makes requests; net/http's default keeps 2 per host, Go's `reuse` row) and "
                "as written up (the JVM warm after criterium's warm-up, Go cold). The write-up's JVM side is `jvm`, a "
                "client built the way http-kit's is (contestants/clojure/README.md); `jdk-tuned` and `jdk-default` "
                "are the JDK's HttpClient with a fixed executor and with its default one. https clients skip "
                "certificate verification alike.")
    caption = ("Client CPU per request twice: over the timed repetitions, as each client measured its own process's "
               "CPU time during each (curl prints none), and over the whole process, start-up (the JVM's class "
               "loading and JIT) and warm-up repetitions included.")
    head = {"id": "fanout", "title": "Fan-out: does the JVM fetch 500 URLs faster than Go?", "claim": quote,
            "measured": measured, "options": sequential_options(settings)}
    return section_of(head, rows, fates, claims, stored, [_table(caption, columns, table)])
