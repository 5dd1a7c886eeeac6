"""WebSocket detail scenario (`--only=websocket-models`): netbench's WebSocket server models and Go's
x/net/websocket server, each loaded by //websocket:client and by the Go client (the write-up's
`websocket_client CLIENTS REQUESTS`), all in one run.

    bazel run //:bench -- --only=websocket-models
    bazel run //:bench -- --only=websocket-models --quick     # smoke check: 2,000 msgs/client, one round

Servers (sink mode: read and drop, as the write-up's server did): //websocket:server --mode=sink
--model=threads|poll|epoll|uring, and the Go x/net server (//contestants/go:xnet_server), each a contestant entry
(server_entry) started and measured by the write-ups' runner in the one round loop (bench/design/scheduler.py).
Go's servers run for the whole run; each netbench case gets a server of its own, stopped after the run, whose
stop line gives its system calls and the messages it received (server_syscalls.py). A model that does not start
(uring where the system refuses io_uring: exit 2 naming the cause) is left out of the run, its fate saying why.
Loads (a row's `client`), each against every server:
    nb1, nb4     //websocket:client, 1 and 4 clients x MESSAGES "hello, world!" text frames, one per write
    go1, go4     the Go client (//contestants/go:xnet_client) with the same counts
    nb4-pipe     //websocket:client, 4 clients, --pipeline=16 frames per write
    echo1        //websocket:client --mode=echo, 1 client, one message in flight, against each server in echo
                 mode (latency)
    echo4-pipe   //websocket:client --mode=echo, 4 clients x 16 messages in flight, MESSAGES each, against each
                 server in echo mode (the echo path's CPU per message under a pipelined load)

Per case: msgs/s (the "Sent N in T for a rate of R/second" line), server CPU us per message (scheduler
clock, exact, around the run), client CPU us per message (wait4 rusage of the whole client process, the same for
both clients), latency percentiles for echo, the netbench server's system calls per message (its stop line's
count over the messages written in that run; none for Go). //websocket:client only exits 0 after every
connection's close handshake, which the server answers after reading every message before it: written ==
received, which the netbench servers' own counts (each case's stop line) check. The comparisons are judged as
the write-ups' claims are, as bench/registry/details/websocket.toml states them: //websocket:client against the
Go client at each server, the netbench model with the least server CPU per message against Go's server, and the
uring model against the best other model (echo4-pipe, nb4-pipe).
"""

from bench.running import binaries
from bench.running import measured_run
from bench.design import scheduler
from bench.running import server_process
from bench.scenarios import claim_files
from bench.scenarios import definition
from bench.scenarios import detail_sections
from bench.scenarios import echo_bench
from bench.scenarios import server_syscalls

SERVER_MODELS = ["threads", "poll", "epoll", "uring"]
SINK_LOADS = ["nb1", "nb4", "go1", "go4", "nb4-pipe"]
ECHO_LOADS = ["echo1", "echo4-pipe"]
RESULT = {"msgs_per_s": "rate of (?P<value>[0-9.]+)/second", "messages": "Sent (?P<value>\\d+) in"}


def server_entry(name, mode, server_threads):
    """The contestant entry (the registry's shape: bench/registry/contestants.json) of one server in one mode;
    the detail loads need each netbench model and the echo mode, which the registry's websocket entries (the
    write-up's sink servers) do not have."""
    if name == "go":
        return {"name": f"go-wsserver-{mode}", "command": ["{//contestants/go:xnet_server}", "-addr", "{host}:{port}"]
                + (["-echo"] if mode == "echo" else []), "ready": "listening on"}
    return {"name": f"netbench-{name}-{mode}", "ready": "listening on",
            "command": ["{//websocket:server}", "--host={host}", "--port={port}", f"--mode={mode}", f"--model={name}",
                        f"--threads={server_threads}"]}


def client_entry(load, messages):
    """The contestant entry of one load's client."""
    if load.startswith("go"):
        return {"name": "go-xnet-client", "result": RESULT,
                "command": ["{//contestants/go:xnet_client}", "-url", "{url}", "-timeout", "120s", load[2:], str(messages)]}
    extra = {"nb1": ["--clients=1"], "nb4": ["--clients=4"], "nb4-pipe": ["--clients=4", "--pipeline=16"],
             "echo1": ["--clients=1", "--mode=echo"],
             "echo4-pipe": ["--clients=4", "--mode=echo", "--pipeline=16"]}[load]
    return {"name": "netbench-ws-client", "result": RESULT,
            "command": ["{//websocket:client}", "--url={url}", f"--messages={messages}", "--progress=false",
                        "--timeout=120s"] + extra}


URL = "ws://{host}:{port}/echo"
GO_PROGRAMS = ("//contestants/go:xnet_server", "//contestants/go:xnet_client")
FIGURES = ("msgs_per_s", "server_cpu_us_per_msg", "server_sys_us_per_msg", "server_syscalls_per_msg",
           "client_syscalls_per_msg", "client_cpu_us_per_msg", "client_sys_us_per_msg", "tcp_segs_per_msg", "p50_us",
           "p99_us", "p999_us")


def _fate(entry, role, status, why=None):
    fate = {"name": entry["name"], "role": role, "system": "go" if entry["name"].startswith("go") else "netbench",
            "about": "a server of the detail scenario" if role == "server" else "a load of the detail scenario",
            "env": {}, "command": " ".join(entry["command"]), "status": status}
    return {**fate, "why": why} if why else fate


def models_that_start(runner, models, server_threads):
    """(the models among `models` whose server starts here, {model: why not} of the others)."""
    refused = {}
    for model in models:
        server, why = server_syscalls.start(runner, server_entry(model, "sink", server_threads), url_template=URL)
        if server is None:
            refused[model] = why
        else:
            server_syscalls.stop(runner, server)
    return [m for m in models if m not in refused], refused


