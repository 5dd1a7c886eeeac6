#!/usr/bin/python3
"""Issue 22's server table: system calls and CPU per message of the echo server on every model.

    bazel build -c opt //echo:server //echo:client //common:kernel_cost_benchmark
    tools/uring_bench.py --rounds=5 --seconds=3 [--perf] [--json=out.json]

With --client, the client row instead (the client driver on uring against it on epoll):

    bazel build -c opt //echo:server //echo:client //websocket:server //websocket:client
    tools/uring_bench.py --client --rounds=3 --seconds=3 --perf

Each round starts one server per load (`--model=epoll`: the same server for both clients) and
runs the client on uring and on epoll against it, in an order that alternates from round to round.
Per case: client system calls per message sent, its own count (the JSON's counts.system_calls,
where the client reports it) and with --perf `perf stat -e raw_syscalls:sys_enter` over the
client's whole run (the independent check); client CPU per message, its own report over the
measured phase and with --perf perf's task-clock over the whole run; ratios uring/epoll per
round.

Each round runs every load against every model (threads, poll, epoll, uring), in an order that
rotates from round to round, so that the cases are interleaved and a noisy neighbour hits them all
alike; the ratios are per round (uring over the best of the other three in that round), then the
median of the rounds. Per case it reads:

  - messages: the client's messages_echoed (its JSON), over the measured phase;
  - server system calls per message: the server's own count (its stop line, "N system calls",
    which counts its whole life, connection setup included) and, with --perf,
    `perf stat -e raw_syscalls:sys_enter -p PID` over the client's run, the independent check;
  - server CPU per message: utime + stime of every thread of the server (/proc/PID/stat, io_uring
    workers included, as they are the process's threads), from just before the client starts to
    just after it ends;
  - the client's p50 round trip (ping-pong).

The kernel's prices go beside the numbers: run //common:kernel_cost_benchmark in the same session
(README: Measuring). This is a tool for the issue's table (with --perf as the independent count); the
suite carries uring through the registry (bench/registry/contestants.json) and its echo and websocket detail
scenarios.
"""

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

MODELS = ["threads", "poll", "epoll", "uring"]
LOADS = {
    "stream3": ["--clients=3", "--mode=stream"],
    "stream64": ["--clients=64", "--mode=stream"],
    "pingpong1": ["--clients=1", "--mode=pingpong"],
}
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime: every thread


