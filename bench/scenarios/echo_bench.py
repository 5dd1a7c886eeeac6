"""Echo benchmark (issue 3): netbench's echo server models and the Go echo server, each loaded by
//echo:client and (the write-up's load) by the Go spammer, all in one run.

    /usr/bin/python3 -m bench.scenarios.echo_bench              # 3 interleaved samples per case, 10 s loads
    /usr/bin/python3 -m bench.scenarios.echo_bench --quick         # smoke check: 1 s loads, 1 sample
    bazel run //:bench -- --only=echo-models

Servers: the registry's netbench-threads|poll|epoll|uring (//echo:server --model=...) and go (Go's echo
server, //contestants/go:echo_server, a goroutine per connection), started and measured by the write-ups' runner
(contest.Runner: the same CPU clock and placement, on remote hosts with --server-host). Go's server runs for the
whole run; each netbench case gets a server of its own, stopped after the run, whose stop line gives its system
calls (server_syscalls.py). A model that does not start (uring where the system refuses io_uring: exit 2 naming
the cause) is left out of the run with its own message in the notes. Loads, each against
every server, from the registry's netbench-echo-client and go-spammer entries:
    stream3      3 clients writing the 22-byte message in a tight loop (the write-up's load), //echo:client
    stream3-go   the same load from the Go spammer (client vs client against the same server)
    pingpong3    3 clients, one message in flight each (round-trip latency)
    stream64     64 clients in stream mode (a writer and a reader thread each, like the spammer's goroutines)
    rate         3 clients at a fixed offered load (--rate), so servers are compared at equal work

Per case: msgs/s written (the client's "rate:" line), server CPU us per echoed message (scheduler
clock, exact, around the run; per message written where the client counts no echoes: the spammer), client
CPU us per written message (wait4 rusage of the whole client process, the same way for both clients),
latency where the mode measures it, errors, the netbench server's system calls per message (its
stop line's count over the messages of that run; none for Go) and //echo:client's (its --json count over the
messages it wrote; none for the spammer). Medians over samples, then the issue's ratios: server CPU
vs Go at the same load, //echo:client CPU vs the spammer's against the same server, and the whole system
(//echo:client + the best netbench server vs spammer + Go echosrv).
"""

import argparse
import json
import os
import re
import sys
import tempfile

from bench.scenarios import bench_arguments
from bench.reporting import bench_report
from bench.running import contest
from bench.reporting import case_ratios
from bench.scenarios import kernel_costs
from bench.running import measured_run
from bench.analysis import medians
from bench.running import progress
from bench.registry import registry
from bench.running import rounds
from bench.reporting import run_environment
from bench.running import server_process
from bench.scenarios import server_syscalls
from bench.reporting import tables

SERVER_MODELS = ["threads", "poll", "epoll", "uring"]
LOADS = ["stream3", "stream3-go", "pingpong3", "stream64", "rate"]
# The registry's entries each case runs (bench/registry/contestants.json): the row's server name -> entry name.
SERVERS = {"threads": "netbench-threads", "poll": "netbench-poll", "epoll": "netbench-epoll",
           "uring": "netbench-uring", "go": "go"}
ECHO_CLIENT, SPAMMER = "netbench-echo-client", "go-spammer"


def client_of(load, rate):
    """(registry client entry, its {clients}, extra arguments) of a load."""
    if load == "stream3-go":
        return SPAMMER, 3, []
    return {"stream3": (ECHO_CLIENT, 3, ["--mode=stream"]),
            "pingpong3": (ECHO_CLIENT, 3, ["--mode=pingpong"]),
            "stream64": (ECHO_CLIENT, 64, ["--mode=stream"]),
            "rate": (ECHO_CLIENT, 3, ["--mode=stream", f"--rate={rate}"])}[load]


def detail_entries(path=None):
    """{entry name: entry} of the echo scenario's servers and clients in the registry."""
    wanted = set(SERVERS.values()) | {ECHO_CLIENT, SPAMMER}
    return {e["name"]: e for e in registry.load(path or registry.DEFAULT_PATH)
            if e["scenario"] == "echo" and e["name"] in wanted}


