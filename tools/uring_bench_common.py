"""What the uring benchmarks share: tools/uring_bench.py (the server table) and
tools/uring_client_bench.py (the client row) load //echo:server with //echo:client the same way.

    from uring_bench_common import ECHO_LOADS, median, start_echo_server, write_rounds
    server, port = start_echo_server("bazel-bin", "epoll")
"""

import json
import os
import re
import statistics
import subprocess

TICKS = os.sysconf("SC_CLK_TCK")

# The echo loads: //echo:client's flags beside --port, --duration and --model.
ECHO_LOADS = {
    "stream3": ["--clients=3", "--mode=stream"],
    "stream64": ["--clients=64", "--mode=stream"],
    "pingpong1": ["--clients=1", "--mode=pingpong"],
}


def start_server(bin_dir, model, tls=False, program="echo"):
    """Starts //echo:server (or //websocket:server in echo mode) on a free loopback port: (the
    process, its port)."""
    extra = (["--mode=echo"] if program == "websocket" else []) + (["--tls"] if tls else [])
    server = subprocess.Popen([os.path.join(bin_dir, program, "server"), "--port=0", f"--model={model}"]
                              + extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    if line.startswith("tls certificate"):
        line = server.stdout.readline()
    match = re.search(r"listening on [^ ]*:(\d+) ", line)
    if not match:
        server.kill()
        raise SystemExit(f"{program} server --model={model} did not start: {line!r} {server.stderr.read()}")
    return server, int(match.group(1))


def start_echo_server(bin_dir, model, tls=False):
    """Starts //echo:server on a free loopback port: (the process, its port)."""
    return start_server(bin_dir, model, tls)


def cpu_seconds(pid):
    """utime + stime of every thread of process `pid` so far (/proc/PID/stat), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def median(values):
    """The median of the values that are not None; None when there are none."""
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def write_rounds(path, runs):
    """Every round's figures, {(load, model): [figures]}, as JSON keyed "load/model"."""
    with open(path, "w") as f:
        json.dump({f"{load}/{model}": rounds for (load, model), rounds in runs.items()}, f, indent=1)
