"""WebSocket benchmark (issue 4): netbench's WebSocket server models and Go's x/net/websocket server, each
loaded by //websocket:client and by the Go client (the write-up's `websocket_client CLIENTS REQUESTS`), all
in one run.

    /usr/bin/python3 -m bench.scenarios.websocket_bench           # 3 interleaved samples, 100,000 msgs/client
    /usr/bin/python3 -m bench.scenarios.websocket_bench --quick      # smoke check: 2,000 msgs/client, 1 sample
    bazel run //:bench -- --only=websocket-models

Servers (sink mode: read and drop, as the write-up's server did): //websocket:server --mode=sink
--model=threads|poll|epoll|uring, and the Go x/net server (//contestants/go:xnet_server), each a contestant entry
(server_entry) started and measured by the write-ups' runner, contest.Runner. Go's servers run for the whole run;
each netbench case gets a server of its own, stopped after the run, whose stop line gives its system calls and
the messages it received (server_syscalls.py). A model that does not start (uring where the system refuses
io_uring: exit 2 naming the cause) is left out of the run with its own message in the notes. Loads, each against
every server:
    nb1, nb4     //websocket:client, 1 and 4 clients x MESSAGES "hello, world!" text frames, one per write
    go1, go4     the Go client (//contestants/go:xnet_client) with the same counts
    nb4-pipe     //websocket:client, 4 clients, --pipeline=16 frames per write
Echo latency: //websocket:client --mode=echo, 1 client, one message in flight, against //websocket:server
--mode=echo (each model) and the Go server with -echo.

Per case: msgs/s (the "Sent N in T for a rate of R/second" line), server CPU us per message (scheduler
clock, exact, around the run), client CPU us per message (wait4 rusage of the whole client process, the same for
both clients), latency percentiles for echo, the netbench server's system calls per message (its stop line's
count over the messages written in that run; none for Go). //websocket:client only exits 0 after every connection's
close handshake, which the server answers after reading every message before it: written == received. The
netbench servers' own counts (each case's stop line) are checked against the sums written. Medians over samples, then
the issue's ratios.
"""

import argparse
import json
import os
import re
import sys
import tempfile

from bench.scenarios import bench_arguments
from bench.reporting import bench_report
from bench.running import binaries
from bench.running import contest
from bench.reporting import case_ratios
from bench.scenarios import kernel_costs
from bench.running import measured_run
from bench.analysis import medians
from bench.running import progress
from bench.running import rounds
from bench.reporting import run_environment
from bench.running import server_process
from bench.scenarios import server_syscalls
from bench.reporting import tables

SERVER_MODELS = ["threads", "poll", "epoll", "uring"]
SINK_LOADS = ["nb1", "nb4", "go1", "go4", "nb4-pipe"]
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
             "echo1": ["--clients=1", "--mode=echo"]}[load]
    return {"name": "netbench-ws-client", "result": RESULT,
            "command": ["{//websocket:client}", "--url={url}", f"--messages={messages}", "--progress=false",
                        "--timeout=120s"] + extra}


URL = "ws://{host}:{port}/echo"


def start_servers(runner, server_names, server_threads):
    """{(server name, mode): contest.Server} of the servers that run for the whole run (not netbench's: each of
    its cases starts its own, run_case), each started once by the one runner."""
    return {(name, mode): runner.start_server(server_entry(name, mode, server_threads), url_template=URL)
            for mode in ("sink", "echo") for name in server_names if name not in SERVER_MODELS}


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


def run_case(runner, servers, server_name, load, messages, server_threads=1):
    """One case's row. A netbench model gets a server of its own, stopped after the run: its stop line's
    system calls over the messages written are the row's server_syscalls_per_msg, and the messages it says it
    received are messages_received_by_server."""
    mode = "echo" if load == "echo1" else "sink"
    if server_name not in SERVER_MODELS:
        row = measure_case(runner, servers[(server_name, mode)], server_name, load, messages)
        row["server_syscalls_per_msg"] = None
        return row
    server, why = server_syscalls.start(runner, server_entry(server_name, mode, server_threads), url_template=URL)
    if server is None:
        progress.log(f"  {server_name}/{load}: {why}")
        return {"server": server_name, "load": load, "returncode": 2, "error": why, "messages_written": None,
                "msgs_per_s": None, "server_syscalls_per_msg": None}
    try:
        row = measure_case(runner, server, server_name, load, messages)
    finally:
        output = server_syscalls.stop(runner, server)
    received = re.search(r"(\d+) messages received", output)
    row["messages_received_by_server"] = int(received.group(1)) if received else None
    row["server_syscalls"] = server_syscalls.system_calls(output)
    row["server_syscalls_per_msg"] = server_syscalls.per_message(row["server_syscalls"], row["messages_written"])
    return row


