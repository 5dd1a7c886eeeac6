#!/usr/bin/python3
"""The uring client row: system calls and CPU per message sent of the client driver on uring and on epoll.

    bazel build -c opt //echo:server //echo:client //websocket:server //websocket:client \
        //common:kernel_cost_benchmark
    tools/uring_client_bench.py --rounds=3 --seconds=3 --perf [--json=out.json]

Each round starts one server per load, `--model=epoll` (the same server for both clients), and runs
the client on uring and on epoll against it, in an order that alternates from round to round, so
that the two are interleaved and a noisy neighbour hits both alike. The loads are the issue's:
`//echo:client` streaming 22-byte messages on 3 and on 64 connections, one connection ping-pong,
and `//websocket:client --clients=4 --mode=echo --pipeline=16`; `--loads` adds two where the epoll
client writes 16 messages per call (`--batch=16`), as the uring client gathers up to 16 per send.
Per case:

  - client system calls per message sent, over the client's whole run: its own count (the JSON's
    counts.system_calls, where the client reports it) and, with --perf, `perf stat -e
    raw_syscalls:sys_enter` of the client process, the independent check;
  - client CPU per message: its own report over the measured phase (client_cpu_us_per_msg) and,
    with --perf, perf's task-clock over the whole run;
  - the ratios uring/epoll, per round, then their median and range.

The kernel's prices go beside the numbers: run //common:kernel_cost_benchmark in the same session.
(tools/uring_bench.py is the server table.)
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

from uring_bench_common import ECHO_LOADS, median, start_echo_server, write_rounds

CLIENT_MODELS = ["uring", "epoll"]
CLIENT_LOADS = {
    **ECHO_LOADS,
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
                server, port = start_echo_server(args.bin_dir, "epoll")
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
        write_rounds(args.json, runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3, help="each echo load's duration")
    parser.add_argument("--ws_messages", type=int, default=200000,
                        help="messages per connection of the WebSocket load")
    parser.add_argument("--bin_dir", default="bazel-bin")
    parser.add_argument("--perf", action="store_true", help="also count with perf stat")
    parser.add_argument("--loads", default="", help=f"of {', '.join(CLIENT_LOADS)} (default: "
                                                    f"{', '.join(CLIENT_DEFAULT_LOADS)})")
    parser.add_argument("--json", default="", help="write every round's figures here")
    args = parser.parse_args()
    if args.rounds < 1 or args.seconds <= 0 or args.ws_messages < 1:
        parser.error("--rounds and --ws_messages must be >= 1 and --seconds > 0")
    client_main(args)


if __name__ == "__main__":
    main()
