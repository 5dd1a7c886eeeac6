"""The three write-ups' loads, run over every contestant of the registry (bench/registry/contestants.json).

    echo       every echo server under every echo client: CLIENTS connections writing as fast as they
               can for SECONDS (the write-up: 3 clients of the Go spammer)
    websocket  every server under the clients of its own system (a system without a client: under the
               write-up's client), CLIENTS {1, 4} x PROCS {1, 2, 3, 4} ("hello, world!" text messages to a
               sink server; PROCS is GOMAXPROCS for Go, event loops for netbench)
    fanout     every client, in each of its conditions (fresh connections per repetition; connections and
               TLS sessions kept), fetching a 25,600-byte page REQUESTS times at once from every server
               and scheme

Each function gives the scenario's cases (bench/design/scheduler.py's Case: the row fields that name it, its
server, its client run and the figures taken from it) and the contestants' fate (ran, skipped with the install
command, failed with the last lines they printed); the scheduler runs them, interleaved in rounds, under every
runner of `runners` ({name: contest.Runner}: the placements of one machine, "shared" and "split", or the links of
a comparison, "loopback" and "remote"), and its rows carry the runner's `placement` (and `link`), each side's
configuration as it ran, how much of its CPUs it used and which side was the bottleneck
(contest.Runner.run_client).

    cases, fates = writeup_cases.echo_cases(entries, runners, {"seconds": 1.0, "clients": 3})
    outcome = scheduler.run(cases, runners, scheduler.Plan(rounds=10, name="echo"))
    writeup_cases.note_failures(fates, outcome.failed_servers)
"""

from bench.analysis import medians
from bench.analysis import steady_state
from bench.registry import registry
from bench.running import contest
from bench.base import progress
from bench.design import scheduler

WEBSOCKET_CLIENTS = (1, 4)
WEBSOCKET_PROCS = (1, 2, 3, 4)


def links(runner):
    """{name or None: Runner}: one runner (rows without `link`), the placements of one machine or every link
    of a comparison."""
    return dict(runner) if isinstance(runner, dict) else {None: runner}


def prepare(entries, scenario, runners):
    """(servers, clients, fates) of `scenario`: the entries that can run here (under every runner), and one fate
    per entry."""
    servers, clients, fates = [], [], []
    runners = list(links(runners).values())
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
                version = registry.version_of(entry, runners[0].base_values(), runners[0].resolve)
                fate.update(status="ran", version=version)
                (servers if entry["role"] == "server" else clients).append(entry)
            except contest.Failure as failure:
                fate.update(status="failed", why=str(failure))
                progress.log(f"  {entry['name']} failed: {failure}")
        fates.append(fate)
    return servers, clients, fates


def note_failures(fates, failed_servers):
    """Marks failed, with their last lines, the fates of the servers that did not start or died (the
    scheduler's Outcome.failed_servers)."""
    for name, failure in failed_servers.items():
        for fate in fates:
            if fate["name"] == name and fate["role"] == "server" and fate["status"] != "failed":
                fate.update(status="failed", why=str(failure), tail=getattr(failure, "tail", ""))


def _first(row, key):
    values = row.get("found", {}).get(key) or []
    return values[-1] if values else None


def series_counted(series):
    """Which count of a series its steady state is found in: the messages that came back where the load reads
    them (what the server did: a load that writes without waiting counts what the kernel buffered too, most of
    all in a run's first tenths of a second), else the messages sent."""
    return "received" if sum(series.get("received") or []) > 0 else "sent"


def steady_figures(row):
    """`steady` (steady_state.classify of the row's series: its class, where the steady part began, its rate
    and the whole run's) and `steady_msgs_per_s`, the figure the throughput verdicts judge: the steady
    segment's rate; a run with no steady state has none, and a row without a series (a client that prints
    none, a fleet of hosts) keeps the whole run's msgs/s, its `steady` null."""
    series = row.get("series")
    counted = series_counted(series) if series else None
    found = steady_state.classify(series, counted) if series else None
    if found is not None:
        found["counted"] = counted
    row["steady"] = found
    row["steady_msgs_per_s"] = found["steady_rate"] if found is not None else row.get("msgs_per_s")


def message_figures(row, measured):
    """Of a client that counts messages (echo, websocket): msgs/s over the whole run (as the write-ups counted
    it), its steady state (steady_figures), each side's CPU and the segments per message."""
    row["msgs_per_s"] = _first(row, "msgs_per_s")
    steady_figures(row)
    row["messages"] = messages = _first(row, "messages")
    for side in ("client", "server"):
        seconds = row.get(f"{side}_cpu_s")
        row[f"{side}_cpu_us_per_msg"] = seconds * 1e6 / messages if seconds is not None and messages else None
    segments = row.pop("tcp_segments", None)
    row["tcp_segs_per_msg"] = segments / messages if segments is not None and messages else None