def start_server(bin_dir, model):
    server = subprocess.Popen([os.path.join(bin_dir, "echo/server"), "--port=0", f"--model={model}"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    match = re.search(r"listening on [^ ]*:(\d+) ", line)
    if not match:
        server.kill()
        raise SystemExit(f"echo server --model={model} did not start: {line!r} {server.stderr.read()}")
    return server, int(match.group(1))


def stop_server(server):
    server.send_signal(signal.SIGTERM)
    out, _ = server.communicate(timeout=30)
    match = re.search(r"(\d+) system calls", out)
    return int(match.group(1)) if match else None


def run_case(bin_dir, model, load, seconds, use_perf):
    server, port = start_server(bin_dir, model)
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        perf = None
        if use_perf:
            perf = subprocess.Popen(["perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter", "-p",
                                     str(server.pid)], stderr=subprocess.PIPE, text=True)
            time.sleep(0.2)  # perf attaches before the load starts
        cpu_before = cpu_seconds(server.pid)
        client = subprocess.run([os.path.join(bin_dir, "echo/client"), f"--port={port}",
                                 f"--duration={seconds}s", "--progress=false", "--model=epoll",
                                 f"--json={report.name}"] + LOADS[load],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        cpu_after = cpu_seconds(server.pid)
        perf_calls = None
        if perf is not None:
            perf.send_signal(signal.SIGINT)
            _, err = perf.communicate(timeout=30)
            for line in err.splitlines():
                if "raw_syscalls:sys_enter" in line and line.split(",")[0].isdigit():
                    perf_calls = int(line.split(",")[0])
        own_calls = stop_server(server)
        if client.returncode != 0:
            raise SystemExit(f"client failed on {model}/{load}: {client.stderr}")
        with open(report.name) as f:
            document = json.load(f)
    counts = document.get("counts", {})
    messages = counts.get("messages_echoed") or counts.get("total_echoed")
    total = counts.get("total_echoed") or messages
    p50 = None
    histogram = document.get("histograms", {}).get("rtt")
    if histogram:  # ping-pong: every round trip; stream mode samples them through queues
        p50 = histogram["percentiles"]["50"] / 1e3
    return {
        "messages": messages,
        "own_syscalls_per_msg": own_calls / total if own_calls is not None and total else None,
        "perf_syscalls_per_msg": perf_calls / messages if perf_calls is not None else None,
        "cpu_us_per_msg": (cpu_after - cpu_before) * 1e6 / messages,
        "p50_rtt_us": p50,
    }


CLIENT_MODELS = ["uring", "epoll"]
CLIENT_LOADS = {
    "stream3": ["--clients=3", "--mode=stream"],
    "stream64": ["--clients=64", "--mode=stream"],
    "pingpong1": ["--clients=1", "--mode=pingpong"],
    "ws_echo_4x16": None,  # //websocket:client --clients=4 --mode=echo --pipeline=16
    # The uring client gathers up to 16 small outputs per send; these give the epoll client the
    # same 16 messages per write (--batch=16, the uring client keeps --batch=1), to tell the
    # gathering from the ring.
    "stream3_epoll_batch16": {"uring": ["--clients=3", "--mode=stream"],
                              "epoll": ["--clients=3", "--mode=stream", "--batch=16"]},
    "stream64_epoll_batch16": {"uring": ["--clients=64", "--mode=stream"],
                               "epoll": ["--clients=64", "--mode=stream", "--batch=16"]},
}
CLIENT_DEFAULT_LOADS = ["stream3", "stream64", "pingpong1", "ws_echo_4x16"]


def start_ws_server(bin_dir):
    server = subprocess.Popen([os.path.join(bin_dir, "websocket/server"), "--port=0",
                               "--model=epoll", "--mode=echo"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        match = re.search(r":(\d+)\b", line)
        if match:
            return server, int(match.group(1))
    server.kill()
    raise SystemExit("websocket server did not start")


def run_client_case(bin_dir, model, load, port, seconds, ws_messages, use_perf):
    with tempfile.NamedTemporaryFile(suffix=".json") as report, \
            tempfile.NamedTemporaryFile(suffix=".perf") as perf_out:
        if CLIENT_LOADS[load] is None:
            command = [os.path.join(bin_dir, "websocket/client"), f"--url=ws://127.0.0.1:{port}/echo",
                       "--clients=4", "--mode=echo", "--pipeline=16", f"--messages={ws_messages}",
                       f"--model={model}", "--progress=false", f"--json={report.name}"]
        else:
            command = [os.path.join(bin_dir, "echo/client"), f"--port={port}",
                       f"--duration={seconds}s", "--progress=false", f"--model={model}",
                       f"--json={report.name}"]
            load_args = CLIENT_LOADS[load]
            command += load_args[model] if isinstance(load_args, dict) else load_args
        if use_perf:
            command = ["perf", "stat", "-x,", "-o", perf_out.name, "-e",
                       "raw_syscalls:sys_enter,task-clock", "--"] + command
        client = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if client.returncode != 0:
            raise SystemExit(f"client --model={model} failed on {load}: {client.stderr}")
        with open(report.name) as f:
            document = json.load(f)
        perf_calls = perf_cpu_ms = None
        if use_perf:
            with open(perf_out.name) as f:
                for line in f:
                    fields = line.split(",")
                    if len(fields) > 2 and "raw_syscalls:sys_enter" in fields[2]:
                        perf_calls = int(fields[0])
                    if len(fields) > 2 and "task-clock" in fields[2]:
                        perf_cpu_ms = float(fields[0])
    counts = document.get("counts", {})
    metrics = document.get("metrics", {})
    # Messages sent over the whole run (what the system calls are counted over) and over the
    # measured phase (what the client's own CPU figure is over).
    total = counts.get("total_written") or counts.get("messages_sent")
    own_calls = counts.get("system_calls")
    return {
        "sent": total,
        "msgs_per_s": metrics.get("msgs_per_s", {}).get("value"),
        "own_syscalls_per_msg": own_calls / total if own_calls is not None else None,
        "perf_syscalls_per_msg": perf_calls / total if perf_calls is not None else None,
        "own_cpu_us_per_msg": metrics.get("client_cpu_us_per_msg", {}).get("value"),
        "perf_cpu_us_per_msg": perf_cpu_ms * 1e3 / total if perf_cpu_ms is not None else None,
    }


def client_main(args):
    loads = args.loads.split(",") if args.loads else CLIENT_DEFAULT_LOADS
    for load in loads:
        if load not in CLIENT_LOADS:
            raise SystemExit(f"unknown client load {load!r} (want {', '.join(CLIENT_LOADS)})")
    runs = {}  # (load, model) -> [round figures]
    for r in range(args.rounds):
        for load in loads:
            if CLIENT_LOADS[load] is None:
                server, port = start_ws_server(args.bin_dir)
            else:
                server, port = start_server(args.bin_dir, "epoll")
            order = CLIENT_MODELS if r % 2 == 0 else CLIENT_MODELS[::-1]
            for model in order:
                figures = run_client_case(args.bin_dir, model, load, port, args.seconds,
                                          args.ws_messages, args.perf)
                runs.setdefault((load, model), []).append(figures)
                print(f"round {r + 1} {load} {model}: {figures}", file=sys.stderr, flush=True)
            server.send_signal(signal.SIGTERM)
            server.communicate(timeout=30)

    def cell(value, digits=3):
        return "-" if value is None else f"{value:.{digits}f}"

    def ratio(load, key):
        values = []
        for u, e in zip(runs[(load, "uring")], runs[(load, "epoll")]):
            if u[key] is not None and e[key]:
                values.append(u[key] / e[key])
        if not values:
            return "-"
        return f"{median(values):.2f} ({min(values):.2f}-{max(values):.2f})"

    print("| load | client model | syscalls/msg sent (own) | syscalls/msg sent (perf) | "
          "client CPU us/msg (own, measured phase) | client CPU us/msg (perf task-clock, whole run) "
          "| msgs/s |")
    print("|---|---|---|---|---|---|---|")
    for load in loads:
        for model in CLIENT_MODELS:
            rounds = runs[(load, model)]
            cells = [median([f[key] for f in rounds]) for key in
                     ("own_syscalls_per_msg", "perf_syscalls_per_msg", "own_cpu_us_per_msg",
                      "perf_cpu_us_per_msg", "msgs_per_s")]
            print(f"| {load} | {model} | {cell(cells[0])} | {cell(cells[1])} | {cell(cells[2])} | "
                  f"{cell(cells[3])} | {cell(cells[4], 0)} |")
    print()
    print("| load | uring/epoll syscalls (perf) | uring/epoll CPU (own) | uring/epoll CPU (perf) |")
    print("|---|---|---|---|")
    for load in loads:
        print(f"| {load} | {ratio(load, 'perf_syscalls_per_msg')} | "
              f"{ratio(load, 'own_cpu_us_per_msg')} | {ratio(load, 'perf_cpu_us_per_msg')} |")
    print("\n(ratios: the median of the per-round ratios, and their range)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({f"{load}/{model}": rounds for (load, model), rounds in runs.items()}, f,
                      indent=1)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3)
    parser.add_argument("--bin_dir", default="bazel-bin")
    parser.add_argument("--perf", action="store_true", help="also count with perf stat")
    parser.add_argument("--loads", default="",
                        help=f"server table: {','.join(LOADS)} (all by default); "
                             f"--client: {','.join(CLIENT_LOADS)}")
    parser.add_argument("--client", action="store_true",
                        help="the client row: the client driver on uring and on epoll against one "
                             "epoll server")
    parser.add_argument("--ws_messages", type=int, default=200000,
                        help="--client: messages per connection of the WebSocket load")
    parser.add_argument("--json", default="", help="write every round's figures here")
    args = parser.parse_args()
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds must be >= 1 and --seconds > 0")
    if args.client:
        return client_main(args)
    loads = args.loads.split(",") if args.loads else list(LOADS)
    for load in loads:
        if load not in LOADS:
            parser.error(f"unknown load {load!r} (want {', '.join(LOADS)})")
    runs = {}  # (load, model) -> [round figures]
    for r in range(args.rounds):
        for load in loads:
            order = MODELS[r % len(MODELS):] + MODELS[:r % len(MODELS)]
            for model in order:
                figures = run_case(args.bin_dir, model, load, args.seconds, args.perf)
                runs.setdefault((load, model), []).append(figures)
                print(f"round {r + 1} {load} {model}: {figures}", file=sys.stderr, flush=True)
    print("| load | model | syscalls/msg (own) | syscalls/msg (perf) | server CPU us/msg | "
          "CPU vs best other (per-round median) | p50 rtt us |")
    print("|---|---|---|---|---|---|---|")
    for load in loads:
        for model in MODELS:
            rounds = runs[(load, model)]
            ratios = []
            for i, figures in enumerate(rounds):
                others = [runs[(load, m)][i]["cpu_us_per_msg"] for m in MODELS if m != model]
                ratios.append(figures["cpu_us_per_msg"] / min(others))
            cells = [median([f[key] for f in rounds]) for key in
                     ("own_syscalls_per_msg", "perf_syscalls_per_msg", "cpu_us_per_msg", "p50_rtt_us")]
            text = ["-" if c is None else f"{c:.3f}" for c in cells]
            print(f"| {load} | {model} | {text[0]} | {text[1]} | {text[2]} | "
                  f"{median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f}) | {text[3]} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({f"{load}/{model}": rounds for (load, model), rounds in runs.items()}, f,
                      indent=1)


if __name__ == "__main__":
    main()
