"""Echo detail scenario (`--only=echo-models`): netbench's echo server models and the Go echo server, each
loaded by //echo:client and (the write-up's load) by the Go spammer, all in one run.

    bazel run //:bench -- --only=echo-models
    bazel run //:bench -- --only=echo-models --quick      # smoke check: 1 s loads, one round

Servers: the registry's netbench-threads|poll|epoll|uring (//echo:server --model=...) and go (Go's echo
server, //contestants/go:echo_server, a goroutine per connection), started and measured by the write-ups' runner
(contest.Runner: the same CPU clock and placement, on remote hosts with --server-host) in the one round loop
(bench/design/scheduler.py). Go's server runs for the whole run; each netbench case gets a server of its own,
stopped after the run, whose stop line gives its system calls (server_syscalls.py). A model that does not start
(uring where the system refuses io_uring: exit 2 naming the cause) is left out of the run, its fate saying why.
Loads (a row's `client`), each against every server, from the registry's netbench-echo-client and go-spammer:
    stream3      3 clients writing the 22-byte message in a tight loop (the write-up's load), //echo:client
    stream3-go   the same load from the Go spammer (client vs client against the same server)
    pingpong3    3 clients, one message in flight each (round-trip latency)
    stream64     64 clients in stream mode (a writer and a reader thread each, like the spammer's goroutines)
    rate         3 clients at a fixed offered load (`rate`), so servers are compared at equal work
and, against the epoll server only, //echo:client's own models compared (its default is threads):
    uring3, epoll3        3 clients in stream mode, --model=uring and --model=epoll
    epoll3-batch16        the same on epoll writing 16 messages per call (--batch=16), as the uring client
                          gathers up to 16 per send: the gathering told apart from the ring
    uring64, epoll64      64 clients in stream mode, --model=uring and --model=epoll
(the uring loads only where the uring server starts, i.e. where the system allows io_uring).

Per case: msgs/s written (the client's "rate:" line), server CPU us per echoed message (scheduler
clock, exact, around the run; per message written where the client counts no echoes: the spammer), client
CPU us per written message (wait4 rusage of the whole client process, the same way for both clients),
latency where the mode measures it, errors, the netbench server's system calls per message (its
stop line's count over the messages of that run; none for Go) and //echo:client's (its --json count over the
messages it wrote; none for the spammer). The comparisons are judged as the write-ups' claims are (the paired
ratio per round, its interval, a verdict), as bench/registry/details/echo.toml states them: each model's server
CPU per message against Go's at the same load, //echo:client against the spammer against the same server, the
whole system (//echo:client + the fastest netbench server against spammer + Go), the uring server against the
best of the other models (by median) in server CPU per message and, ping-pong, in p50, and //echo:client
--model=uring against --model=epoll in client CPU and system calls per message.
"""

import re

from bench.running import measured_run
from bench.design import scheduler
from bench.running import server_process
from bench.scenarios import claim_files
from bench.scenarios import definition
from bench.scenarios import detail_sections
from bench.scenarios import server_syscalls
from bench.scenarios import writeup_cases

SERVER_MODELS = ["threads", "poll", "epoll", "uring"]
LOADS = ["stream3", "stream3-go", "pingpong3", "stream64", "rate"]
# //echo:client's own models, each load against the epoll server only: {load: (clients, extra arguments)}.
CLIENT_MODEL_LOADS = {
    "uring3": (3, ["--mode=stream", "--model=uring"]),
    "epoll3": (3, ["--mode=stream", "--model=epoll"]),
    "epoll3-batch16": (3, ["--mode=stream", "--model=epoll", "--batch=16"]),
    "uring64": (64, ["--mode=stream", "--model=uring"]),
    "epoll64": (64, ["--mode=stream", "--model=epoll"]),
}
# The registry's entries each case runs (bench/registry/contestants.json): the row's server name -> entry name.
SERVERS = {"threads": "netbench-threads", "poll": "netbench-poll", "epoll": "netbench-epoll",
           "uring": "netbench-uring", "go": "go"}
ECHO_CLIENT, SPAMMER = "netbench-echo-client", "go-spammer"
FIGURES = ("msgs_per_s", "server_cpu_us_per_msg", "server_syscalls_per_msg", "client_syscalls_per_msg",
           "client_cpu_us_per_msg", "client_sys_us_per_msg", "tcp_segs_per_msg", "p50_us", "p99_us")


