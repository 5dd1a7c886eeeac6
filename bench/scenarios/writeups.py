"""The three public write-ups netbench settles: each one's claim with its own numbers, the tables it printed
rebuilt from this run's rows (bench/scenarios/scenarios.py), and one computed verdict per claim (bench/analysis/verdict.py).

    section = writeups.echo_section(rows, fates, env)   # {"title", "verdicts", "markdown"}

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


def placements_text(rows):
    """One sentence per placement of the rows: what it answers."""
    found = [p for p in placements_of(rows) if p]
    if not found:
        return ""
    return "".join(f"- **{p}**: {cpu_placement.ANSWERS[p]}.\n" for p in found) + "\n"


def _fmt(x, digits=3):
    if x is None:
        return "-"
    x = float(x)
    return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:,.0f}"


def _ratio_interval(line):
    """The paired ratio A/B with its 95% interval, "1.31 (1.28 .. 1.35)"; the ratio of medians where nothing
    paired."""
    if line.get("ci95"):
        low, high = line["ci95"]
        return f"{_fmt(line['geomean_ratio'])} ({low:.3f} .. {high:.3f})"
    return f"{_fmt(line['ratio'])} (of medians)" if line.get("ratio") is not None else "-"


def _detectable(line):
    return f"> {line['detectable_pct']:.2g}%" if line.get("detectable_pct") is not None else "-"


VERDICT_RULE = ("Ratio: the geometric mean of the per-round ratios A/B, with a 95% t interval on their logs "
                "(bench/analysis/verdict.py): **holds** or **reversed** when it excludes 1, **equivalent within ±2%** "
                "when it lies inside 0.98 .. 1.02, else **not separable on this machine**; **same configuration "
                "here** when both sides ran the same effective configuration (read from the running processes), "
                "which is no experiment. p: a sign-flip test of the same ratios, a check (n rounds cannot go "
                "below 2 / 2^n). Could detect: differences above it would have been seen at 80% power. "
                "Saturated: per round, the side whose CPU time reached 90% of wall time x the CPUs it may use "
                "(load, server, both, neither).\n")


def verdict_table(lines):
    out = ["| claim | measured here (A vs B, medians) | ratio A/B (95% CI) | per round | p (sign flip) | "
           "could detect | saturated (rounds) | verdict |", "|---|---|---|---|---|---|---|---|"]
    for line in lines:
        if line["verdict"] == verdict.NOT_TESTABLE:
            out.append(f"| {line['claim']} | - | - | - | - | - | - | **{line['verdict']}**: {line['why']}; there: "
                       f"`{line['command']}` |")
            continue
        measured = f"{_fmt(line.get('median_a'))} vs {_fmt(line.get('median_b'))}"
        rounds = _span([line.get("per_round_min"), line.get("per_round_max")])
        if line.get("test") == verdict.U_TEST:  # under two rounds to pair: the pooled test decided
            p = f"{_fmt(line.get('p_value'), 2)} (U test)"
        else:
            p = _fmt(line.get("sign_flip_p"), 2)
        settled = (verdict.HOLDS, verdict.REVERSED, verdict.EQUIVALENT)  # the interval says why
        why = f" ({line['why']})" if line.get("why") and line["verdict"] not in settled else ""
        out.append(f"| {line['claim']} | {measured} | {_ratio_interval(line)} | {rounds} | {p} | "
                   f"{_detectable(line)} | {line.get('bottleneck') or '-'} | **{line['verdict']}**{why} |")
    return "\n".join(out) + "\n\n" + VERDICT_RULE


def fates_table(fates):
    lines = ["| contestant | role | status | version / why | command |", "|---|---|---|---|---|"]
    for fate in fates:
        detail = fate.get("version") if fate["status"] == "ran" else fate.get("why", "")
        env = " ".join(f"{k}={v}" for k, v in fate.get("env", {}).items())
        lines.append(f"| {fate['name']} | {fate['role']} | {fate['status']} | {detail or '-'} | "
                     f"`{(env + ' ' if env else '') + fate['command']}` |")
    out = "\n".join(lines) + "\n"
    for fate in fates:
        if fate.get("tail"):
            out += f"\n{fate['name']} printed last:\n```\n{fate['tail']}\n```\n"
    return out


def _median_of(rows, figure):
    return medians.median([r.get(figure) for r in rows if r.get("status") == "ok"])


def _span(values):
    """"lowest .. highest" as the tables print numbers; "-" when there are none."""
    values = [v for v in values if v is not None]
    return f"{_fmt(min(values))} .. {_fmt(max(values))}" if values else "-"


def _range_of(rows, figure):
    return _span(r.get(figure) for r in rows if r.get("status") == "ok")


def _failures(rows):
    failed = [r for r in rows if r.get("status") != "ok"]
    if not failed:
        return ""
    out = "\nFailed runs (every other row ran):\n\n"
    seen = set()
    for r in failed:
        key = (r.get("server"), r.get("client"), r.get("error"))
        if key in seen:
            continue
        seen.add(key)
        where = ", ".join(f"{k} {r[k]}" for k in ("client", "server", "scheme", "condition", "procs", "clients")
                          if k in r)
        out += f"- {where}: {r.get('error')}\n"
        if r.get("tail"):
            out += "  ```\n" + "\n".join("  " + line for line in r["tail"].splitlines()) + "\n  ```\n"
    return out


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
    top = max(set(marks), key=marks.count)
    return f"{top} {marks.count(top)}/{len(marks)}"


def echo_section(rows, fates, settings):
    servers = list(dict.fromkeys(r["server"] for r in rows))
    clients = list(dict.fromkeys(r["client"] for r in rows))
    lines = []
    for placement in placements_of(rows):
        for load in [c for c in ("go-spammer", "netbench-echo-client") if c in clients] or clients[:1]:
            note = "" if load == "go-spammer" else f" (second load: {load})"
            lines.append(claim_line(f"Racket beats Go in msgs/s{note}", rows, fates,
                                    {"server": "racket", "client": load}, {"server": "go", "client": load},
                                    "msgs_per_s", True, names=("racket", "go", load), placement=placement))
            lines.append(claim_line(f"Go with GOMAXPROCS=1 beats Go at its default{note}", rows, fates,
                                    {"server": "go-gomaxprocs1", "client": load}, {"server": "go", "client": load},
                                    "msgs_per_s", True, names=("go-gomaxprocs1", "go", load), placement=placement,
                                    same_if=("gomaxprocs",)))
            # A saturated load hides the servers' speed but not what each spends per message.
            lines.append(claim_line(f"Racket spends less server CPU per message than Go{note}", rows, fates,
                                    {"server": "racket", "client": load}, {"server": "go", "client": load},
                                    "server_cpu_us_per_msg", False, names=("racket", "go", load),
                                    placement=placement))
    table = ["| placement | server | load | msgs/s | msgs/s per round | server CPU us/msg | client CPU us/msg | "
             "segments/msg | server as it ran | saturated | runs ok |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for placement in placements_of(rows):
        for client in clients:
            for server in servers:
                match = {"server": server, "client": client, **({"placement": placement} if placement else {})}
                cell = _cells(rows, **match)
                ok = sum(1 for r in cell if r.get("status") == "ok")
                table.append(f"| {placement or '-'} | {server} | {client} | {_fmt(_median_of(cell, 'msgs_per_s'))} | "
                             f"{_range_of(cell, 'msgs_per_s')} | "
                             f"{_fmt(_median_of(cell, 'server_cpu_us_per_msg'))} | "
                             f"{_fmt(_median_of(cell, 'client_cpu_us_per_msg'))} | "
                             f"{_fmt(_median_of(cell, 'tcp_segs_per_msg'))} | {_config_text(cell, 'server')} | "
                             f"{_saturated_text(cell)} | {ok}/{len(cell)} |")
    markdown = (f"## 1. Echo: does Racket beat Go?\n\n> {ECHO_CLAIM}\n\n"
                f"Measured here: {settings['clients']} connections writing 22-byte messages for "
                f"{settings['seconds']:g} s per run (not 180 s), {settings['samples']} interleaved rounds, every "
                "server under every load, in each placement. A = the first system named, B = Go at its default.\n\n"
                + placements_text(rows) + verdict_table(lines) + "\nThe table behind it (medians over rounds; CPU "
                "per message written, the scheduler's exact run time of each whole process; the server's "
                "configuration read from the running process):\n\n" + "\n".join(table) + "\n"
                + _failures(rows) + "\nContestants:\n\n" + fates_table(fates))
    return {"title": "echo", "verdicts": lines, "markdown": markdown}


# ------------------------------------------------------------------------------------------------- websocket

def _grid(rows, server, client, cell_text, procs, connections, placement=None):
    """The write-up's table: rows clients, columns GOMAXPROCS (or event loops); a column with more threads than
    the CPUs either side may use is marked oversubscribed."""
    where = {"placement": placement} if placement else {}
    header = []
    for p in procs:
        cell = _cells(rows, server=server, client=client, procs=p, **where)
        cpus = [c.get("cpus") for r in cell for c in (r.get("server_config") or {}, r.get("client_config") or {})
                if c.get("cpus")]
        header.append(f"{p} (oversubscribed)" if cpus and p > min(cpus) else str(p))
    out = ["| clients \\ procs | " + " | ".join(header) + " |", "|---|" + "---|" * len(procs)]
    for n in connections:
        cells = [cell_text(_cells(rows, server=server, client=client, procs=p, clients=n, **where)) for p in procs]
        out.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def _msgs_cell(cell):
    return _fmt(_median_of(cell, "msgs_per_s"))


def _cpu_cell(cell):
    server, client = _median_of(cell, "server_cpu_us_per_msg"), _median_of(cell, "client_cpu_us_per_msg")
    return "-" if server is None and client is None else f"{_fmt(server)} / {_fmt(client)}"


def websocket_section(rows, fates, settings):
    procs = sorted({r["procs"] for r in rows}) or [1, 2, 3, 4]
    connections = sorted({r["clients"] for r in rows}) or [1, 4]
    pairs = list(dict.fromkeys((r["server"], r["client"]) for r in rows))
    go = {"server": "go-xnet", "client": "go-xnet-client"}
    lines = []
    for placement in placements_of(rows):
        for n in connections:
            lines.append(claim_line(f"Linux: Go at GOMAXPROCS=2 beats GOMAXPROCS=1 ({n} client{'s' if n > 1 else ''})",
                                    rows, fates, {**go, "procs": 2, "clients": n}, {**go, "procs": 1, "clients": n},
                                    "msgs_per_s", True, names=("go-xnet", "go-xnet-client"), placement=placement,
                                    same_if=("gomaxprocs",)))
    cores = os.cpu_count() or 1
    command = "bazel run //:bench -- --only=websocket"
    if cores >= 4:
        lines.append(claim_line("Linux: Go at GOMAXPROCS=4 beats GOMAXPROCS=1 (4 clients; 233k to 571k)", rows,
                                fates, {**go, "procs": 4, "clients": 4}, {**go, "procs": 1, "clients": 4},
                                "msgs_per_s", True, names=("go-xnet", "go-xnet-client")))
    else:
        lines.append({"claim": "Linux: Go at GOMAXPROCS=4 beats GOMAXPROCS=1 (4 clients; 233k to 571k)",
                      **verdict.not_testable(f"needs 4 cores, this machine has {cores} (columns 3 and 4 are "
                                             "oversubscribed here, like the write-up's dual-core FreeBSD rows)",
                                             command + " (on a machine of 4 or more cores)")})
    peers = ("bazel build //contestants/go:all; GOMAXPROCS=N bazel-bin/contestants/go/xnet_server -addr "
             "127.0.0.1:8080 & GOMAXPROCS=N bazel-bin/contestants/go/xnet_client 4 100000, N = 1 and 2")
    lines.append({"claim": "macOS: Go loses about 100k msgs/s at GOMAXPROCS=2",
                  **verdict.not_testable("needs macOS (this is " + os.uname().sysname + ")", peers)})
    lines.append({"claim": "FreeBSD, two cores: the write-up's rows",
                  **verdict.not_testable("needs FreeBSD", peers)})
    grids = ""
    for placement in placements_of(rows):
        for server, client in pairs:
            grids += (f"\n**{client} against {server}**{f' ({placement})' if placement else ''}, msgs/s (medians):"
                      "\n\n" + _grid(rows, server, client, _msgs_cell, procs, connections, placement)
                      + "\nCPU per message, server / client (us):\n\n"
                      + _grid(rows, server, client, _cpu_cell, procs, connections, placement))
    markdown = (f"## 2. WebSocket: does GOMAXPROCS=2 cost Go 100k msgs/s?\n\n> {WEBSOCKET_CLAIM}\n\n"
                f"Measured here: {settings['messages']:,} \"hello, world!\" text messages per client to a sink "
                f"server, {settings['samples']} interleaved rounds; each table has the write-up's shape (rows: "
                "clients, columns: GOMAXPROCS, or netbench's event loops, set alike on both sides), in each placement; "
                "a column whose threads exceed the CPUs a side may use is marked oversubscribed.\n\n"
                + placements_text(rows) + verdict_table(lines) + grids
                + _failures(rows) + "\nContestants:\n\n" + fates_table(fates))
    return {"title": "websocket", "verdicts": lines, "markdown": markdown}


# ---------------------------------------------------------------------------------------------------- fanout

# The cells the fan-out's claims compare: all that its split placement runs (suite.py).
FANOUT_CLAIM_SERVERS = ("origin-50ms",)
# The JVM sides, each judged against Go: the write-up's side first (a client built the way http-kit's is),
# then the JDK's HttpClient as a careful user configures it and as netbench ran it before.
FANOUT_JVM_CLIENTS = (
    ("jvm", "the http-kit-design client"),
    ("jdk-tuned", "the JDK client (fixed executor)"),
    ("jdk-default", "the JDK client (default executor)"),
)
FANOUT_CLAIM_CLIENTS = tuple(name for name, _ in FANOUT_JVM_CLIENTS) + ("go", "go-keep")

# (what is compared, the JVM side's condition, Go's client and condition). Warm means every connection kept:
# net/http's own -reuse keeps 2 per host, so Go's warm side is go-keep.
FANOUT_CONDITIONS = (
    ("as written up: the JVM keeping its connections (criterium), Go fresh (go test -bench)", "reuse", "go",
     "fresh"),
    ("cold against cold: new connections and TLS sessions every repetition", "fresh", "go", "fresh"),
    ("warm against warm: every connection kept by both", "reuse", "go-keep", "reuse"),
)


def fanout_section(rows, fates, settings):
    lines, summary = [], {}
    for placement in placements_of(rows):
        for jvm_client, jvm_text in FANOUT_JVM_CLIENTS:
            for scheme in ("http", "https"):
                for text, jvm_condition, go_client, go_condition in FANOUT_CONDITIONS:
                    lines.append(claim_line(
                        f"JVM ({jvm_text}) faster than Go, {scheme}, origin 50 ms; {text}", rows, fates,
                        {"server": FANOUT_CLAIM_SERVERS[0], "scheme": scheme, "client": jvm_client,
                         "condition": jvm_condition},
                        {"server": FANOUT_CLAIM_SERVERS[0], "scheme": scheme, "client": go_client,
                         "condition": go_condition},
                        "walls_s", False, names=(jvm_client, go_client, FANOUT_CLAIM_SERVERS[0]),
                        placement=placement))
                    where = f"{placement}, {scheme}" if placement else scheme
                    summary.setdefault(lines[-1]["verdict"], []).append(
                        f"{text.split(':')[0]} ({jvm_client}, {where})")
    table = ["| placement | server | scheme | client | condition | wall s (median) | per round | client CPU us/req, "
             "timed reps | client CPU us/req, whole process | server CPU us/req | saturated | runs ok |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in dict.fromkeys((r.get("placement"), r["server"], r["scheme"], r["client"], r["condition"])
                             for r in rows):
        where = {"placement": key[0]} if key[0] else {}
        cell = _cells(rows, server=key[1], scheme=key[2], client=key[3], condition=key[4], **where)
        _, rounds = _samples(cell, "walls_s")
        ok = sum(1 for r in cell if r.get("status") == "ok")
        per_round = _span(rounds.values())
        table.append(f"| {key[0] or '-'} | {key[1]} | {key[2]} | {key[3]} | {key[4]} | "
                     f"{_fmt(_median_of(cell, 'wall_s_median'))} | {per_round} | "
                     f"{_fmt(_median_of(cell, 'client_rep_cpu_us_per_req'))} | "
                     f"{_fmt(_median_of(cell, 'client_cpu_us_per_req'))} | "
                     f"{_fmt(_median_of(cell, 'server_cpu_us_per_req'))} | {_saturated_text(cell)} | {ok}/{len(cell)} |")
    markdown = (f"## 3. Fan-out: does the JVM fetch 500 URLs faster than Go?\n\n> {FANOUT_CLAIM}\n\n"
                f"Measured here: {settings['requests']} concurrent GETs of a 25,600-byte page per repetition, "
                f"{settings['reps']} timed repetitions per run after {settings['warmup']} untimed ones (for the "
                f"clients that take them: the JVM clients, to warm the JIT, and more until 5 s have passed, as "
                f"criterium runs code for 10 s before it times it; go-keep, to fill its pool; and netbench), {settings['samples']} "
                "interleaved rounds; a verdict pairs each round's median repetition with the other side's in the "
                "same round. The write-up fetched a remote site, so the origin answering after 50 ms is its "
                "faithful copy; the two sides of the write-up did not run alike, so each condition is judged, "
                "for each JVM client against Go: cold (new connections every repetition), warm (every connection "
                "kept: go-keep, whose transport keeps as many idle connections as it makes requests; net/http's "
                "default keeps 2 per host, Go's `reuse` row) and as written up (the JVM warm after criterium's "
                "warm-up, Go cold). The write-up's JVM side is `jvm`, a client built the way http-kit's is "
                "(contestants/clojure/README.md); `jdk-tuned` and `jdk-default` are the JDK's HttpClient with a fixed "
                "executor and with its default one. https clients skip certificate verification alike.\n\n" + placements_text(rows) + verdict_table(lines)
                + "\n"
                + "".join(f"- **{v}** under: {', '.join(names)}\n" for v, names in summary.items())
                + "\nThe table behind it. Client CPU per request is shown twice: over the timed repetitions, as "
                "each client measured its own process's CPU time during each (curl prints none), and over the "
                "whole process, start-up (the JVM's class loading and JIT) and warm-up repetitions included:\n\n" + "\n".join(table) + "\n"
                + _failures(rows) + "\nContestants:\n\n" + fates_table(fates))
    return {"title": "fanout", "verdicts": lines, "markdown": markdown}
