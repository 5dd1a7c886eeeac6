"""WebSocket benchmark (issue 4): netbench's WebSocket server models and Go's x/net/websocket server, each
loaded by //websocket:client and by the Go client (the write-up's `websocket_client CLIENTS REQUESTS`), all
in one run.

    /usr/bin/python3 -m bench.scenarios.websocket_bench           # 3 interleaved samples, 100,000 msgs/client
    /usr/bin/python3 -m bench.scenarios.websocket_bench --quick      # smoke check: 2,000 msgs/client, 1 sample
    bazel run //:bench -- --only=websocket-models

Servers (sink mode: read and drop, as the write-up's server did): //websocket:server --mode=sink
--model=threads|poll|epoll, and the Go x/net server (//contestants/go:xnet_server). Loads, each against every server:
    nb1, nb4     //websocket:client, 1 and 4 clients x MESSAGES "hello, world!" text frames, one per write
    go1, go4     the Go client (//contestants/go:xnet_client) with the same counts
    nb4-pipe     //websocket:client, 4 clients, --pipeline=16 frames per write
Echo latency: //websocket:client --mode=echo, 1 client, one message in flight, against //websocket:server
--mode=echo (each model) and the Go server with -echo.

Per case: msgs/s (the "Sent N in T for a rate of R/second" line), server CPU us per message (scheduler
clock, exact, around the run), client CPU us per message (wait4 rusage of the whole client process, the same for
both clients), latency percentiles for echo. //websocket:client only exits 0 after every connection's
close handshake, which the server answers after reading every message before it: written == received. The
netbench servers' own totals are checked against the sum written at the end. Medians over samples, then
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
from bench.reporting import case_ratios
from bench.scenarios import kernel_costs
from bench.running import measured_run
from bench.analysis import medians
from bench.running import ports
from bench.running import progress
from bench.running import rounds
from bench.reporting import run_environment
from bench.running import server_process
from bench.reporting import tables

SERVER_MODELS = ["threads", "poll", "epoll"]
SINK_LOADS = ["nb1", "nb4", "go1", "go4", "nb4-pipe"]


def start_servers(go_available, server_threads):
    binary = binaries.bazel_binary("//websocket:server")
    servers = {}
    for mode in ("sink", "echo"):
        for model in SERVER_MODELS:
            servers[(model, mode)] = server_process.start_server(
                [binary, "--port=0", f"--mode={mode}", f"--model={model}", f"--threads={server_threads}"],
                ready=r"listening on", name=f"netbench-{model}-{mode}")
        if go_available:
            port = ports.free_port()
            cmd = [binaries.available("//contestants/go:xnet_server"), "-addr", f"127.0.0.1:{port}"]
            if mode == "echo":
                cmd.append("-echo")
            server = server_process.start_server(cmd, ready=r"listening on", name=f"go-wsserver-{mode}")
            server.bench_port = port
            if not ports.wait_until_accepting(port, timeout_s=10):
                raise RuntimeError(f"nothing accepts connections on 127.0.0.1:{port}")
            servers[("go", mode)] = server
    for server in servers.values():
        if not hasattr(server, "bench_port"):
            server.bench_port = int(re.search(r"listening on \S*:(\d+)", server.ready_line).group(1))
    return servers


def parse_sent(stdout):
    match = re.search(r"Sent (\d+) in (\S+) for a rate of (\d+(?:\.\d+)?)/second", stdout)
    return (int(match.group(1)), float(match.group(3))) if match else (None, None)


def client_command(load, port, messages, json_path):
    url = f"ws://127.0.0.1:{port}/echo"
    if load.startswith("go"):
        clients = load[2:]
        return [binaries.available("//contestants/go:xnet_client"), "-url", url, "-timeout", "120s", clients, str(messages)]
    cmd = [binaries.bazel_binary("//websocket:client"), f"--url={url}", f"--messages={messages}",
           "--progress=false", "--timeout=120s", f"--json={json_path}"]
    if load == "nb1":
        cmd += ["--clients=1"]
    elif load == "nb4":
        cmd += ["--clients=4"]
    elif load == "nb4-pipe":
        cmd += ["--clients=4", "--pipeline=16"]
    elif load == "echo1":
        cmd += ["--clients=1", "--mode=echo"]
    return cmd


def run_case(servers, server_name, load, messages):
    mode = "echo" if load == "echo1" else "sink"
    server = servers[(server_name, mode)]
    with tempfile.TemporaryDirectory() as tmp:
        json_path = os.path.join(tmp, "client.json")
        cmd = client_command(load, server.bench_port, messages, json_path)
        result, server_cpu = measured_run.run_client_against(server, cmd, timeout_s=180)
        report = None
        if os.path.exists(json_path):
            with open(json_path) as f:
                report = json.load(f)
    sent, rate = parse_sent(result.stdout)
    row = {"server": server_name, "load": load, "returncode": result.returncode, "msgs_per_s": rate,
           "messages_written": sent, "client_cpu_s": result.cpu_seconds,
           "server_cpu_s": server_cpu,
           "wall_s": result.wall_s}
    if report is not None:
        counts = report.get("counts", {})
        row["messages_received_by_client"] = counts.get("messages_received")
        row["errors"] = sum(v for k, v in counts.items() if k.startswith("errors."))
        # Every bucket, so that rounds, client processes and machines merge exactly (histogram_merge.py).
        if report.get("histograms"):
            row["histograms"] = report["histograms"]
        histogram = report.get("histograms", {}).get("latency")
        if histogram:
            row["p50_us"] = histogram["percentiles"].get("50", 0) / 1e3
            row["p99_us"] = histogram["percentiles"].get("99", 0) / 1e3
            row["p999_us"] = histogram["percentiles"].get("99.9", 0) / 1e3
    measured_run.add_cpu_per_message(row, result, server_cpu, client_messages=sent, server_messages=sent)
    if result.returncode != 0:
        progress.log(f"  {server_name}/{load}: client exited {result.returncode}: "
                     f"{(result.stdout + result.stderr).strip()[-400:]}")
    return row


def summarize(rows, cases):
    keys = ("msgs_per_s", "server_cpu_us_per_msg", "server_sys_us_per_msg", "client_cpu_us_per_msg",
            "client_sys_us_per_msg", "tcp_segs_per_msg", "p50_us", "p99_us", "p999_us")
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


def main(argv):
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

    go_available = binaries.available("//contestants/go:xnet_server") is not None and binaries.available("//contestants/go:xnet_client") is not None
    server_names = SERVER_MODELS + (["go"] if go_available else [])
    loads = [load for load in SINK_LOADS if go_available or not load.startswith("go")] + ["echo1"]
    cases = [(s, load) for load in loads for s in server_names]

    env = run_environment.environment(kernel_costs.measure_kernel_costs())
    servers = start_servers(go_available, args.server_threads)
    rows = []
    written_to = {}
    outputs = {}
    try:
        for round_index, (server_name, load) in rounds.interleaved(cases, samples):
            progress.log(f"round {round_index + 1}/{samples}: {load} -> {server_name}")
            row = run_case(servers, server_name, load, echo_messages if load == "echo1" else messages)
            row["round"] = round_index
            rows.append(row)
            mode = "echo" if load == "echo1" else "sink"
            written_to[(server_name, mode)] = written_to.get((server_name, mode), 0) + (row["messages_written"] or 0)
            if not servers[(server_name, mode)].alive():
                raise RuntimeError(f"server {server_name}-{mode} died during {load}")
    finally:
        for key, server in servers.items():
            outputs[key] = server.stop()

    # The netbench servers' own totals: every message written reached the server.
    keeps_up = []
    for model in SERVER_MODELS:
        for mode in ("sink", "echo"):
            match = re.search(r"(\d+) messages received", outputs.get((model, mode), ""))
            received = int(match.group(1)) if match else None
            keeps_up.append({"server": f"{model}-{mode}", "written": written_to.get((model, mode)),
                             "received": received,
                             "equal": received == written_to.get((model, mode))})

    notes = (f"{messages} messages per client in sink mode, {echo_messages} in the echo case; {samples} "
             f"interleaved sample(s) per case; poll/epoll servers with {args.server_threads} loop(s). Server "
             "CPU per message from the scheduler's exact clock (bench/running/process_cpu.py; no user/system "
             "split, so no server sys column); client CPU per message from wait4 "
             "rusage of the whole client process (connection set-up included, both clients alike). The Go "
             "client never reads and does not verify anything. " + server_process.SCHEDULING_NOTE)
    if args.quick:
        notes = "QUICK SMOKE RUN: not a measurement. " + notes
    notes += "\n\n## Written vs received by the netbench servers\n\n" + tables.markdown_table(keeps_up)
    summary, ratio_rows = bench_report.write_bench_report("websocket_bench", rows, cases, summarize, ratios, notes,
                                                          with_ratios=go_available, env=env)
    print(tables.markdown_table(summary))
    print(tables.markdown_table(keeps_up))
    if ratio_rows:
        print(tables.markdown_table(ratio_rows))
    failed = [r for r in rows if r["returncode"] != 0]
    return 1 if failed or not all(k["equal"] for k in keeps_up) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