def client_of(load, rate):
    """(registry client entry, its {clients}, extra arguments) of a load."""
    if load == "stream3-go":
        return SPAMMER, 3, []
    if load in CLIENT_MODEL_LOADS:
        return (ECHO_CLIENT, *CLIENT_MODEL_LOADS[load])
    return {"stream3": (ECHO_CLIENT, 3, ["--mode=stream"]),
            "pingpong3": (ECHO_CLIENT, 3, ["--mode=pingpong"]),
            "stream64": (ECHO_CLIENT, 64, ["--mode=stream"]),
            "rate": (ECHO_CLIENT, 3, ["--mode=stream", f"--rate={rate}"])}[load]


def detail_entries(entries):
    """{entry name: entry} of the echo scenario's servers and clients among `entries` (the registry's)."""
    wanted = set(SERVERS.values()) | {ECHO_CLIENT, SPAMMER}
    return {e["name"]: e for e in entries if e["scenario"] == "echo" and e["name"] in wanted}


def models_that_start(runner, entries, models):
    """(the models among `models` whose server starts here, {model: why not} of the others)."""
    refused = {}
    for model in models:
        server, why = server_syscalls.start(runner, entries[SERVERS[model]])
        if server is None:
            refused[model] = why
        else:
            server_syscalls.stop(runner, server)
    return [m for m in models if m not in refused], refused


def _counts(row, load, measured):
    """The messages the client wrote and echoed, its errors and system calls: from the summed count of a run
    with no process of its own (a fleet's), the spammer's "sent:" line, or //echo:client's run document."""
    found, report = row.get("found", {}), measured.report
    if measured.result is None:
        # A fleet's: its hosts' counts summed (fleet.merge_found); echoes are not counted there.
        row["messages_written"] = int(found["messages"][-1]) if found.get("messages") else None
    elif load == "stream3-go":
        # The spammer prints what it wrote ("sent: N msgs"), not what came back: it reads its echoes into a
        # buffer and drops them uncounted.
        sent = re.search(r"sent: (\d+) msgs", measured.result.stdout)
        row.update(messages_written=int(sent.group(1)) if sent else None, messages_echoed=None, errors=None)
    elif report is not None:
        counts = report["counts"]
        row.update(messages_written=counts.get("total_written"), messages_echoed=counts.get("total_echoed"),
                   echoed_per_s=report["metrics"].get("echoed_msgs_per_s", {}).get("value"),
                   errors=counts.get("errors"), client_syscalls=counts.get("system_calls"))
        # //echo:client's own count of its system calls, over the whole run as the messages written are.
        row["client_syscalls_per_msg"] = server_syscalls.per_message(row["client_syscalls"],
                                                                     row["messages_written"])


def latency(row, report, names):
    """The clients' histograms (every bucket, merged per case into the document) and the round's p50/p99 of
    the first of `names` the client recorded."""
    histograms = (report or {}).get("histograms") or row.pop("histograms", None)
    if not histograms or row.get("status") != "ok":
        return
    row["histograms"] = histograms
    for name in names:
        if name in histograms and "percentiles" in histograms[name]:
            percentiles = histograms[name]["percentiles"]
            row["p50_us"] = percentiles.get("50", 0) / 1e3
            row["p99_us"] = percentiles.get("99", 0) / 1e3
            if "99.9" in percentiles and name == "latency":
                row["p999_us"] = percentiles["99.9"] / 1e3


def figures_of(load):
    """The figures hook of one load's cases (scheduler.Case.figures)."""
    client_name = client_of(load, 0)[0]

    def figures(row, measured):
        found = row.get("found", {})
        row["msgs_per_s"] = (found.get("msgs_per_s") or [None])[-1]
        _counts(row, load, measured)
        latency(row, measured.report, ("rtt", "rtt_corrected"))
        # The messages the server's CPU is divided by: those //echo:client counted echoed; where the client
        # counts none (the spammer, a fleet), those it wrote, every one of which the server read and wrote
        # back before the client closed (the spammer's last few may still be in flight then, a few in millions).
        echoed = client_name == ECHO_CLIENT and "messages_echoed" in row
        row["server_messages"] = row.get("messages_echoed") if echoed else row.get("messages_written")
        measured_run.add_cpu_per_message(row, measured.result, client_messages=row.get("messages_written"),
                                         server_messages=row["server_messages"])
        row["server_syscalls"] = server_syscalls.system_calls(measured.server_output)
        row["server_syscalls_per_msg"] = server_syscalls.per_message(row["server_syscalls"], row["server_messages"])
    return figures


