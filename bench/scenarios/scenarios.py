"""The three write-ups' loads, run over every contestant of the registry (bench/registry/contestants.json).

    echo       every echo server under every echo client: CLIENTS connections writing as fast as they
               can for SECONDS (the write-up: 3 clients of the Go spammer)
    websocket  every server under the clients of its own system (a system without a client: under the
               write-up's client), CLIENTS {1, 4} x PROCS {1, 2, 3, 4} ("hello, world!" text messages to a
               sink server; PROCS is GOMAXPROCS for Go, event loops for netbench)
    fanout     every client, in each of its conditions (fresh connections per repetition; connections and
               TLS sessions kept), fetching a 25,600-byte page REQUESTS times at once from every server
               and scheme

Every case runs once per round and the cases are interleaved within each round, so drift hits all alike.
`runner` is a contest.Runner, or a dict {name: Runner}: the placements of one machine ("shared", "split":
bench/running/placement.py), or the links of a comparison (issue 15: runners made with link="loopback" and "remote",
the same cases on this machine and over the network to other hosts). Every case then runs under each runner
within each round, and its rows carry the runner's `placement` (and `link`, where a runner has one), and each side's configuration as it
ran, how much of its CPUs it used and which side was the bottleneck (contest.Runner.run_client).
Each function returns the scenario's rows (one per case and round; see contest.Runner.run_client) and the
contestants' fate (ran, skipped with the install command, failed with the last lines they printed). Interrupted
(Ctrl-C), it raises Interrupted holding every row that finished, so that the caller can still write them.
"""

import functools

from bench.running import contest
from bench.analysis import medians
from bench.running import progress
from bench.registry import registry
from bench.running import rounds
from bench.reporting import tables

WEBSOCKET_CLIENTS = (1, 4)
WEBSOCKET_PROCS = (1, 2, 3, 4)


class Interrupted(KeyboardInterrupt):
    """A scenario stopped by Ctrl-C: `rows` are the runs that finished, `fates` the contestants' as far as known."""

    def __init__(self, rows, fates):
        super().__init__(f"interrupted after {len(rows)} run(s)")
        self.rows = rows
        self.fates = fates


def _keeps_finished_rows(run):
    """`run(..., kept=...)` records its rows and fates in `kept` as it goes; a KeyboardInterrupt becomes
    Interrupted with them."""
    @functools.wraps(run)
    def keeping(*args, **kwargs):
        kept = {"rows": [], "fates": []}
        try:
            return run(*args, kept=kept, **kwargs)
        except KeyboardInterrupt as interrupt:
            raise Interrupted(list(kept["rows"]), kept["fates"]) from interrupt
    return keeping


def links(runner):
    """{name or None: Runner}: one runner (rows without `link`), the placements of one machine or every link
    of a comparison."""
    return dict(runner) if isinstance(runner, dict) else {None: runner}


def _with_link(base, runner):
    """`base` with the placement of `runner` and its network link, where it has one."""
    return {**base, "placement": runner.placement_name, **({"link": runner.link} if runner.link else {})}


def _prepare(entries, scenario, runner):
    """(servers, clients, fates) of `scenario`: the entries that can run here (on every link), and one fate
    per entry."""
    servers, clients, fates = [], [], []
    runners = list(links(runner).values())
    runner = runners[0]
    for entry in entries:
        if entry["scenario"] != scenario:
            continue
        fate = {"name": entry["name"], "role": entry["role"], "system": entry["system"], "about": entry["about"],
                "env": entry.get("env", {}), "command": " ".join(entry["command"])}
        why = next((w for w in (r.unavailable(entry) for r in runners) if w), None)
        if why:
            fate.update(status="skipped", why=why)
            progress.log(f"skip {scenario} {entry['role']} {entry['name']}: {why}")
        else:
            try:
                # Resolving the version command builds the entry's programs where `bazel run` did not bring
                # them: a build that fails is this entry's failure, in the build's own words.
                version = registry.version_of(entry, runner.base_values(), runner.resolve)
                fate.update(status="ran", version=version)
                (servers if entry["role"] == "server" else clients).append(entry)
            except contest.Failure as failure:
                fate.update(status="failed", why=str(failure))
                progress.log(f"  {entry['name']} failed: {failure}")
        fates.append(fate)
    return servers, clients, fates