def measure_case(runner, server, server_name, load, messages):
    ran = {}
    with tempfile.TemporaryDirectory() as tmp:
        json_path = os.path.join(tmp, "client.json")
        # A fleet over SSH merges its hosts' run documents itself; here the client writes one.
        extra = [f"--json={json_path}"] if not load.startswith("go") and not runner.remote_clients() else []
        measured = runner.run_client(client_entry(load, messages), server, {}, extra_args=extra, bound_s=120,
                                     on_result=lambda r: ran.update(result=r))
        report = None
        if os.path.exists(json_path):
            with open(json_path) as f:
                report = json.load(f)
    result = ran.get("result")
    found = measured.get("found", {})
    sent = int(found["messages"][-1]) if found.get("messages") else None
    rate = found["msgs_per_s"][-1] if found.get("msgs_per_s") else None
    returncode = result.returncode if result else (0 if measured["status"] == "ok" else 1)
    row = {"server": server_name, "load": load, "returncode": returncode, "msgs_per_s": rate,
           "messages_written": sent, "client_cpu_s": measured.get("client_cpu_s"),
           "server_cpu_s": measured.get("server_cpu_s"), "wall_s": measured.get("wall_s")}
    if report is not None:
        counts = report.get("counts", {})
        row["messages_received_by_client"] = counts.get("messages_received")
        row["errors"] = sum(v for k, v in counts.items() if k.startswith("errors."))
        # //websocket:client's own count of its system calls, handshakes included.
        row["client_syscalls"] = counts.get("system_calls")
        row["client_syscalls_per_msg"] = server_syscalls.per_message(row["client_syscalls"], sent)
    histograms = (report or {}).get("histograms") or measured.get("histograms")
    if histograms:
        # Every bucket, so that rounds, client processes and machines merge exactly (histogram_merge.py).
        row["histograms"] = histograms
        histogram = histograms.get("latency")
        if histogram and "percentiles" in histogram:
            row["p50_us"] = histogram["percentiles"].get("50", 0) / 1e3
            row["p99_us"] = histogram["percentiles"].get("99", 0) / 1e3
            row["p999_us"] = histogram["percentiles"].get("99.9", 0) / 1e3
    if result is not None:
        result.tcp_segments = measured.get("tcp_segments")
    measured_run.add_cpu_per_message(row, result, row["server_cpu_s"], client_messages=sent, server_messages=sent,
                                     client_cpu=row["client_cpu_s"])
    if measured["status"] != "ok":
        progress.log(f"  {server_name}/{load}: {measured.get('error')}: {measured.get('tail', '')[-400:]}")
    return row


def summarize(rows, cases):
    keys = ("msgs_per_s", "server_cpu_us_per_msg", "server_sys_us_per_msg", "server_syscalls_per_msg",
            "client_syscalls_per_msg", "client_cpu_us_per_msg", "client_sys_us_per_msg", "tcp_segs_per_msg", "p50_us", "p99_us", "p999_us")
    return medians.summarize_cases(rows, cases, keys)


def ratios(summary, env):
    def ratio(name, a, b, target):
        return case_ratios.ratio_of(summary, name, a, b, target)

    out = []
    # Both clients write one frame per send; `target_vs_send` puts the target CPU (0.5x the Go client's)
    # beside what one loopback send alone cost in this run.
    for server_name in SERVER_MODELS + ["go"]:
        for n in ("1", "4"):
            out.append(ratio(f"msgs/s nb-client / go-client, {n} client(s), server {server_name}",
                             (server_name, "nb" + n, "msgs_per_s"), (server_name, "go" + n, "msgs_per_s"), ">= 2"))
            row = ratio(f"client CPU/msg nb-client / go-client, {n} client(s), server {server_name}",
                        (server_name, "nb" + n, "client_cpu_us_per_msg"),
                        (server_name, "go" + n, "client_cpu_us_per_msg"), "<= 0.5")
            go_client_us = medians.lookup(summary, server_name, "go" + n, "client_cpu_us_per_msg")
            row["target_vs_send"] = kernel_costs.target_vs_send(go_client_us and 0.5 * go_client_us,
                                                                env.get("kernel_costs_us"))
            out.append(row)
    for load in ("nb1", "go1", "nb4", "go4"):
        def cpu(model, load=load):
            value = medians.lookup(summary, model, load, "server_cpu_us_per_msg")
            return float("inf") if value is None else value

        best = min(SERVER_MODELS, key=cpu)
        out.append(ratio(f"server CPU/msg best netbench ({best}) / go x/net, load {load}",
                         (best, load, "server_cpu_us_per_msg"), ("go", load, "server_cpu_us_per_msg"), "<= 0.5"))
    return out