def start_servers(runner, entries, server_names):
    """{row server name: contest.Server} of the servers that run for the whole run (not netbench's: each of its
    cases starts its own, run_case), each started once by the one runner."""
    return {name: runner.start_server(entries[SERVERS[name]]) for name in server_names if name not in SERVER_MODELS}


def models_that_start(runner, entries, models):
    """(the models among `models` whose server starts here, {model: why not} of the others)."""
    refused = {}
    for model in models:
        server, why = server_syscalls.start(runner, entries[SERVERS[model]])
        if server is None:
            refused[model] = why
        else:
            server_syscalls.stop(runner, server)
    return [m for m in models if m not in refused], refused


def run_case(runner, entries, servers, server_name, load, seconds, rate):
    """One case's row. A netbench model gets a server of its own, stopped after the run: its stop line's
    system calls over the run's messages are the row's server_syscalls_per_msg."""
    if server_name not in SERVER_MODELS:
        row = measure_case(runner, entries, servers[server_name], server_name, load, seconds, rate)
        row["server_syscalls_per_msg"] = None
        return row
    server, why = server_syscalls.start(runner, entries[SERVERS[server_name]])
    if server is None:
        progress.log(f"  {server_name}/{load}: {why}")
        return {"server": server_name, "load": load, "returncode": 2, "error": why, "server_syscalls_per_msg": None}
    try:
        row = measure_case(runner, entries, server, server_name, load, seconds, rate)
    finally:
        output = server_syscalls.stop(runner, server)
    row["server_syscalls"] = server_syscalls.system_calls(output)
    row["server_syscalls_per_msg"] = server_syscalls.per_message(row["server_syscalls"],
                                                                 row.get("server_messages"))
    return row


def measure_case(runner, entries, server, server_name, load, seconds, rate):
    client_name, clients, extra = client_of(load, rate)
    ran = {}
    with tempfile.TemporaryDirectory() as tmp:
        json_path = os.path.join(tmp, "client.json")
        # A fleet over SSH merges its hosts' run documents itself; here the client writes one.
        if client_name == ECHO_CLIENT and not runner.remote_clients():
            extra = extra + [f"--json={json_path}"]
        measured = runner.run_client(entries[client_name], server, {"clients": clients, "duration_s": f"{seconds:g}"},
                                     extra_args=extra, bound_s=seconds, on_result=lambda r: ran.update(result=r))
        report = None
        if os.path.exists(json_path):
            with open(json_path) as f:
                report = json.load(f)
    result = ran.get("result")
    stdout = result.stdout if result else ""
    returncode = result.returncode if result else (0 if measured["status"] == "ok" else 1)
    rates = measured.get("found", {}).get("msgs_per_s") or []
    row = {"server": server_name, "load": load, "returncode": returncode,
           "msgs_per_s": rates[-1] if rates else None, "client_cpu_s": measured.get("client_cpu_s"),
           "server_cpu_s": measured.get("server_cpu_s"), "wall_s": measured.get("wall_s")}
    found = measured.get("found", {})
    if runner.remote_clients():
        # A fleet: its hosts' counts summed (remote_placement.merge_found); echoes are not counted there.
        row["messages_written"] = int(found["messages"][-1]) if found.get("messages") else None
    elif load == "stream3-go":
        # The spammer prints what it wrote ("sent: N msgs"), not what came back: it reads its echoes into a
        # buffer and drops them uncounted.
        sent = re.search(r"sent: (\d+) msgs", stdout)
        row["messages_written"] = int(sent.group(1)) if sent else None
        row["messages_echoed"] = None
        row["errors"] = None  # the spammer does not check echoes
    elif report is not None:
        counts = report["counts"]
        row["messages_written"] = counts.get("total_written")
        row["messages_echoed"] = counts.get("total_echoed")
        row["echoed_per_s"] = report["metrics"].get("echoed_msgs_per_s", {}).get("value")
        row["errors"] = counts.get("errors")
        # //echo:client's own count of its system calls, over the whole run as the messages written are.
        row["client_syscalls"] = counts.get("system_calls")
        row["client_syscalls_per_msg"] = server_syscalls.per_message(row["client_syscalls"],
                                                                     row["messages_written"])
    histograms = (report or {}).get("histograms") or measured.get("histograms")
    if histograms:
        # Every bucket, so that rounds, client processes and machines merge exactly (histogram_merge.py).
        row["histograms"] = histograms
        for name, histogram in histograms.items():
            if name in ("rtt", "rtt_corrected") and "percentiles" in histogram:
                row["p50_us"] = histogram["percentiles"].get("50", 0) / 1e3
                row["p99_us"] = histogram["percentiles"].get("99", 0) / 1e3
    if result is not None:
        result.tcp_segments = measured.get("tcp_segments")
    row["server_messages"] = server_messages(row, client_name, runner.remote_clients())
    measured_run.add_cpu_per_message(row, result, row["server_cpu_s"], client_messages=row.get("messages_written"),
                                     server_messages=row["server_messages"],
                                     client_cpu=row["client_cpu_s"])
    if measured["status"] != "ok":
        progress.log(f"  {server_name}/{load}: {measured.get('error')}: {measured.get('tail', '')[-300:]}")
    return row