def figures_of(load):
    """The figures hook of one load's cases (scheduler.Case.figures)."""
    def figures(row, measured):
        found, report = row.get("found", {}), measured.report
        sent = int(found["messages"][-1]) if found.get("messages") else None
        row.update(msgs_per_s=(found.get("msgs_per_s") or [None])[-1], messages_written=sent)
        if report is not None:
            counts = report.get("counts", {})
            row["messages_received_by_client"] = counts.get("messages_received")
            row["errors"] = sum(v for k, v in counts.items() if k.startswith("errors."))
            # //websocket:client's own count of its system calls, handshakes included.
            row["client_syscalls"] = counts.get("system_calls")
            row["client_syscalls_per_msg"] = server_syscalls.per_message(row["client_syscalls"], sent)
        echo_bench.latency(row, report, ("latency",))
        measured_run.add_cpu_per_message(row, measured.result, client_messages=sent, server_messages=sent)
        output = measured.server_output
        received = server_syscalls.received_messages(output)
        row["messages_received_by_server"] = received
        row["server_syscalls"] = server_syscalls.system_calls(output)
        row["server_syscalls_per_msg"] = server_syscalls.per_message(row["server_syscalls"], sent)
    return figures


def cases(entries, runners, settings):
    """Every load against every server that runs here (the registry's websocket entries are the write-up's
    sink servers; these are the models in both modes, as entries of the same shape)."""
    runner = next(iter(runners.values())) if isinstance(runners, dict) else runners
    threads = settings["server_threads"]
    go = all(binaries.available(label) is not None for label in GO_PROGRAMS)
    models, refused = models_that_start(runner, SERVER_MODELS, threads)
    fates = [_fate(server_entry(m, "sink", threads), "server", "skipped", f"it did not start here: {why}")
             for m, why in refused.items()]
    fates += [_fate(server_entry(m, "sink", threads), "server", "ran") for m in models]
    fates.append(_fate(server_entry("go", "sink", threads), "server", "ran" if go else "skipped",
                       None if go else f"{' and '.join(GO_PROGRAMS)} are not built"))
    out = []
    for load in [load for load in SINK_LOADS if go or not load.startswith("go")] + ECHO_LOADS:
        mode = "echo" if load in ECHO_LOADS else "sink"
        messages = settings["echo_messages"] if load == "echo1" else settings["messages"]
        for name in models + (["go"] if go else []):
            out.append(scheduler.Case(
                fields={"server": name, "client": load},
                server=scheduler.ServerSpec(server_entry(name, mode, threads), url_template=URL,
                                            per_run=name in SERVER_MODELS),
                client=client_entry(load, messages), bound_s=120, figures=figures_of(load),
                report_flag=None if load.startswith("go") else "--json"))
    return out, fates


# The comparisons, as data: //websocket:client against the Go client at each server, in msgs/s and client CPU per
# message; at each load the netbench model with the least server CPU per message (by median) against Go's server;
# the uring model against the best other model.
CLAIMS = claim_files.detail("websocket")


def keeps_up(rows):
    """Per netbench model and mode: the messages written to it and those its stop lines say it received."""
    out = []
    for model in [m for m in SERVER_MODELS if any(r["server"] == m for r in rows)]:
        for mode in ("sink", "echo"):
            mine = [r for r in rows
                    if r["server"] == model and ("echo" if r["client"] in ECHO_LOADS else "sink") == mode]
            written = sum(r.get("messages_written") or 0 for r in mine)
            counts = [r.get("messages_received_by_server") for r in mine]
            received = None if None in counts else sum(counts)
            out.append({"server": f"{model}-{mode}", "written": written, "received": received,
                        "equal": received == written})
    return out


def notes(settings):
    return (settings.get("notes") or
            f"{settings['messages']} messages per client in sink mode, {settings['echo_messages']} in the "
            f"echo1 case and {settings['messages']} in echo4-pipe; {settings['samples']} interleaved round(s); "
            f"poll/epoll servers with "
            f"{settings['server_threads']} loop(s). Server CPU per message from the scheduler's exact clock "
            "(bench/running/process_cpu.py; no user/system split, so no server sys column); client CPU per message "
            "from wait4 rusage of the whole client process (connection set-up included, both clients alike). The "
            "Go client never reads and does not verify anything. Server syscalls/msg: the netbench server's own "
            "count (its stop line; each netbench case runs a server of its own, stopped after the run, so the count "
            "includes its start, handshakes and closes) over the messages written in the run; Go's server counts "
            "none (blank). Client syscalls/msg: //websocket:client's own count (its --json system_calls, "
            "handshakes and closes included) over the messages it wrote; the Go client counts none (blank). "
            + server_process.SCHEDULING_NOTE)


def section(rows, fates, settings, stored=None):
    page = {"id": "websocket-models", "title": "WebSocket models: netbench's servers and client against Go's x/net",
            "notes": [notes(settings)], "figures": FIGURES,
            "tables": [detail_sections.as_table("Written against received by the netbench servers (their stop "
                                                "lines)", keeps_up(rows))]}
    return detail_sections.section(page, rows, fates, CLAIMS.claims(rows), stored)


DEFINITION = definition.Definition(
    name="websocket-models", document="websocket_bench",
    settings={"messages": 100000, "echo_messages": 20000, "server_threads": 1},
    quick={"samples": 1, "messages": 2000, "echo_messages": 500}, flags={"samples": "samples"}, cases=cases,
    section=section, link_keys=("server", "client"), placements=("shared",), merge_histograms=("server", "client"))
