#!/usr/bin/python3
"""The uring server table: system calls and CPU per message of the echo and websocket servers on every model.

    bazel build -c opt //echo:server //echo:client //websocket:server //websocket:client \\
        //common:kernel_cost_benchmark
    bazel-bin/common/kernel_cost_benchmark --benchmark_format=json > /tmp/kernel_costs.json
    tools/uring_bench.py --rounds=5 --seconds=3 [--perf] [--json=out.json] \\
        [--out=results/data/uring_bench --kernel_costs=/tmp/kernel_costs.json]
    tools/uring_bench.py --tls --models=epoll,uring --client_model=threads --loads=stream3,pingpong1

Each round runs every load against every model (threads, poll, epoll, uring), in an order that
rotates from round to round, so that the cases are interleaved and a noisy neighbour hits them all
alike; the ratios are per round (a model over the best of threads, poll and epoll other than itself
in that round), then the median of the rounds. --before_bin_dir adds another build's uring (say,
main's before a change) as the model uring-before in the same rounds. Per case it reads:

  - messages: the client's messages_echoed (its JSON), over the measured phase;
  - server system calls per message: the server's own count (its stop line, "N system calls",
    which counts its whole life, connection setup included) and, with --perf,
    `perf stat -e raw_syscalls:sys_enter -p PID` over the client's run, the independent check;
  - the server's timeslices per message: how many times its threads were put on a CPU
    (/proc/PID/task/*/schedstat), wakeups and returns from preemption alike;
  - server CPU per message: utime + stime of every thread of the server (/proc/PID/stat, io_uring
    workers included, as they are the process's threads), from just before the client starts to
    just after it ends;
  - the client's p50 round trip (ping-pong), and per round over the best other model's.

--out stores the run as results/data keeps other tools' documents (schema netbench.uring_bench/1,
which bench/reporting/result_schema.py's OTHER_TOOLS names, so compare passes over it): every round's
figures, the summary, the command, the kernel and the kernel's prices of the session, and a markdown
file with the table.

The kernel's prices go beside the numbers: run //common:kernel_cost_benchmark in the same session
(README: Measuring). This is a tool for the issue's table (with --perf as the independent count); the
suite carries uring through the registry (bench/registry/contestants.json) and its echo and websocket detail
scenarios.
"""

import argparse
import glob
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

from uring_bench_common import ECHO_LOADS, cpu_seconds, median, start_server as start_program_server, write_rounds

MODELS = ["threads", "poll", "epoll", "uring"]
BASELINES = ["threads", "poll", "epoll"]  # "best other" is the best of these (the targets the uring model was built to meet)
BEFORE = "uring-before"  # --before_bin_dir's uring, run beside this build's in the same rounds
# load -> (program, its client's arguments). The websocket load is the issue's "4 clients x 16 in
# flight": //websocket:server --mode=echo and its client in echo mode, a fixed count of messages
# per connection (its client has no duration) scaled to --seconds.
LOADS = {**{name: ("echo", flags) for name, flags in ECHO_LOADS.items()},
         "ws4x16": ("websocket", ["--clients=4", "--mode=echo", "--pipeline=16"])}
WS_MESSAGES_PER_SECOND = 125000  # per connection, about what this machine's client echoes


BEFORE_BIN_DIR = None


def timeslices(pid):
    """How many times the kernel has put any of the server's threads on a CPU (/proc/PID/task/*/schedstat,
    the third field): each wakeup is one, and so is each return from a preemption."""
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            with open(path) as f:
                total += int(f.read().split()[2])
        except (OSError, IndexError, ValueError):
            pass  # a thread that ended meanwhile
    return total


def start_server(bin_dir, model, program, tls):
    if model == BEFORE:
        bin_dir, model = BEFORE_BIN_DIR, "uring"
    return start_program_server(bin_dir, model, tls, program)


