#!/usr/bin/python3
"""Server CPU per message of two builds of one server, interleaved in every round, under one client.

    tools/server_builds_ab.py --before=/tmp/old/websocket/server --after=bazel-bin/websocket/server \\
        --client=bazel-bin/websocket/client --models=threads,poll,epoll --rounds=5

For "the WebSocket echo path lost a tenth" between two builds: each round runs, for every model, the before
and the after server (in an order that alternates from round to round), each under the same
`//websocket:client --clients=4 --mode=echo --pipeline=16 --messages=M` (epoll), and reads the
server's CPU (utime + stime of every thread, /proc/PID/stat) from just before the client starts to
just after it ends. Per model it prints the median CPU per message of each build and the median
and range of the per-round ratios after/before. Loopback only; every run is bounded by the client's
message count and --timeout.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

from uring_bench_common import cpu_seconds

def run_case(server_bin, client_bin, model, messages, clients, pipeline):
    server = subprocess.Popen([server_bin, "--port=0", "--mode=echo", f"--model={model}"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = server.stdout.readline()
        match = re.search(r"listening on [^ ]*:(\d+)", line)
        if not match:
            raise SystemExit(f"{server_bin} --model={model} did not start: {line!r}")
        before = cpu_seconds(server.pid)
        client = subprocess.run([client_bin, f"--url=ws://127.0.0.1:{match.group(1)}/echo",
                                 f"--clients={clients}", "--mode=echo", f"--pipeline={pipeline}",
                                 f"--messages={messages}", "--model=epoll", "--timeout=120s"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        after = cpu_seconds(server.pid)
        if client.returncode != 0:
            raise SystemExit(f"client failed against {server_bin} --model={model}: {client.stdout}")
    finally:
        server.terminate()
        server.wait(timeout=30)
    return (after - before) * 1e6 / (messages * clients)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="the earlier build's server binary")
    parser.add_argument("--after", required=True, help="the later build's server binary")
    parser.add_argument("--client", required=True, help="//websocket:client, used for both")
    parser.add_argument("--models", default="threads,poll,epoll")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--messages", type=int, default=200000, help="per connection")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--pipeline", type=int, default=16)
    args = parser.parse_args()
    for path in (args.before, args.after, args.client):
        if not os.access(path, os.X_OK):
            parser.error(f"not an executable: {path}")
    if args.rounds < 1 or args.messages < 1:
        parser.error("--rounds and --messages must be >= 1")
    models = args.models.split(",")
    figures = {}  # (model, build) -> [us per message per round]
    for r in range(args.rounds):
        for model in models:
            builds = [("before", args.before), ("after", args.after)]
            for name, path in (builds if r % 2 == 0 else builds[::-1]):
                us = run_case(path, args.client, model, args.messages, args.clients, args.pipeline)
                figures.setdefault((model, name), []).append(us)
                print(f"round {r + 1} {model} {name}: {us:.3f} us/msg", file=sys.stderr, flush=True)
    print("| model | before us/msg | after us/msg | after/before per round: median (range) |")
    print("|---|---|---|---|")
    for model in models:
        before, after = figures[(model, "before")], figures[(model, "after")]
        ratios = [a / b for a, b in zip(after, before) if b > 0]
        print(f"| {model} | {statistics.median(before):.3f} | {statistics.median(after):.3f} | "
              f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}) |")


if __name__ == "__main__":
    main()