def server_messages(row, client_name, remote_clients):
    """The messages the server's CPU is divided by: those //echo:client counted echoed; where the client counts
    no echoes (the spammer, a fleet on remote hosts), those it wrote, every one of which the server read and
    wrote back before the client closed (TCP delivers in order; the spammer's last few may still be in flight
    then, a few in millions)."""
    if client_name == ECHO_CLIENT and not remote_clients:
        return row.get("messages_echoed")
    return row.get("messages_written")


def summarize(rows, cases):
    keys = ("msgs_per_s", "server_cpu_us_per_msg", "server_sys_us_per_msg", "server_syscalls_per_msg",
            "client_syscalls_per_msg", "client_cpu_us_per_msg", "client_sys_us_per_msg", "tcp_segs_per_msg",
            "p50_us", "p99_us")
    return medians.summarize_cases(rows, cases, keys)


def ratios(summary, env):
    def ratio(name, a, b, target):
        return case_ratios.ratio_of(summary, name, a, b, target)

    out = []
    # Server CPU per echoed message vs Go's, at each load (the target is at the fixed rate).
    for load in ("rate", "stream3", "pingpong3", "stream64"):
        for model in SERVER_MODELS:
            out.append(ratio(f"server CPU/msg {model} / go ({load})", (model, load, "server_cpu_us_per_msg"),
                             ("go", load, "server_cpu_us_per_msg"),
                             "<= 1.0 (threads)" if model == "threads" else "best <= 0.7"))
    # The client against the same server: CPU per message written and msgs/s, //echo:client vs spammer.
    # One write per message makes one loopback send per message the client's floor; `target_vs_send` puts
    # the target CPU (0.5x the spammer's) beside what that send alone cost in this run.
    for server_name in SERVER_MODELS + ["go"]:
        row = ratio(f"client CPU/msg echo-client / spammer (server {server_name})",
                    (server_name, "stream3", "client_cpu_us_per_msg"),
                    (server_name, "stream3-go", "client_cpu_us_per_msg"), "<= 0.5")
        spammer_us = medians.lookup(summary, server_name, "stream3-go", "client_cpu_us_per_msg")
        row["target_vs_send"] = kernel_costs.target_vs_send(spammer_us and 0.5 * spammer_us,
                                                            env.get("kernel_costs_us"))
        out.append(row)
        out.append(ratio(f"msgs/s echo-client / spammer (server {server_name})",
                         (server_name, "stream3", "msgs_per_s"), (server_name, "stream3-go", "msgs_per_s"),
                         ">= 1.0"))
    # The whole system: //echo:client + the best netbench server vs spammer + Go echosrv.
    best = max(SERVER_MODELS, key=lambda m: medians.lookup(summary, m, "stream3", "msgs_per_s") or 0)
    out.append(ratio(f"system msgs/s echo-client+{best} / spammer+go", (best, "stream3", "msgs_per_s"),
                     ("go", "stream3-go", "msgs_per_s"), ">= 1.5"))
    return out