def _fail(fates, entry, failure):
    for fate in fates:
        if fate["name"] == entry["name"] and fate["role"] == entry["role"]:
            fate.update(status="failed", why=str(failure), tail=getattr(failure, "tail", ""))
    progress.log(f"  {entry['name']} failed: {failure}" + (f"\n{failure.tail}" if getattr(failure, "tail", "")
                                                            else ""))


def _start(runner, entry, fates, values=None, **kwargs):
    try:
        return runner.start_server(entry, values, **kwargs)
    except contest.Failure as failure:
        _fail(fates, entry, failure)
        return None


def _per_message(row, messages):
    for side in ("client", "server"):
        seconds = row.get(f"{side}_cpu_s")
        row[f"{side}_cpu_us_per_msg"] = seconds * 1e6 / messages if seconds is not None and messages else None
    segments = row.pop("tcp_segments", None)
    row["tcp_segs_per_msg"] = segments / messages if segments is not None and messages else None


def _first(row, key):
    values = row.get("found", {}).get(key) or []
    return values[-1] if values else None


def _failed_row(base, why, tail=""):
    return {**base, "status": "failed", "error": why, "tail": tail}


def _log_row(prefix, row, figure, unit):
    if row["status"] == "ok":
        progress.log(f"{prefix}: {tables.format_number(row.get(figure))} {unit}")
    else:
        progress.log(f"{prefix}: FAILED: {row.get('error')}")


def _message_case(runner, client, running, base, prefix, values, bound_s):
    """One run of a client that counts messages (echo, websocket): msgs/s and CPU per message of both sides."""
    row = runner.run_client(client, running, values, bound_s=bound_s)
    row.update(base)
    row["msgs_per_s"] = _first(row, "msgs_per_s")
    row["messages"] = _first(row, "messages")
    _per_message(row, row["messages"])
    _log_row(prefix, row, "msgs_per_s", "msgs/s")
    return row


def _note_death(fates, server, running):
    """A server that died during a run is failed, with its last lines, once."""
    if not running.alive() and not any(f["status"] == "failed" and f["name"] == server["name"] for f in fates):
        _fail(fates, server, contest.Failure("died during the run", running.output_tail()))


def _on(link):
    return f" [{link}]" if link is not None else ""


@_keeps_finished_rows
def run_echo(entries, runner, samples, seconds, clients=3, kept=None):
    servers, loads, fates = _prepare(entries, "echo", runner)
    kept["fates"] = fates
    runners = links(runner)
    started = {}
    for link, link_runner in runners.items():
        for entry in servers:
            started[(link, entry["name"])] = _start(link_runner, entry, fates)
    cases = [(link, s, c) for c in loads for s in servers for link in runners]
    rows = kept["rows"]
    for round_index, (link, server, client) in rounds.interleaved(cases, samples):
        base = _with_link({"server": server["name"], "client": client["name"], "round": round_index},
                          runners[link])
        prefix = f"echo round {round_index + 1}/{samples}: {client['name']} -> {server['name']}{_on(link)}"
        running = started.get((link, server["name"]))
        if running is None:
            rows.append(_failed_row(base, "the server did not start"))
            continue
        rows.append(_message_case(runners[link], client, running, base, prefix, bound_s=seconds,
                                  values={"clients": clients, "duration_s": f"{seconds:g}"}))
        _note_death(fates, server, running)
    return rows, fates


def websocket_pairs(servers, clients):
    """(server, client) pairs: each server with the clients of its own system, or, where its system has
    none, with the write-up's (reference) clients."""
    pairs = []
    for server in servers:
        own = [c for c in clients if c["system"] == server["system"]]
        for client in own or [c for c in clients if c.get("reference")]:
            pairs.append((server, client))
    return pairs