def stop_server(server):
    server.send_signal(signal.SIGTERM)
    out, _ = server.communicate(timeout=30)
    match = re.search(r"(\d+) system calls", out)
    return int(match.group(1)) if match else None


def run_case(bin_dir, model, load, seconds, use_perf, tls=False, client_model="epoll"):
    program, load_args = LOADS[load]
    server, port = start_server(bin_dir, model, program, tls)
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        perf = None
        if use_perf:
            perf = subprocess.Popen(["perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter", "-p",
                                     str(server.pid)], stderr=subprocess.PIPE, text=True)
            time.sleep(0.2)  # perf attaches before the load starts
        cpu_before = cpu_seconds(server.pid)
        slices_before = timeslices(server.pid)
        if program == "websocket":
            target = [f"--url={'wss' if tls else 'ws'}://127.0.0.1:{port}/echo",
                      f"--messages={int(seconds * WS_MESSAGES_PER_SECOND)}"]
        else:
            target = [f"--port={port}", f"--duration={seconds}s"]
        client = subprocess.run([os.path.join(bin_dir, program, "client")] + target +
                                ["--progress=false", f"--model={client_model}", f"--json={report.name}"]
                                + (["--insecure"] if tls else []) + (["--tls"] if tls and program == "echo" else [])
                                + load_args,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        cpu_after = cpu_seconds(server.pid)
        slices_after = timeslices(server.pid)
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
    messages = (counts.get("messages_echoed") or counts.get("total_echoed")
                or counts.get("messages_received"))
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
        # The threads model's connection threads end with their connections, taking their counts along.
        "timeslices_per_msg": None if model == "threads" else (slices_after - slices_before) / messages,
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
    parser.add_argument("--before_bin_dir", default="",
                        help="a folder with another build's echo/server and websocket/server (say, main's "
                             "before a change): its uring runs as the model uring-before in the same rounds")
    parser.add_argument("--out", default="",
                        help="write the run as a stored document: OUT/uring_bench.json (schema "
                             "netbench.uring_bench/1) and OUT/uring_bench.md (the command, the kernel's "
                             "prices and the table)")
    parser.add_argument("--kernel_costs", default="",
                        help="//common:kernel_cost_benchmark's --benchmark_format=json output of the same "
                             "session, stored beside the figures (--out)")
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
    kernel_costs = None
    if args.kernel_costs:
        try:
            with open(args.kernel_costs) as f:
                kernel_costs = [{"name": b["name"], "cpu_time_ns": b["cpu_time"], "time_unit": b["time_unit"]}
                                for b in json.load(f)["benchmarks"]]
        except (OSError, ValueError, KeyError) as error:
            parser.error(f"--kernel_costs={args.kernel_costs}: not a Google Benchmark JSON report ({error})")
    if args.before_bin_dir:
        global BEFORE_BIN_DIR
        BEFORE_BIN_DIR = args.before_bin_dir
        models.append(BEFORE)
        for load in loads:
            server = os.path.join(args.before_bin_dir, LOADS[load][0], "server")
            if not os.access(server, os.X_OK):
                parser.error(f"--before_bin_dir={args.before_bin_dir}: no {server}")
    load_before = os.getloadavg()
    runs = {}  # (load, model) -> [round figures]
    for r in range(args.rounds):
        for load in loads:
            order = models[r % len(models):] + models[:r % len(models)]
            for model in order:
                figures = run_case(args.bin_dir, model, load, args.seconds, args.perf, args.tls,
                                   args.client_model)
                runs.setdefault((load, model), []).append(figures)
                print(f"round {r + 1} {load} {model}: {figures}", file=sys.stderr, flush=True)
    rows = summarize(runs, loads, models)
    table = markdown_table(rows)
    print(table)
    if args.json:
        write_rounds(args.json, runs)
    if args.out:
        write_document(args, runs, rows, table, kernel_costs, load_before)


def per_round_ratios(runs, load, model, key):
    """Per round: `model`'s figure over the lowest of the other baseline models' in that round."""
    ratios = []
    for i, figures in enumerate(runs[(load, model)]):
        others = [runs[(load, m)][i][key] for m in BASELINES
                  if m != model and (load, m) in runs and runs[(load, m)][i][key]]
        if figures[key] and others:
            ratios.append(figures[key] / min(others))
    return ratios


def summarize(runs, loads, models):
    rows = []
    for load in loads:
        for model in models:
            rounds = runs[(load, model)]
            row = {"load": load, "model": model}
            for key in ("messages", "own_syscalls_per_msg", "perf_syscalls_per_msg", "timeslices_per_msg",
                        "cpu_us_per_msg", "p50_rtt_us"):
                row[key] = median([f[key] for f in rounds])
            row["cpu_vs_best_other"] = per_round_ratios(runs, load, model, "cpu_us_per_msg")
            row["p50_vs_best_other"] = per_round_ratios(runs, load, model, "p50_rtt_us")
            rows.append(row)
    return rows


def markdown_table(rows):
    def ratio(values):
        return f"{median(values):.2f} ({min(values):.2f}-{max(values):.2f})" if values else "-"

    def number(value):
        return "-" if value is None else f"{value:.3f}"

    lines = ["| load | model | syscalls/msg (own) | syscalls/msg (perf) | timeslices/msg | server CPU us/msg | "
             "CPU vs best other (per-round median) | p50 rtt us | p50 vs best other |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['load']} | {row['model']} | {number(row['own_syscalls_per_msg'])} | "
                     f"{number(row['perf_syscalls_per_msg'])} | {number(row['timeslices_per_msg'])} | "
                     f"{number(row['cpu_us_per_msg'])} | "
                     f"{ratio(row['cpu_vs_best_other'])} | {number(row['p50_rtt_us'])} | "
                     f"{ratio(row['p50_vs_best_other'])} |")
    return "\n".join(lines)


def write_document(args, runs, rows, table, kernel_costs, load_before):
    """The run as results/data stores another tool's documents: it names its schema (result_schema.OTHER_TOOLS)."""
    def git(*command):
        result = subprocess.run(["git", *command], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return result.stdout.strip() if result.returncode == 0 else None

    command = "tools/uring_bench.py " + " ".join(sys.argv[1:])
    document = {
        "schema": "netbench.uring_bench/1",
        "git_commit": git("rev-parse", "--short=12", "HEAD"),
        "git_dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": command,
        "kernel": os.uname().release,
        "cpus": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "client": "//echo:client or //websocket:client --model=epoll",
        "kernel_costs": kernel_costs,
        "summary": rows,
        "rounds": {f"{load}/{model}": rounds for (load, model), rounds in runs.items()},
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "uring_bench.json"), "w") as f:
        json.dump(document, f, indent=1)
        f.write("\n")
    prices = ["| benchmark | CPU |", "|---|---|"] + [
        f"| {b['name']} | {b['cpu_time_ns']:.0f} {b['time_unit']} |" for b in kernel_costs or []]
    with open(os.path.join(args.out, "uring_bench.md"), "w") as f:
        f.write(f"# tools/uring_bench.py, {document['timestamp_utc']} (commit {document['git_commit']}"
                f"{', dirty' if document['git_dirty'] else ''})\n\n"
                f"    {command}\n\n"
                f"Kernel {document['kernel']}, {document['cpus']} CPUs, load average "
                f"{load_before[0]:.1f} before and {document['load_average_after'][0]:.1f} after. Ratios are "
                f"per round (the model's figure over the lowest of threads, poll and epoll other than itself "
                f"in that round), the "
                f"median of the rounds, then their range.\n\n"
                f"## The kernel's prices in this session (`//common:kernel_cost_benchmark`)\n\n"
                + ("\n".join(prices) if kernel_costs else "(not given: --kernel_costs)") +
                f"\n\n## Server system calls and CPU per message\n\n{table}\n")

if __name__ == "__main__":
    main()