def echo_cases(entries, runners, settings):
    """Every echo server under every echo client: `clients` connections writing for `seconds`; with `warmup_s`,
    each server first under its load for that long, unmeasured (the runtimes that reach their steady rate only
    after seconds of load: the dimensioning study found Go's echo server so)."""
    servers, loads, fates = prepare(entries, "echo", runners)
    seconds = settings["seconds"]
    warmup_s = settings.get("warmup_s") or 0
    cases = [scheduler.Case(fields={"server": s["name"], "client": c["name"]}, server=scheduler.ServerSpec(s),
                            client=c, values={"clients": settings["clients"], "duration_s": f"{seconds:g}"},
                            bound_s=seconds, figures=message_figures,
                            warmup={"duration_s": f"{warmup_s:g}"} if warmup_s else None, warmup_s=warmup_s)
             for c in loads for s in servers]
    return cases, fates


def websocket_pairs(servers, clients):
    """(server, client) pairs: each server with the clients of its own system, or, where its system has
    none, with the write-up's (reference) clients."""
    pairs = []
    for server in servers:
        own = [c for c in clients if c["system"] == server["system"]]
        for client in own or [c for c in clients if c.get("reference")]:
            pairs.append((server, client))
    return pairs


def websocket_cases(entries, runners, settings):
    """Every pair of websocket_pairs at every procs and connection count; the bound: the registry's websocket
    clients' own --timeout / -timeout of 120 s."""
    servers, clients, fates = prepare(entries, "websocket", runners)
    cases = []
    for n in settings.get("connections", WEBSOCKET_CLIENTS):
        for p in settings.get("procs", WEBSOCKET_PROCS):
            for server, client in websocket_pairs(servers, clients):
                cases.append(scheduler.Case(
                    fields={"server": server["name"], "client": client["name"], "procs": p, "clients": n},
                    server=scheduler.ServerSpec(server, {"procs": p}, url_template="ws://{host}:{port}/echo"),
                    client=client, values={"clients": n, "messages": settings["messages"], "procs": p},
                    bound_s=120, figures=message_figures))
    return cases, fates


def _timed_cpu_us_per_request(found, requests):
    """The client's own CPU per request over its timed repetitions (what it printed for each: seconds, or
    netbench's us per request), without its start-up and warm-up; None for a client that prints neither."""
    if found.get("rep_cpu_us"):
        return sum(found["rep_cpu_us"]) / len(found["rep_cpu_us"])
    if found.get("rep_cpu_s") and requests:
        return sum(found["rep_cpu_s"]) * 1e6 / (requests * len(found["rep_cpu_s"]))
    return None


def fanout_figures(client, settings):
    """The figures of one fan-out client's run: every timed repetition's wall time, their median, each side's
    CPU per request over the whole process (warm-up included where the client's command takes one) and the
    client's own over its timed repetitions."""
    requests = settings["requests"]
    planned = requests * (settings["reps"] + (settings["warmup"] if "{warmup}" in " ".join(client["command"])
                                              else 0))

    def figures(row, measured):
        row["walls_s"] = row.get("found", {}).get("wall_s", [])
        row["wall_s_median"] = medians.median(row["walls_s"])
        said = row.get("found", {}).get("requests_made")
        # A client that warms up for a time makes as many requests as it says.
        fetched = int(said[-1]) if said else planned
        row["requests_made"] = fetched
        for side in ("client", "server"):
            seconds = row.get(f"{side}_cpu_s")
            row[f"{side}_cpu_us_per_req"] = seconds * 1e6 / fetched if seconds is not None else None
        row["client_rep_cpu_us_per_req"] = _timed_cpu_us_per_request(row.get("found", {}), requests)
        row.pop("tcp_segments", None)
    return figures


def fanout_cases(entries, runners, settings):
    """Every client, in each of its conditions, against every server and scheme."""
    servers, clients, fates = prepare(entries, "fanout", runners)
    reps, warmup = settings["reps"], settings["warmup"]
    cases = []
    for server in servers:
        for scheme, spec in server["schemes"].items():
            target = scheduler.ServerSpec(server, extra_args=tuple(spec.get("args", [])), url_template=spec["url"])
            for client in clients:
                for condition, arguments in client["conditions"].items():
                    extra = list(arguments) + (list(client.get("https_args", [])) if scheme == "https" else [])
                    cases.append(scheduler.Case(
                        fields={"server": server["name"], "scheme": scheme, "client": client["name"],
                                "condition": condition},
                        server=target, client=client, extra_args=tuple(extra), bound_s=60 + (reps + warmup) * 60,
                        values={"requests": settings["requests"], "reps": reps, "warmup": warmup,
                                "warmup_seconds": settings.get("warmup_seconds", 0)},
                        figures=fanout_figures(client, settings), shown=("wall_s_median", "s per fan-out")))
    return cases, fates
