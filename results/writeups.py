"""The three public write-ups netbench settles: each one's claim with its own numbers, the tables it printed
rebuilt from this run's rows (results/scenarios.py), and one computed verdict per claim (results/verdict.py).

    section = writeups.echo_section(rows, fates, env)   # {"title", "verdicts", "markdown"}

A claim line compares two cells of a table ("racket under go-spammer" vs "go under go-spammer"); its samples
are that cell's rows, one per round. A cell whose contestant is missing here gives "not measured" with the
reason; a claim about another operating system or more cores gives "not testable here" with the command to
run there. Nothing in a verdict is written by hand.
"""

import os
import statistics

import medians
import verdict

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


def claim_line(text, rows, fates, a, b, figure, higher_is_better, names=()):
    """One claim's verdict: cell `a` beats cell `b` on `figure` (cells are dicts of row fields)."""
    samples_a, rounds_a = _samples(_cells(rows, **a), figure)
    samples_b, rounds_b = _samples(_cells(rows, **b), figure)
    judged = verdict.judge(samples_a, samples_b, rounds_a, rounds_b, higher_is_better,
                           why_missing=_why_missing(fates, *names))
    return {"claim": text, "figure": figure, "a": a, "b": b, **judged}


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
                "(results/verdict.py): **holds** or **reversed** when it excludes 1, **equivalent within ±2%** "
                "when it lies inside 0.98 .. 1.02, else **not separable on this machine**. p: a sign-flip test of "
                "the same ratios, a check (n rounds cannot go below 2 / 2^n). Could detect: differences above it "
                "would have been seen at 80% power.\n")


def verdict_table(lines):
    out = ["| claim | measured here (A vs B, medians) | ratio A/B (95% CI) | per round | p (sign flip) | "
           "could detect | verdict |", "|---|---|---|---|---|---|---|"]
    for line in lines:
        if line["verdict"] == verdict.NOT_TESTABLE:
            out.append(f"| {line['claim']} | - | - | - | - | - | **{line['verdict']}**: {line['why']}; there: "
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
                   f"{_detectable(line)} | **{line['verdict']}**{why} |")
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

def echo_section(rows, fates, settings):
    servers = list(dict.fromkeys(r["server"] for r in rows))
    clients = list(dict.fromkeys(r["client"] for r in rows))
    lines = []
    for load in [c for c in ("go-spammer", "netbench-echo-client") if c in clients] or clients[:1]:
        note = "" if load == "go-spammer" else f" (second load: {load})"
        lines.append(claim_line(f"Racket beats Go in msgs/s{note}", rows, fates,
                                {"server": "racket", "client": load}, {"server": "go", "client": load},
                                "msgs_per_s", True, names=("racket", "go", load)))
        lines.append(claim_line(f"Go with GOMAXPROCS=1 beats Go at its default{note}", rows, fates,
                                {"server": "go-gomaxprocs1", "client": load}, {"server": "go", "client": load},
                                "msgs_per_s", True, names=("go-gomaxprocs1", "go", load)))
    table = ["| server | load | msgs/s | msgs/s per round | server CPU us/msg | client CPU us/msg | "
             "segments/msg | runs ok |", "|---|---|---|---|---|---|---|---|"]
    for client in clients:
        for server in servers:
            cell = _cells(rows, server=server, client=client)
            ok = sum(1 for r in cell if r.get("status") == "ok")
            table.append(f"| {server} | {client} | {_fmt(_median_of(cell, 'msgs_per_s'))} | "
                         f"{_range_of(cell, 'msgs_per_s')} | {_fmt(_median_of(cell, 'server_cpu_us_per_msg'))} | "
                         f"{_fmt(_median_of(cell, 'client_cpu_us_per_msg'))} | "
                         f"{_fmt(_median_of(cell, 'tcp_segs_per_msg'))} | {ok}/{len(cell)} |")
    markdown = (f"## 1. Echo: does Racket beat Go?\n\n> {ECHO_CLAIM}\n\n"
                f"Measured here: {settings['clients']} connections writing 22-byte messages for "
                f"{settings['seconds']:g} s per run (not 180 s), {settings['samples']} interleaved rounds, every "
                "server under every load. A = the first system named, B = Go at its default.\n\n"
                + verdict_table(lines) + "\nThe table behind it (medians over rounds; CPU per message written, "
                "the scheduler's exact run time of each whole process):\n\n" + "\n".join(table) + "\n"
                + _failures(rows) + "\nContestants:\n\n" + fates_table(fates))
    return {"title": "echo", "verdicts": lines, "markdown": markdown}


# ------------------------------------------------------------------------------------------------- websocket