@_keeps_finished_rows
def run_websocket(entries, runner, samples, messages, procs=WEBSOCKET_PROCS, connections=WEBSOCKET_CLIENTS,
                  kept=None):
    servers, clients, fates = _prepare(entries, "websocket", runner)
    kept["fates"] = fates
    runners = links(runner)
    pairs = websocket_pairs(servers, clients)
    started = {}
    for link, link_runner in runners.items():
        for server in {s["name"]: s for s, _ in pairs}.values():
            for p in procs:
                started[(link, server["name"], p)] = _start(link_runner, server, fates, {"procs": p},
                                                            url_template="ws://{host}:{port}/echo")
    cases = [(link, s, c, p, n) for n in connections for p in procs for s, c in pairs for link in runners]
    rows = kept["rows"]
    for round_index, (link, server, client, p, n) in rounds.interleaved(cases, samples):
        base = _with_link({"server": server["name"], "client": client["name"], "procs": p, "clients": n,
                           "round": round_index}, runners[link])
        prefix = (f"websocket round {round_index + 1}/{samples}: {client['name']} x{n} -> {server['name']}, "
                  f"procs {p}{_on(link)}")
        running = started.get((link, server["name"], p))
        if running is None:
            rows.append(_failed_row(base, "the server did not start"))
            continue
        # The bound: the registry's websocket clients' own --timeout / -timeout of 120 s.
        rows.append(_message_case(runners[link], client, running, base, prefix, bound_s=120,
                                  values={"clients": n, "messages": messages, "procs": p}))
        _note_death(fates, server, running)
    return rows, fates


def _timed_cpu_us_per_request(found, requests):
    """The client's own CPU per request over its timed repetitions (what it printed for each: seconds, or
    netbench's us per request), without its start-up and warm-up; None for a client that prints neither."""
    if found.get("rep_cpu_us"):
        return sum(found["rep_cpu_us"]) / len(found["rep_cpu_us"])
    if found.get("rep_cpu_s") and requests:
        return sum(found["rep_cpu_s"]) * 1e6 / (requests * len(found["rep_cpu_s"]))
    return None


@_keeps_finished_rows
def run_fanout(entries, runner, samples, requests, reps, warmup, focus=None, kept=None):
    """`focus`, where given, is {runner key: (server names, client names)}: under that runner only those cells
    run (the fan-out's split placement runs the claim's cells only: each JVM run there costs a minute)."""
    servers, clients, fates = _prepare(entries, "fanout", runner)
    kept["fates"] = fates
    runners = links(runner)
    focus = focus or {}

    def focused(link, which, name):  # which: 0 for servers, 1 for clients
        return link not in focus or name in focus[link][which]

    targets = []
    for link, link_runner in runners.items():
        by_command = {}
        for server in servers:
            if not focused(link, 0, server["name"]):
                continue
            for scheme, spec in server["schemes"].items():
                key = (server["name"], tuple(spec.get("args", [])))
                if key not in by_command:
                    by_command[key] = _start(link_runner, server, fates, extra_args=spec.get("args", []),
                                             url_template=spec["url"])
                running = by_command[key]
                url = registry.expand([spec["url"]], running.values)[0] if running else None
                targets.append((link, server, scheme, running, url))
    cases = [(t, c, condition) for t in targets for c in clients for condition in c["conditions"]
             if focused(t[0], 1, c["name"])]
    rows = kept["rows"]
    for round_index, ((link, server, scheme, running, url), client, condition) in rounds.interleaved(cases,
                                                                                                   samples):
        base = _with_link({"server": server["name"], "scheme": scheme, "client": client["name"],
                           "condition": condition, "round": round_index}, runners[link])
        prefix = (f"fanout round {round_index + 1}/{samples}: {client['name']} ({condition}) -> "
                  f"{server['name']} {scheme}{_on(link)}")
        if running is None:
            rows.append(_failed_row(base, "the server did not start"))
            continue
        extra = list(client["conditions"][condition]) + (list(client.get("https_args", [])) if scheme == "https"
                                                         else [])
        row = runners[link].run_client(client, running, {"url": url, "requests": requests, "reps": reps,
                                                         "warmup": warmup}, extra_args=extra,
                                       bound_s=60 + (reps + warmup) * 60)
        row.update(base)
        row["walls_s"] = row.get("found", {}).get("wall_s", [])
        row["wall_s_median"] = medians.median(row["walls_s"])
        fetched = requests * (reps + (warmup if "{warmup}" in " ".join(client["command"]) else 0))
        said = row.get("found", {}).get("requests_made")
        if said:  # a client that warms up for a time makes as many as it says
            fetched = int(said[-1])
        row["requests_made"] = fetched
        for side in ("client", "server"):
            seconds = row.get(f"{side}_cpu_s")
            row[f"{side}_cpu_us_per_req"] = seconds * 1e6 / fetched if seconds is not None else None
        row["client_rep_cpu_us_per_req"] = _timed_cpu_us_per_request(row.get("found", {}), requests)
        row.pop("tcp_segments", None)
        rows.append(row)
        _log_row(prefix, row, "wall_s_median", "s per fan-out (median)")
        _note_death(fates, server, running)
    return rows, fates