def _runnable(entries, runners):
    """(the server names that run here, the loads they run, the fates): the models that start, and Go where
    both its server and the spammer can run."""
    byname = detail_entries(entries)
    servers, clients, fates = writeup_cases.prepare(list(byname.values()), "echo", runners)
    ran = {e["name"] for e in servers + clients}
    runner = next(iter(writeup_cases.links(runners).values()))
    models, refused = models_that_start(runner, byname, [m for m in SERVER_MODELS if SERVERS[m] in ran])
    for fate in fates:
        model = next((m for m in refused if SERVERS[m] == fate["name"]), None)
        if model is not None:
            fate.update(status="skipped", why=f"it did not start here: {refused[model]}")
    go = SERVERS["go"] in ran and SPAMMER in ran
    loads = [load for load in LOADS if (go or load != "stream3-go") and client_of(load, 0)[0] in ran]
    if "epoll" in models and ECHO_CLIENT in ran:
        loads += [load for load in CLIENT_MODEL_LOADS if "uring" in models or not load.startswith("uring")]
    return models + (["go"] if go else []), loads, fates


def cases(entries, runners, settings):
    """Every load against every server that runs here."""
    byname = detail_entries(entries)
    server_names, loads, fates = _runnable(entries, runners)
    out = []
    for load in loads:
        client_name, clients, extra = client_of(load, settings["rate"])
        for name in ["epoll"] if load in CLIENT_MODEL_LOADS else server_names:
            out.append(scheduler.Case(
                fields={"server": name, "client": load},
                server=scheduler.ServerSpec(byname[SERVERS[name]], per_run=name in SERVER_MODELS),
                client=byname[client_name], values={"clients": clients, "duration_s": f"{settings['seconds']:g}"},
                extra_args=tuple(extra), bound_s=settings["seconds"], figures=figures_of(load),
                report_flag="--json" if client_name == ECHO_CLIENT else None))
    return out, fates


# The comparisons, as data: each model's server CPU per message against Go's at each load; //echo:client against
# the spammer against each server, in CPU per message and msgs/s; the whole system, //echo:client with the fastest
# netbench server (by median msgs/s) against the spammer with Go; the uring server against the best other model;
# //echo:client --model=uring against --model=epoll.
CLAIMS = claim_files.detail("echo")


def notes(settings):
    return (settings.get("notes") or
            f"Loads of {settings['seconds']:g} s, {settings['samples']} interleaved round(s), the rate case at "
            f"{settings['rate']} msgs/s. Server CPU per echoed message from the scheduler's exact clock "
            "(bench/running/process_cpu.py; no user/system split, so no server sys column); client CPU per written "
            "message from wait4 rusage of the whole client process (both clients measured alike). The spammer does "
            "not check or count echoes (errors '-'): its rows' server CPU is per message it wrote. //echo:client "
            "runs with its defaults (TCP_NODELAY as Go, one write per message, --read_coalesce=16384). Server "
            "syscalls/msg: the netbench server's own count (its stop line; each netbench case runs a server of its "
            "own, stopped after the run, so the count includes its start, accepts and closes) over the messages "
            "its CPU is divided by; Go's server counts none (blank). Client syscalls/msg: //echo:client's own "
            "count (its --json system_calls, opening and closing included) over the messages it wrote; the "
            "spammer counts none (blank). " + server_process.SCHEDULING_NOTE)


def section(rows, fates, settings, stored=None):
    page = {"id": "echo-models", "title": "Echo models: netbench's servers and client against Go's",
            "notes": [notes(settings)], "figures": FIGURES}
    return detail_sections.section(page, rows, fates, CLAIMS.claims(rows), stored)


DEFINITION = definition.Definition(
    name="echo-models", document="echo_bench", settings={"seconds": 10.0, "rate": 50000},
    quick={"samples": 1, "seconds": 1.0, "rate": 20000}, flags={"samples": "samples"}, cases=cases,
    section=section, link_keys=("server", "client"), placements=("shared",), merge_histograms=("server", "client"))