def _grid(rows, server, client, cell_text, procs, connections):
    out = ["| clients \\ procs | " + " | ".join(str(p) for p in procs) + " |", "|---|" + "---|" * len(procs)]
    for n in connections:
        cells = [cell_text(_cells(rows, server=server, client=client, procs=p, clients=n)) for p in procs]
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
    for n in connections:
        lines.append(claim_line(f"Linux: Go at GOMAXPROCS=2 beats GOMAXPROCS=1 ({n} client{'s' if n > 1 else ''})",
                                rows, fates, {**go, "procs": 2, "clients": n}, {**go, "procs": 1, "clients": n},
                                "msgs_per_s", True, names=("go-xnet", "go-xnet-client")))
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
    for server, client in pairs:
        grids += (f"\n**{client} against {server}**, msgs/s (medians):\n\n"
                  + _grid(rows, server, client, _msgs_cell, procs, connections)
                  + "\nCPU per message, server / client (us):\n\n"
                  + _grid(rows, server, client, _cpu_cell, procs, connections))
    markdown = (f"## 2. WebSocket: does GOMAXPROCS=2 cost Go 100k msgs/s?\n\n> {WEBSOCKET_CLAIM}\n\n"
                f"Measured here: {settings['messages']:,} \"hello, world!\" text messages per client to a sink "
                f"server, {settings['samples']} interleaved rounds; each table has the write-up's shape (rows: "
                "clients, columns: GOMAXPROCS, or netbench's event loops, set alike on both sides). On "
                f"{cores} cores the columns above {cores} are oversubscribed.\n\n" + verdict_table(lines) + grids
                + _failures(rows) + "\nContestants:\n\n" + fates_table(fates))
    return {"title": "websocket", "verdicts": lines, "markdown": markdown}


# ---------------------------------------------------------------------------------------------------- fanout

FANOUT_CONDITIONS = (
    ("as written up: JVM keeping its connections (criterium), Go fresh (go test -bench)", "reuse", "fresh"),
    ("both fresh: new connections and TLS sessions every repetition", "fresh", "fresh"),
    ("both keeping connections between repetitions", "reuse", "reuse"),
)


def fanout_section(rows, fates, settings):
    lines = []
    for scheme in ("http", "https"):
        for text, jvm_condition, go_condition in FANOUT_CONDITIONS:
            lines.append(claim_line(f"JVM faster than Go, {scheme}, origin 50 ms; {text}", rows, fates,
                                    {"server": "origin-50ms", "scheme": scheme, "client": "jvm",
                                     "condition": jvm_condition},
                                    {"server": "origin-50ms", "scheme": scheme, "client": "go",
                                     "condition": go_condition},
                                    "walls_s", False, names=("jvm", "go", "origin-50ms")))
    summary = {}
    for line in lines:
        summary.setdefault(line["verdict"], []).append(line["claim"].split("; ")[-1].split(":")[0] + " ("
                                                       + line["claim"].split(",")[1].strip() + ")")
    table = ["| server | scheme | client | condition | wall s (median) | per round | client CPU us/req | "
             "server CPU us/req | runs ok |", "|---|---|---|---|---|---|---|---|---|"]
    for key in dict.fromkeys((r["server"], r["scheme"], r["client"], r["condition"]) for r in rows):
        cell = _cells(rows, server=key[0], scheme=key[1], client=key[2], condition=key[3])
        _, rounds = _samples(cell, "walls_s")
        ok = sum(1 for r in cell if r.get("status") == "ok")
        per_round = _span(rounds.values())
        table.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {_fmt(_median_of(cell, 'wall_s_median'))} | "
                     f"{per_round} | {_fmt(_median_of(cell, 'client_cpu_us_per_req'))} | "
                     f"{_fmt(_median_of(cell, 'server_cpu_us_per_req'))} | {ok}/{len(cell)} |")
    markdown = (f"## 3. Fan-out: does the JVM fetch 500 URLs faster than Go?\n\n> {FANOUT_CLAIM}\n\n"
                f"Measured here: {settings['requests']} concurrent GETs of a 25,600-byte page per repetition, "
                f"{settings['reps']} timed repetitions per run after {settings['warmup']} untimed ones (for the "
                f"clients that take them: the JVM, to warm its JIT, and netbench), {settings['samples']} "
                "interleaved rounds; a verdict pairs each round's median repetition with the other side's in the "
                "same round. The write-up fetched a remote site, so the origin answering after 50 ms is its "
                "faithful copy; the two sides of the write-up did not run alike, so each condition is judged. "
                "https clients skip certificate verification alike.\n\n" + verdict_table(lines) + "\n"
                + "".join(f"- **{v}** under: {', '.join(names)}\n" for v, names in summary.items())
                + "\nThe table behind it (client CPU per request includes each process's start-up: the JVM's "
                "class loading and JIT, and its warm-up repetitions):\n\n" + "\n".join(table) + "\n"
                + _failures(rows) + "\nContestants:\n\n" + fates_table(fates))
    return {"title": "fanout", "verdicts": lines, "markdown": markdown}
