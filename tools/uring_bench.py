#!/usr/bin/python3
"""Issue 22's server table: system calls and CPU per message of the echo server on every model.

    bazel build -c opt //echo:server //echo:client //common:kernel_cost_benchmark
    tools/uring_bench.py --rounds=5 --seconds=3 [--perf] [--json=out.json]
    tools/uring_bench.py --tls --models=epoll,uring --client_model=threads --loads=stream3,pingpong1

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
import subprocess
import sys
import tempfile
import time

from uring_bench_common import ECHO_LOADS as LOADS, median, start_echo_server, write_rounds

MODELS = ["threads", "poll", "epoll", "uring"]
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime: every thread


def stop_server(server):
    server.send_signal(signal.SIGTERM)
    out, _ = server.communicate(timeout=30)
    match = re.search(r"(\d+) system calls", out)
    return int(match.group(1)) if match else None


def run_case(bin_dir, model, load, seconds, use_perf, tls=False, client_model="epoll"):
    server, port = start_echo_server(bin_dir, model, tls)
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        perf = None
        if use_perf:
            perf = subprocess.Popen(["perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter", "-p",
                                     str(server.pid)], stderr=subprocess.PIPE, text=True)
            time.sleep(0.2)  # perf attaches before the load starts
        cpu_before = cpu_seconds(server.pid)
        client = subprocess.run([os.path.join(bin_dir, "echo/client"), f"--port={port}",
                                 f"--duration={seconds}s", "--progress=false",
                                 f"--model={client_model}", f"--json={report.name}"]
                                + (["--tls", "--insecure"] if tls else []) + LOADS[load],
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3)
    parser.add_argument("--bin_dir", default="bazel-bin")
    parser.add_argument("--perf", action="store_true", help="also count with perf stat")
    parser.add_argument("--loads", default=",".join(LOADS))
    parser.add_argument("--json", default="", help="write every round's figures here")
    parser.add_argument("--tls", action="store_true",
                        help="the server with --tls, the client with --tls --insecure")
    parser.add_argument("--models", default=",".join(MODELS), help="server models, compared")
    parser.add_argument("--client_model", default="epoll", help="the echo client's --model")
    args = parser.parse_args()
    models = args.models.split(",")
    if len(models) < 2 or any(m not in MODELS for m in models):
        parser.error(f"--models: two or more of {', '.join(MODELS)}")
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds must be >= 1 and --seconds > 0")
    loads = args.loads.split(",")
    for load in loads:
        if load not in LOADS:
            parser.error(f"unknown load {load!r} (want {', '.join(LOADS)})")
    runs = {}  # (load, model) -> [round figures]
    for r in range(args.rounds):
        for load in loads:
            order = models[r % len(models):] + models[:r % len(models)]
            for model in order:
                figures = run_case(args.bin_dir, model, load, args.seconds, args.perf, args.tls,
                                   args.client_model)
                runs.setdefault((load, model), []).append(figures)
                print(f"round {r + 1} {load} {model}: {figures}", file=sys.stderr, flush=True)
    print("| load | model | syscalls/msg (own) | syscalls/msg (perf) | server CPU us/msg | "
          "CPU vs best other (per-round median) | p50 rtt us |")
    print("|---|---|---|---|---|---|---|")
    for load in loads:
        for model in models:
            rounds = runs[(load, model)]
            ratios = []
            for i, figures in enumerate(rounds):
                others = [runs[(load, m)][i]["cpu_us_per_msg"] for m in models if m != model]
                ratios.append(figures["cpu_us_per_msg"] / min(others))
            cells = [median([f[key] for f in rounds]) for key in
                     ("own_syscalls_per_msg", "perf_syscalls_per_msg", "cpu_us_per_msg", "p50_rtt_us")]
            text = ["-" if c is None else f"{c:.3f}" for c in cells]
            print(f"| {load} | {model} | {text[0]} | {text[1]} | {text[2]} | "
                  f"{median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f}) | {text[3]} |")
    if args.json:
        write_rounds(args.json, runs)


if __name__ == "__main__":
    main()