def main(argv, runner=None):
    """`runner`: the contest.Runner that starts the servers and runs the loads (the suite passes its placement,
    local or remote); by default one on this machine, both sides sharing the CPUs, as the write-ups run."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    bench_arguments.common_arguments(parser)
    bench_arguments.add_rerender_argument(parser)
    parser.add_argument("--seconds", type=float, default=None, help="load duration per case (default 10, quick 1)")
    parser.add_argument("--rate", type=int, default=None,
                        help="offered load of the 'rate' case, msgs/s over 3 clients (default 50000, quick 20000)")
    args = parser.parse_args(argv)
    if args.rerender:
        return bench_report.rerender("echo_bench", summarize, ratios)
    if args.samples < 1:
        parser.error("--samples must be at least 1")
    seconds = args.seconds or (1 if args.quick else 10)
    rate = args.rate or (20000 if args.quick else 50000)
    samples = 1 if args.quick and args.samples == 3 else args.samples

    runner = runner or contest.Runner(pin=False)
    entries = detail_entries()
    unavailable = {name: runner.unavailable(entry) for name, entry in entries.items()}
    for name, why in unavailable.items():
        if why:
            progress.log(f"note: {name} cannot run: {why}")
    go_available = not unavailable.get(SERVERS["go"]) and not unavailable.get(SPAMMER)
    models, refused = models_that_start(runner, entries, [m for m in SERVER_MODELS if not unavailable.get(SERVERS[m])])
    for model, why in refused.items():
        progress.log(f"note: {SERVERS[model]} left out: {why}")
    server_names = models + (["go"] if go_available else [])
    loads = [load for load in LOADS if go_available or load != "stream3-go"]
    cases = [(s, load) for load in loads for s in server_names]

    env = run_environment.environment(kernel_costs.measure_kernel_costs())
    rows = []
    interrupted = False
    try:
        servers = start_servers(runner, entries, server_names)
        for round_index, (server_name, load) in rounds.interleaved(cases, samples):
            progress.log(f"round {round_index + 1}/{samples}: {load} -> {server_name}")
            row = run_case(runner, entries, servers, server_name, load, seconds, rate)
            row["round"] = round_index
            rows.append(row)
            if server_name in servers and not servers[server_name].alive():
                raise RuntimeError(f"server {server_name} died during {load}")
    except KeyboardInterrupt:
        interrupted = True
        progress.log(f"echo-models interrupted: keeping the {len(rows)} run(s) that finished (partial)")
    finally:
        runner.stop_all()

    notes = (f"Loads of {seconds:g} s, {samples} interleaved sample(s) per case, rate case at {rate} msgs/s. "
             "The registry's echo servers and clients (bench/registry/contestants.json), started and measured by "
             "the write-ups' runner (bench/running/contest.py). "
             "Server CPU per echoed message from the scheduler's exact clock (bench/running/process_cpu.py; no "
             "user/system split, so no server sys column); client CPU per written "
             "message from wait4 rusage of the whole client process (both clients measured alike). "
             "The spammer does not check or count echoes (errors '-'): its rows' server CPU is per message it "
             "wrote. //echo:client runs with its defaults "
             "(TCP_NODELAY as Go, one write per message, --read_coalesce=16384). "
             "Server syscalls/msg: the netbench server's own count (its stop line; each netbench case runs a server "
             "of its own, stopped after the run, so the count includes its start, accepts and closes) over the "
             "messages its CPU is divided by; Go's server counts none (blank). "
             "Client syscalls/msg: //echo:client's own count (its --json system_calls, opening and closing "
             "included) over the messages it wrote; the spammer counts none (blank). "
             + server_process.SCHEDULING_NOTE)
    for model, why in refused.items():
        notes += f" {SERVERS[model]} left out: it did not start here: {why}."
    if args.quick:
        notes = "QUICK SMOKE RUN: not a measurement. " + notes
    summary, ratio_rows = bench_report.write_bench_report("echo_bench", rows, cases, summarize, ratios, notes,
                                                          with_ratios=go_available, env=env, partial=interrupted)
    if interrupted:
        raise KeyboardInterrupt(f"echo-models interrupted after {len(rows)} run(s)")
    print(tables.markdown_table(summary))
    if ratio_rows:
        print(tables.markdown_table(ratio_rows))
    failed = [r for r in rows if r["returncode"] != 0]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