def main(argv, runner=None):
    """`runner`: the contest.Runner that starts the servers and runs the loads (the suite passes its placement,
    local or remote: with --server-host the servers run there and each load on every client host at once, a
    fleet whose row sums its hosts'); by default one on this machine, both sides sharing the CPUs, as the
    write-ups run."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    bench_arguments.common_arguments(parser)
    bench_arguments.add_rerender_argument(parser)
    parser.add_argument("--messages", type=int, default=None,
                        help="messages per client (default 100000, quick 2000)")
    parser.add_argument("--echo_messages", type=int, default=None,
                        help="messages of the echo-latency case (default 20000, quick 500)")
    parser.add_argument("--server_threads", type=int, default=1, help="event loops of the poll/epoll servers")
    args = parser.parse_args(argv)
    if args.rerender:
        return bench_report.rerender("websocket_bench", summarize, ratios)
    if args.samples < 1:
        parser.error("--samples must be at least 1")
    messages = args.messages or (2000 if args.quick else 100000)
    echo_messages = args.echo_messages or (500 if args.quick else 20000)
    samples = 1 if args.quick and args.samples == 3 else args.samples

    runner = runner or contest.Runner(pin=False)
    go_available = all(binaries.available(label) is not None
                       for label in ("//contestants/go:xnet_server", "//contestants/go:xnet_client"))
    models, refused = models_that_start(runner, SERVER_MODELS, args.server_threads)
    for model, why in refused.items():
        progress.log(f"note: netbench-{model} left out: {why}")
    server_names = models + (["go"] if go_available else [])
    loads = [load for load in SINK_LOADS if go_available or not load.startswith("go")] + ["echo1"]
    cases = [(s, load) for load in loads for s in server_names]

    env = run_environment.environment(kernel_costs.measure_kernel_costs())
    rows = []
    servers = {}
    interrupted = False
    try:
        servers = start_servers(runner, server_names, args.server_threads)
        for round_index, (server_name, load) in rounds.interleaved(cases, samples):
            progress.log(f"round {round_index + 1}/{samples}: {load} -> {server_name}")
            row = run_case(runner, servers, server_name, load, echo_messages if load == "echo1" else messages,
                           args.server_threads)
            row["round"] = round_index
            rows.append(row)
            mode = "echo" if load == "echo1" else "sink"
            if (server_name, mode) in servers and not servers[(server_name, mode)].alive():
                raise RuntimeError(f"server {server_name}-{mode} died during {load}")
    except KeyboardInterrupt:
        interrupted = True
        progress.log(f"websocket-models interrupted: keeping the {len(rows)} run(s) that finished (partial)")
    finally:
        runner.stop_all()

    # The netbench servers' own counts (each case's stop line): every message written reached the server.
    keeps_up = []
    for model in models:
        for mode in ("sink", "echo"):
            mine = [r for r in rows if r["server"] == model and ("echo" if r["load"] == "echo1" else "sink") == mode]
            written = sum(r.get("messages_written") or 0 for r in mine)
            counts = [r.get("messages_received_by_server") for r in mine]
            received = None if None in counts else sum(counts)
            keeps_up.append({"server": f"{model}-{mode}", "written": written, "received": received,
                             "equal": received == written})

    notes = (f"{messages} messages per client in sink mode, {echo_messages} in the echo case; {samples} "
             f"interleaved sample(s) per case; poll/epoll servers with {args.server_threads} loop(s). Server "
             "CPU per message from the scheduler's exact clock (bench/running/process_cpu.py; no user/system "
             "split, so no server sys column), servers and clients started and measured by the write-ups' "
             "runner (bench/running/contest.py); client CPU per message from wait4 "
             "rusage of the whole client process (connection set-up included, both clients alike). The Go "
             "client never reads and does not verify anything. "
             "Server syscalls/msg: the netbench server's own count (its stop line; each netbench case runs a server "
             "of its own, stopped after the run, so the count includes its start, handshakes and closes) over the "
             "messages written in the run; Go's server counts none (blank). "
             "Client syscalls/msg: //websocket:client's own count (its --json system_calls, handshakes and "
             "closes included) over the messages it wrote; the Go client counts none (blank). "
             + server_process.SCHEDULING_NOTE)
    for model, why in refused.items():
        notes += f" netbench-{model} left out: it did not start here: {why}."
    if args.quick:
        notes = "QUICK SMOKE RUN: not a measurement. " + notes
    notes += "\n\n## Written vs received by the netbench servers\n\n" + tables.markdown_table(keeps_up)
    summary, ratio_rows = bench_report.write_bench_report("websocket_bench", rows, cases, summarize, ratios, notes,
                                                          with_ratios=go_available, env=env, partial=interrupted)
    if interrupted:
        raise KeyboardInterrupt(f"websocket-models interrupted after {len(rows)} run(s)")
    print(tables.markdown_table(summary))
    print(tables.markdown_table(keeps_up))
    if ratio_rows:
        print(tables.markdown_table(ratio_rows))
    failed = [r for r in rows if r["returncode"] != 0]
    return 1 if failed or not all(k["equal"] for k in keeps_up) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
