"""Soak: every server in every model under a bounded mixed load, sampled every 10 s.

  /usr/bin/python3 -m bench.studies.soak [--servers=echo,websocket,origin] [--models=threads,poll,epoll,uring]
                                         [--minutes=5] [--out=DIR]

From the checkout: the programs come from a test's runfiles, else bazel builds them (bench/running/binaries.py).

--models defaults to every model this build and machine run (each server's `--check` says: the portable
libc++ build has no epoll and no uring, and a kernel or seccomp filter can refuse io_uring); a model named
explicitly must run. The well-behaved clients use epoll where it is built, else poll.

For each server x model it starts the built server on 127.0.0.1, port 0 (the suite's server start,
bench/running/server_process.py, which reads the port from its ready line), and for --minutes (or --seconds)
runs at once, each at a bounded rate:
  well-behaved  netbench's own clients, back to back, each run short and bounded (count and timeout), with
                --json, so every run's p99 and errors are read from its report:
                  echo       stream (open loop, --rate) and pingpong (--messages)
                  websocket  echo one in flight (ping-pong) and echo --pipeline=32 (streaming)
                  origin     fanout --keepalive, 2 in flight (ping-pong), and fanout 8 in flight with a
                             connection per request (streaming bodies, churn of its own)
  churn         connect and close, --churn-rate a second (default 200), half after sending a valid request
                or handshake, a quarter closed with RST (SO_LINGER 0)
  slow          peers that send a request or message a byte at a time (one byte per 200 ms) and read slowly
  non-reading   peers that write until the socket blocks (up to 8 MiB) and never read, held 15 s
  oversize      echo: one 4 MiB write, then close; websocket: a frame announcing 1 GiB (over
                --max_message_size); origin: a 100 KiB request head (over the 64 KiB limit)
  malformed     echo: random bytes; websocket: a handshake without a key, an unmasked frame, a reserved
                opcode, invalid UTF-8; origin: a garbage request line, a bad version, a bad Content-Length
                (the hostile peers: testing/hostile_peers.py)
Every 10 s (--sample-seconds) it samples the server's RSS (VmRSS) and threads (/proc/PID/status), its
descriptors (/proc/PID/fd), its CPU time (the scheduler's clock, bench/running/process_cpu.py), and the
well-behaved clients' p99 (the largest p99 of the runs that ended in that window) and errors. When the load
stops it waits (at most --settle-seconds) for the server to settle, then takes the end sample.

Passes when:
  - no well-behaved client run saw an error (a non-zero exit, or a count named errors.*, mismatch* or
    failed* above 0), and every window had runs;
  - descriptors and threads at the end equal those at the start (the load's connections are all closed);
  - RSS at the end is within the bounds' allowance of the start:
        allowance = peak connections x (max_pending_input_kib + max_pending_output_kib) KiB
    where the server's per-connection bounds are the flags this tool passes it (--max-pending-input-kib,
    --max-pending-output-kib, the servers' defaults 256 and 1024), and peak connections is the most the
    load can hold open at once by construction (the clients' connections plus the caps on every kind of
    peer, printed at the start). What stays resident after every connection has closed (allocator caches,
    thread stacks kept for reuse) is at most what those connections could legitimately have buffered; a
    leak per connection grows with the connections made (tens of thousands), not the ones open at once:
    the result names the smallest leak per connection this run would catch (allowance / connections the
    server accepted, from its closing line), and the longer the run, the smaller it is.
The server must also stay up throughout. The result (the run's environment as the suite records it,
bench/reporting/run_environment.py; every sample, every client run's p99 and errors, the peers' counts, the
verdict) goes to OUT/<server>-<model>.json, the chart (RSS, descriptors, p99 over time) to
OUT/<server>-<model>.svg. Exit 0 when every run passed, 1 when one failed (a line says which and
why), 2 for usage.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

from bench.reporting import result_files
from bench.reporting import run_environment
from bench.running import binaries
from bench.running import process_cpu
from bench.running import server_process
from common import server_lines
from testing.hostile_peers import Peers

SERVERS = {
    "echo": "//echo:server",
    "websocket": "//websocket:server",
    "origin": "//httpfanout:origin",
}
CLIENTS = {
    "echo": "//echo:client",
    "websocket": "//websocket:client",
    "origin": "//httpfanout:fanout",
}
MODELS = ("threads", "poll", "epoll", "uring")
CLIENT_MODELS = ("epoll", "poll")  # the first the build has; clients have no uring model

CLIENT_PERIOD_S = 1.0  # at most one run of each well-behaved job a second


class UsageError(Exception):
    pass


# --- Well-behaved load: netbench's own clients ---------------------------------------------------------------

def model_refusal(model):
    """None where every server runs `model` here, else what the first that cannot says (its --check)."""
    for label in SERVERS.values():
        result = subprocess.run([binaries.bazel_binary(label), f"--model={model}", "--check"], capture_output=True,
                                text=True, timeout=60)
        if result.returncode != 0:
            said = (result.stderr.strip() or result.stdout.strip()).splitlines()
            return said[-1] if said else f"{label} --model={model} --check exited {result.returncode}"
    return None


def available_models():
    return [m for m in MODELS if model_refusal(m) is None]


def client_jobs(server, client, port, client_model="epoll"):
    """[(name, argv, connections)]: the well-behaved jobs, each run repeatedly; argv lacks --json."""
    if server == "echo":
        common = [client, "--host=127.0.0.1", f"--port={port}", f"--model={client_model}", "--progress=false"]
        return [
            ("stream", common + ["--mode=stream", "--clients=2", "--rate=2000", "--duration=2s",
                                 "--drain_timeout=5s", "--timeout=20s"], 2),
            ("pingpong", common + ["--mode=pingpong", "--clients=2", "--messages=2000", "--timeout=20s"], 2),
        ]
    if server == "websocket":
        common = [client, f"--url=ws://127.0.0.1:{port}/echo", f"--model={client_model}", "--progress=false",
                  "--mode=echo", "--timeout=20s"]
        return [
            ("pingpong", common + ["--clients=2", "--messages=1000"], 2),
            ("stream", common + ["--clients=1", "--pipeline=32", "--messages=5000"], 1),
        ]
    url = f"--url=http://127.0.0.1:{port}/"
    common = [client, url, f"--model={client_model}", "--repetitions=1", "--quiet", "--timeout=20s",
              "--connect_timeout=10s"]
    return [
        ("pingpong", common + ["--requests=100", "--concurrency=2", "--keepalive"], 2),
        ("stream", common + ["--requests=100", "--concurrency=8"], 8),
    ]


def read_run(report):
    """(p99 ns or None, {error key: count}) from a netbench.run/1 document."""
    errors = {key: value for key, value in report.get("counts", {}).items()
              if value and (key.startswith("errors") or key.startswith("mismatch") or key.startswith("failed"))}
    p99s = [h["percentiles"].get("99") for h in report.get("histograms", {}).values() if h.get("count")]
    p99s = [p for p in p99s if p is not None]
    return (max(p99s) if p99s else None), errors


class ClientLoop(threading.Thread):
    """Runs one well-behaved job back to back (at most one start per CLIENT_PERIOD_S) until stopped."""

    def __init__(self, name, argv, stop, started):
        super().__init__(daemon=True)
        self.job, self.argv, self.stop, self.started = name, argv, stop, started
        self.runs = []

    def run(self):
        with tempfile.TemporaryDirectory() as folder:
            report_path = os.path.join(folder, "run.json")
            while not self.stop.is_set():
                begin = time.monotonic()
                try:
                    os.unlink(report_path)
                except FileNotFoundError:
                    pass
                record = {"job": self.job, "start_s": round(begin - self.started, 3)}
                try:
                    result = subprocess.run(self.argv + [f"--json={report_path}"], capture_output=True,
                                            text=True, timeout=60)
                    record["exit"] = result.returncode
                    if os.path.exists(report_path):
                        with open(report_path) as f:
                            p99, errors = read_run(json.load(f))
                    else:
                        p99, errors = None, {"no report": 1}
                    if result.returncode != 0:
                        errors["exit"] = result.returncode
                        record["stderr"] = (result.stderr or result.stdout)[-400:]
                except subprocess.TimeoutExpired:
                    p99, errors = None, {"timeout": 1}
                    record["exit"] = None
                end = time.monotonic()
                record.update(end_s=round(end - self.started, 3), p99_ns=p99, errors=errors)
                self.runs.append(record)
                self.stop.wait(max(0.0, CLIENT_PERIOD_S - (end - begin)))


# --- The server and its samples ------------------------------------------------------------------------------

def proc_sample(pid):
    """{'rss_kib', 'threads', 'fds', 'cpu_s'} of a live process (its CPU from the scheduler's clock)."""
    sample = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                sample["rss_kib"] = int(line.split()[1])
            elif line.startswith("Threads:"):
                sample["threads"] = int(line.split()[1])
    sample["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    sample["cpu_s"] = round(process_cpu.cpu_seconds_of(pid), 3)
    return sample


def server_argv(args, server, model):
    return [binaries.bazel_binary(SERVERS[server]), "--host=127.0.0.1", "--port=0", f"--model={model}",
            f"--max_pending_input_kib={args.max_pending_input_kib}",
            f"--max_pending_output_kib={args.max_pending_output_kib}"]


def window_stats(runs, begin, end):
    in_window = [r for r in runs if begin < r["end_s"] <= end]
    p99s = [r["p99_ns"] for r in in_window if r["p99_ns"] is not None]
    return {"runs": len(in_window), "errors": sum(1 for r in in_window if r["errors"]),
            "p99_ms": round(max(p99s) / 1e6, 3) if p99s else None}


def verdict(start, end, allowance_kib, runs, samples, server_alive):
    """[] when the run passed, else the reasons it failed (one line each)."""
    reasons = []
    if not server_alive:
        reasons.append("the server exited during the soak")
    failed = [r for r in runs if r["errors"]]
    if failed:
        first = failed[0]
        reasons.append(f"{len(failed)} of {len(runs)} well-behaved client runs saw errors; first: "
                       f"{first['job']} at {first['start_s']} s: {first['errors']}")
    empty = [s["t_s"] for s in samples if s["phase"] == "load" and s["client_runs"] == 0]
    if empty:
        reasons.append(f"no well-behaved client run ended in the windows ending at {empty} s")
    if end is None:
        return reasons
    if end["fds"] != start["fds"]:
        reasons.append(f"descriptors: {end['fds']} at the end, {start['fds']} at the start")
    if end["threads"] != start["threads"]:
        reasons.append(f"threads: {end['threads']} at the end, {start['threads']} at the start")
    grown = end["rss_kib"] - start["rss_kib"]
    if grown > allowance_kib:
        reasons.append(f"RSS grew {grown} KiB (start {start['rss_kib']}, end {end['rss_kib']}), over the "
                       f"allowance of {allowance_kib} KiB")
    return reasons


class SoakRun:
    """One server in one model under the load: the server (bench/running/server_process.py), the well-behaved
    clients' loops, the hostile peers and the samples."""

    def __init__(self, args, server, model, log):
        self.args, self.server, self.model, self.log = args, server, model, log
        self.argv = server_argv(args, server, model)
        self.process = server_process.start_server(self.argv, ready=r"^listening on ")
        self.port = self.process.port()
        client = binaries.bazel_binary(CLIENTS[server])
        self.jobs = client_jobs(server, client, self.port, args.client_model)
        self.peak_connections = sum(c for _, _, c in self.jobs) + Peers.cap()
        self.allowance_kib = self.peak_connections * (args.max_pending_input_kib + args.max_pending_output_kib)
        self.started = time.monotonic()
        self.environment = run_environment.environment()
        self.samples, self.loops, self.peers, self.stop = [], [], None, threading.Event()
        self.end, self.settle_s = None, None

    def sample(self, phase, t=None):
        s = proc_sample(self.process.pid)
        s.update(t_s=round(time.monotonic() - self.started if t is None else t, 1), phase=phase)
        return s

    def run(self):
        """Loads, samples, settles and stops the server; returns the result document."""
        try:
            self._start_load()
            self._load()
        finally:
            self.stop.set()
            for loop in self.loops:
                loop.join(timeout=90)
            if self.peers is not None:
                self.peers.stop()
        alive = self.process.alive()
        if alive:
            self._settle()
        output = self.process.stop(timeout_s=30)
        return self._result(alive, output)

    def _start_load(self):
        start = self.sample("start", 0.0)
        start.update(client_runs=0, client_errors=0, p99_ms=None)
        self.samples.append(start)
        self.log(f"{self.server}/{self.model}: pid {self.process.pid}, port {self.port}; start RSS "
                 f"{start['rss_kib']} KiB, {start['fds']} descriptors, {start['threads']} threads; load for "
                 f"{self.args.seconds:g} s; at most {self.peak_connections} connections at once, so the RSS "
                 f"allowance is {self.allowance_kib} KiB")
        self.loops = [ClientLoop(name, argv, self.stop, self.started) for name, argv, _ in self.jobs]
        for loop in self.loops:
            loop.start()
        self.peers = Peers(self.server, self.port, self.args.churn_rate)
        self.peers.start()

    def _load(self):
        """A sample at every multiple of --sample-seconds, the last one when the load ends."""
        last = 0.0
        while self.process.alive() and last < self.args.seconds:
            due = min(last + self.args.sample_seconds, self.args.seconds)
            self.stop.wait(max(0.0, due - (time.monotonic() - self.started)))
            if not self.process.alive():
                break
            now = time.monotonic() - self.started
            s = self.sample("load")
            window = window_stats(self.runs(), last, now)
            s.update(client_runs=window["runs"], client_errors=window["errors"], p99_ms=window["p99_ms"],
                     peer_connections_open=self.peers.open)
            self.samples.append(s)
            self.log(f"{self.server}/{self.model} {s['t_s']:6.1f} s: RSS {s['rss_kib']} KiB, {s['fds']} fds, "
                     f"{s['threads']} threads, p99 {s['p99_ms']} ms, {s['client_runs']} client runs, "
                     f"{s['client_errors']} with errors, {self.peers.open} peer connections open")
            last = now

    def _settle(self):
        """The end sample: once descriptors and threads are back at their start, or --settle-seconds gone."""
        start, load_end = self.samples[0], time.monotonic()
        while True:
            end = self.sample("end")
            if (end["fds"] == start["fds"] and end["threads"] == start["threads"]) or \
                    time.monotonic() - load_end > self.args.settle_seconds:
                break
            time.sleep(0.25)
        self.settle_s = round(time.monotonic() - load_end, 2)
        end.update(client_runs=0, client_errors=0, p99_ms=None)
        self.samples.append(end)
        self.end = end

    def runs(self):
        return sorted((r for loop in self.loops for r in loop.runs), key=lambda r: r["end_s"])

    def _load_settings(self):
        peers = self.peers or Peers(self.server, self.port, self.args.churn_rate)  # none started: none counted
        return {"clients": [{"job": name, "argv": a, "connections": c} for name, a, c in self.jobs],
                **peers.described()}

    def _summary(self, runs, served):
        samples, start, end = self.samples, self.samples[0], self.end
        p99s = [s["p99_ms"] for s in samples if s["phase"] == "load" and s["p99_ms"] is not None]
        spans = {key: {"start": start[key], "peak": max(s[key] for s in samples), "end": end[key] if end else None}
                 for key in ("rss_kib", "fds", "threads")}
        return {**spans, "connections_served": served,
                # A leak of this many bytes per connection or more exceeds the allowance by the end of this run.
                "leak_caught_bytes_per_connection": round(self.allowance_kib * 1024 / served) if served else None,
                "server_cpu_s": round(samples[-1]["cpu_s"] - start["cpu_s"], 3),
                "client_runs": len(runs), "client_runs_with_errors": sum(1 for r in runs if r["errors"]),
                "p99_ms": {"first": p99s[0] if p99s else None, "last": p99s[-1] if p99s else None,
                           "median": sorted(p99s)[len(p99s) // 2] if p99s else None,
                           "max": max(p99s) if p99s else None}}

    def _result(self, alive, output):
        runs, args = self.runs(), self.args
        reasons = verdict(self.samples[0], self.end, self.allowance_kib, runs, self.samples, alive)
        return {
            "schema": "netbench.soak/1", "git_commit": self.environment["git_commit"],
            "timestamp_utc": self.environment["timestamp_utc"], "environment": self.environment,
            "server": self.server, "model": self.model, "server_argv": self.argv,
            "seconds": args.seconds, "sample_seconds": args.sample_seconds, "settle_s": self.settle_s,
            "load": self._load_settings(),
            "allowance": {"peak_connections": self.peak_connections,
                          "max_pending_input_kib": args.max_pending_input_kib,
                          "max_pending_output_kib": args.max_pending_output_kib,
                          "rss_kib": self.allowance_kib, "fds": 0, "threads": 0},
            "summary": self._summary(runs, (server_lines.closing_counts(output) or {}).get("connections")),
            "passed": not reasons, "reasons": reasons,
            "samples": self.samples, "client_runs": runs, "server_output_tail": output.splitlines()[-5:],
        }


def chart(result, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    samples = result["samples"]
    t = [s["t_s"] for s in samples]
    fig, axes = plt.subplots(3, 1, figsize=(8, 7), sharex=True)
    start_rss = result["summary"]["rss_kib"]["start"] / 1024
    axes[0].plot(t, [s["rss_kib"] / 1024 for s in samples], marker=".")
    axes[0].axhline(start_rss + result["allowance"]["rss_kib"] / 1024, color="red", linestyle="--",
                    label="start + allowance")
    axes[0].set_ylabel("RSS (MiB)")
    axes[0].legend(loc="upper left", fontsize="small")
    axes[1].plot(t, [s["fds"] for s in samples], marker=".", color="tab:green")
    axes[1].axhline(result["summary"]["fds"]["start"], color="grey", linestyle=":", label="start")
    axes[1].set_ylabel("descriptors")
    axes[1].legend(loc="upper left", fontsize="small")
    p = [(s["t_s"], s["p99_ms"]) for s in samples if s["p99_ms"] is not None]
    axes[2].plot([x for x, _ in p], [y for _, y in p], marker=".", color="tab:orange")
    axes[2].set_ylabel("clients' p99 (ms)")
    axes[2].set_xlabel("seconds (last point: after the load stopped and the server settled)")
    verdict_text = "passed" if result["passed"] else "FAILED"
    fig.suptitle(f"soak: {result['server']} on {result['model']}, {result['seconds']:g} s: {verdict_text}")
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="soak", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", default="echo,websocket,origin")
    parser.add_argument("--models", help="comma-separated; default: every model this build and machine run "
                                          "(each server's --check says)")
    parser.add_argument("--minutes", type=float, default=5.0, help="load time per server and model (default 5)")
    parser.add_argument("--seconds", type=float, help="load time in seconds (instead of --minutes)")
    parser.add_argument("--sample-seconds", type=float, default=10.0)
    parser.add_argument("--settle-seconds", type=float, default=30.0,
                        help="after the load, wait at most this long for descriptors and threads to return")
    parser.add_argument("--churn-rate", type=float, default=200.0, help="connect/close a second")
    parser.add_argument("--max-pending-input-kib", type=int, default=256)
    parser.add_argument("--max-pending-output-kib", type=int, default=1024)
    parser.add_argument("--out", help="write <server>-<model>.json and .svg here")
    parser.add_argument("--no-chart", action="store_true")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        raise SystemExit(2 if e.code else 0)
    if args.seconds is None:
        args.seconds = args.minutes * 60
    problems = []
    args.servers = args.servers.split(",")
    args.models = args.models.split(",") if args.models else None
    problems += [f"--servers: unknown server '{s}' (expected {', '.join(SERVERS)})"
                 for s in args.servers if s not in SERVERS]
    problems += [f"--models: unknown model '{m}' (expected {', '.join(MODELS)})"
                 for m in args.models or () if m not in MODELS]
    if not 1 <= args.seconds <= 6 * 3600:
        problems.append(f"load time {args.seconds:g} s: from 1 s to 6 hours")
    if not 0.5 <= args.sample_seconds <= 600:
        problems.append("--sample-seconds: from 0.5 to 600")
    if not 0 < args.churn_rate <= 2000:
        problems.append("--churn-rate: above 0, at most 2000 a second")
    if args.max_pending_input_kib < 64 or args.max_pending_output_kib < 1:
        problems.append("--max-pending-input-kib >= 64 and --max-pending-output-kib >= 1 (the servers' own limits)")
    if not 0 <= args.settle_seconds <= 600:
        problems.append("--settle-seconds: from 0 to 600")
    if problems:
        raise UsageError("; ".join(problems))
    return args


def log(line):
    print(f"soak: {line}", flush=True)


def choose_models(args):
    """Sets args.models (every one this build and machine run, unless named) and args.client_model; a line
    naming a model that cannot run here, else None."""
    if args.models is None:
        args.models = available_models()
        log(f"models: {', '.join(args.models)} (every one this build and machine run)")
    for model in args.models:
        why = model_refusal(model)
        if why is not None:
            return f"--models: {model} cannot run here: {why}"
    args.client_model = next(m for m in CLIENT_MODELS if model_refusal(m) is None)
    return None


def report(args, result):
    """Logs one soak's outcome and writes its document (and chart) under --out; returns its failures."""
    name, summary = f"{result['server']}/{result['model']}", result["summary"]
    spans = ", ".join(f"{key} start/peak/end {summary[key]['start']}/{summary[key]['peak']}/{summary[key]['end']}"
                      for key in ("rss_kib", "fds", "threads"))
    log(f"{name}: {'passed' if result['passed'] else 'FAILED'}: {spans} (RSS allowance "
        f"{result['allowance']['rss_kib']} KiB), {summary['client_runs']} client runs, "
        f"{summary['client_runs_with_errors']} with errors, p99 first/last {summary['p99_ms']['first']}/"
        f"{summary['p99_ms']['last']} ms, server CPU {summary['server_cpu_s']:.1f} s")
    for reason in result["reasons"]:
        log(f"{name}: failed: {reason}")
    if args.out:
        base = os.path.join(args.out, f"{result['server']}-{result['model']}")
        result_files.write_text(base + ".json", json.dumps(result, indent=1) + "\n")
        if not args.no_chart:
            chart(result, base + ".svg")
    return [f"{name}: {reason}" for reason in result["reasons"]]


def main(argv):
    try:
        args = parse_args(argv)
        refused = choose_models(args)
    except UsageError as e:
        print(f"soak: {e}\nRun 'python3 -m bench.studies.soak --help' for usage.", file=sys.stderr)
        return 2
    if refused:
        print(f"soak: {refused}", file=sys.stderr)
        return 2
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    failures = []
    for server in args.servers:
        for model in args.models:
            failures += report(args, SoakRun(args, server, model, log).run())
    if failures:
        print(f"soak: FAILED: {len(failures)} problem(s): " + " | ".join(failures), file=sys.stderr)
        return 1
    log(f"passed: {len(args.servers) * len(args.models)} soak(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
