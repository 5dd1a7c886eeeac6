"""Shared machinery for netbench's whole-program benchmarks (results/*_bench.py).

Starts servers and clients as real processes on loopback, measures each one's CPU time (servers from
/proc/PID/stat deltas, clients from wait4's rusage), and writes results side by side under
results/data/<machine label>/. Standard library only; run with /usr/bin/python3.

    srv = benchlib.start_server([benchlib.bazel_binary("//echo:server"), "--port=0"], ready=r"listening on")
    before = srv.cpu_seconds()
    res = benchlib.run_client([...], timeout_s=60)
    server_cpu = srv.cpu_seconds() - before
    srv.stop()
"""

import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

WORKSPACE_NAME = "netbench"
_CLK_TCK = os.sysconf("SC_CLK_TCK")


def repo_root():
    """The source checkout: where `bazel run` was invoked, else the parent of this file's folder."""
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if workspace:
        return workspace
    here = os.path.dirname(os.path.realpath(__file__))
    return os.path.dirname(here)


def log(message):
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------- binaries

def _runfiles_roots():
    roots = []
    for var in ("RUNFILES_DIR", "TEST_SRCDIR"):
        if os.environ.get(var):
            roots.append(os.environ[var])
    argv0 = os.path.realpath(sys.argv[0])
    for candidate in (sys.argv[0] + ".runfiles", argv0 + ".runfiles"):
        if os.path.isdir(candidate):
            roots.append(candidate)
    return roots


_built = {}


def bazel_binary(label):
    """Path of a netbench binary: from runfiles under `bazel run`, else built with bazel here.

    NETBENCH_BAZEL overrides the bazel command (e.g. "bazel --output_base=/tmp/ob")."""
    package, _, name = label.lstrip("/").partition(":")
    relative = os.path.join(package, name)
    for root in _runfiles_roots():
        path = os.path.join(root, WORKSPACE_NAME, relative)
        if os.path.exists(path):
            return path
    if label in _built:
        return _built[label]
    bazel = os.environ.get("NETBENCH_BAZEL", "bazel").split()
    log(f"building {label} ...")
    subprocess.run(bazel + ["build", "--symlink_prefix=/", label], cwd=repo_root(), check=True,
                   stdout=subprocess.DEVNULL)
    bin_dir = subprocess.run(bazel + ["info", "--symlink_prefix=/", "bazel-bin"], cwd=repo_root(),
                             check=True, capture_output=True, text=True).stdout.strip()
    path = os.path.join(bin_dir, relative)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{label} built but {path} is missing")
    _built[label] = path
    return path


def peers_dir():
    return os.environ.get("NETBENCH_PEERS", os.path.join(os.path.dirname(repo_root()), "shared", "peers"))


_peers_built = None


def peer_binary(name):
    """Path of a Go reference peer (echosrv, spammer, wsserver, wsclient, wsgorilla, fanout), building them
    with Debian's Go on first use; None (with a message) when Go or the peers are not available."""
    global _peers_built
    out = os.environ.get("NETBENCH_PEERS_BIN", "/tmp/peers-bin")
    path = os.path.join(out, name)
    if os.path.exists(path):
        return path
    if _peers_built is None:
        script = os.path.join(peers_dir(), "build.sh")
        if not os.path.exists(script):
            log(f"note: no reference peers at {peers_dir()}; Go comparisons are skipped")
            _peers_built = False
        elif shutil.which("go") is None:
            log("note: Go is not installed (tools/bootstrap.sh installs golang-go); Go comparisons are skipped")
            _peers_built = False
        else:
            log("building the Go reference peers ...")
            env = dict(os.environ, OUT=out)
            result = subprocess.run(["sh", script], env=env, capture_output=True, text=True)
            _peers_built = result.returncode == 0
            if not _peers_built:
                log(f"note: building the Go peers failed; Go comparisons are skipped:\n{result.stderr}")
    return path if _peers_built and os.path.exists(path) else None


# --------------------------------------------------------------------------------------------- processes

def cpu_split_of(pid):
    """(utime, stime) of a live process, in seconds, from /proc/PID/stat (clock-tick resolution)."""
    with open(f"/proc/{pid}/stat") as f:
        line = f.read()
    fields = line[line.rindex(")") + 2:].split()
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return int(fields[11]) / _CLK_TCK, int(fields[12]) / _CLK_TCK


def descendants(pid):
    """`pid` and every live process below it (a shell's children, nginx's workers), from /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += children.get(current, [])
    return found


def free_port(host="127.0.0.1"):
    """A port nothing listens on now, for servers that take their port as an argument (and print their -addr,
    not the bound port, as Go's do)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_until_accepting(port, host="127.0.0.1", timeout_s=15):
    """True once `port` accepts a connection, False after timeout_s: some servers print their ready line
    before they listen (Go's http.ListenAndServe)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            socket.create_connection((host, port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def cpu_seconds_of(pid):
    """utime + stime of a live process, in seconds."""
    return sum(cpu_split_of(pid))


class Server:
    """A server process; a reader thread collects its output (stdout and stderr) line by line."""

    def __init__(self, proc, name, ready):
        self.proc = proc
        self.pid = proc.pid
        self.name = name
        self.ready_line = None
        self._ready_pattern = re.compile(ready)
        self._ready = threading.Event()
        self._output = []
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self):
        for line in self.proc.stdout:
            self._output.append(line)
            if self.ready_line is None and self._ready_pattern.search(line):
                self.ready_line = line
                self._ready.set()
        self._ready.set()  # EOF: wake the waiter, who finds no ready line

    def wait_ready(self, timeout_s):
        self._ready.wait(timeout_s)
        return self.ready_line is not None

    def cpu_seconds(self):
        return cpu_seconds_of(self.pid)

    def cpu_split(self):
        """(user, system) CPU seconds so far."""
        return cpu_split_of(self.pid)

    def port(self):
        """The port from the ready line: `listening on 127.0.0.1:PORT ...` (or `[::1]:PORT`), else the last
        `:PORT` on the line (a log prefix such as Go's "20:14:49" comes first, so it is not taken)."""
        match = re.search(r"listening on \S*:(\d+)\b", self.ready_line, re.IGNORECASE)
        if not match:
            matches = re.findall(r":(\d+)\b", self.ready_line)
            return int(matches[-1]) if matches else None
        return int(match.group(1))

    def alive(self):
        return self.proc.poll() is None

    def output(self):
        return "".join(self._output)

    def stop(self, timeout_s=10):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(timeout=2)
        if not self._reader.is_alive():
            self.proc.stdout.close()
        return self.output()


# The scheduling note every bench that starts servers adds to its report.
SCHEDULING_NOTE = ("Servers run in a session of their own, as if started from a second terminal: with Linux's "
                   "autogroup scheduling that decides how server and client share the cores, and so how many "
                   "messages each wakeup finds. The *_sys_* columns are the kernel's share of the CPU time "
                   "(syscalls, loopback TCP, wakeups).")


def start_server(cmd, ready, name=None, timeout_s=30, env=None, cwd=None, preexec=None):
    """Starts `cmd` and returns once a line of its output (stdout+stderr) matches the regex `ready`.
    The server gets a session of its own (SCHEDULING_NOTE); `preexec` runs in the child before exec (CPU
    affinity for --pin)."""
    name = name or os.path.basename(cmd[0])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                            env=env, cwd=cwd, start_new_session=True, preexec_fn=preexec)
    server = Server(proc, name, ready)
    if server.wait_ready(timeout_s):
        return server
    exited = proc.poll()
    proc.kill()
    proc.wait()
    server.stop()
    when = f"exited ({exited}) before it printed" if exited is not None else f"did not print within {timeout_s}s"
    raise RuntimeError(f"{name} {when} /{ready}/: {server.output()[-2000:]}")


class ClientResult:
    def __init__(self, cmd, returncode, stdout, stderr, user_seconds, system_seconds, wall_s):
        self.cmd = cmd
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.user_seconds = user_seconds
        self.system_seconds = system_seconds  # the kernel's share: syscalls, loopback TCP, wakeups
        self.cpu_seconds = user_seconds + system_seconds
        self.wall_s = wall_s
        self.tcp_segments = None  # segments sent meanwhile, where run_client_against() counted them

    def check(self):
        if self.returncode != 0:
            raise RuntimeError(f"{' '.join(self.cmd)} exited {self.returncode}:\n{self.stdout[-2000:]}\n"
                               f"{self.stderr[-2000:]}")
        return self


def run_client(cmd, timeout_s, env=None, cwd=None, preexec=None):
    """Runs `cmd` to completion (killed after timeout_s) and returns its output and CPU time (wait4's rusage:
    its user/system split comes from ticks, but their sum is the scheduler's exact run time, children that
    it waited for included). `preexec` runs in the child before exec (CPU affinity for --pin)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd,
                            preexec_fn=preexec)
    collected = {}

    def drain(stream, key):
        collected[key] = stream.read()

    readers = [threading.Thread(target=drain, args=(proc.stdout, "out")),
               threading.Thread(target=drain, args=(proc.stderr, "err"))]
    for r in readers:
        r.start()
    timer = threading.Timer(timeout_s, proc.kill)
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    for r in readers:
        r.join()
    proc.stdout.close()
    proc.stderr.close()
    wall = time.monotonic() - start
    return ClientResult(cmd, proc.returncode, collected.get("out", ""), collected.get("err", ""),
                        usage.ru_utime, usage.ru_stime, wall)


def tcp_segments_sent():
    """TCP segments this machine has sent (/proc/net/snmp OutSegs); None where there is no such file. On
    loopback every segment sent is also received, so the difference over a run is the run's wire load in
    segments, data and acknowledgements alike. The count is system-wide: it means something on a quiet
    machine, as a bench's is."""
    try:
        with open("/proc/net/snmp") as f:
            lines = [line.split() for line in f if line.startswith("Tcp:")]
        header, values = lines[0], lines[1]
        return int(values[header.index("OutSegs")])
    except (OSError, IndexError, ValueError):
        return None


def run_client_against(server, cmd, timeout_s):
    """Runs a client to completion against `server`; returns its ClientResult (with `tcp_segments`, the
    segments sent meanwhile, or None) and the server's (user, system) CPU seconds meanwhile."""
    user_before, sys_before = server.cpu_split()
    segments_before = tcp_segments_sent()
    result = run_client(cmd, timeout_s)
    segments_after = tcp_segments_sent()
    user_after, sys_after = server.cpu_split()
    result.tcp_segments = (segments_after - segments_before
                           if segments_before is not None and segments_after is not None else None)
    return result, (user_after - user_before, sys_after - sys_before)


def add_cpu_per_message(row, result, server_cpu, client_messages, server_messages):
    """Adds client_cpu/client_sys (per message the client counts) and server_cpu/server_sys (per message the
    server handled) in microseconds to `row`, and the TCP segments per message the client counts (both
    directions, data and acknowledgements: fewer than one data segment per message means the kernel
    coalesced writes); None where a count is missing."""
    def per_message(seconds, messages):
        return seconds * 1e6 / messages if messages else None

    server_user, server_sys = server_cpu
    row["client_cpu_us_per_msg"] = per_message(result.cpu_seconds, client_messages)
    row["client_sys_us_per_msg"] = per_message(result.system_seconds, client_messages)
    row["server_cpu_us_per_msg"] = per_message(server_user + server_sys, server_messages)
    row["server_sys_us_per_msg"] = per_message(server_sys, server_messages)
    segments = result.tcp_segments
    row["tcp_segs_per_msg"] = segments / client_messages if segments is not None and client_messages else None


# -------------------------------------------------------------------------------------------- statistics

def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summarize(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return {"n": 0}
    return {
        "n": len(xs),
        "min": min(xs),
        "median": statistics.median(xs),
        "mean": statistics.fmean(xs),
        "stddev": statistics.stdev(xs) if len(xs) > 1 else 0.0,
        "max": max(xs),
    }


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def ratio_of(summary, name, a, b, target):
    """A ratio row: the ratio of two cases' medians. `a` and `b` are (server, load, key); the cases are kept so
    that add_round_ranges() can take the same ratio round by round."""
    return {"ratio": name, "value": ratio(lookup(summary, *a), lookup(summary, *b)), "target": target,
            "_cases": (a, b)}


KERNEL_COST_NAMES = {
    "BM_WriteToDevNull": "syscall",
    "BM_TcpSendWithoutWakeup/peer_reads_every:1": "send_peer_reads_each",
    "BM_TcpSendWithoutWakeup/peer_reads_every:8": "send",
    "BM_TcpSendWithoutWakeup/peer_reads_every:2048": "send_peer_lets_pile_up",
    "BM_TcpRoundTripBlocking/process_time/real_time": "round_trip",
}


def measure_kernel_costs():
    """This machine's kernel prices now, in us of CPU, from //common:kernel_cost_benchmark (a few seconds):
    "syscall" (a write to /dev/null), "send" (a 22-byte loopback send that wakes nobody, the peer reading
    every 8 messages; also "send_peer_reads_each" and "send_peer_lets_pile_up") and "round_trip" (one byte
    there and back between two blocked threads: two sends, two reads, two sleep/wake cycles). A bench takes
    them in its own run, because this VM's speed drifts, and keeps them in its environment. Empty on failure."""
    try:
        binary = bazel_binary("//common:kernel_cost_benchmark")
        result = run_client([binary, "--benchmark_format=json", "--benchmark_min_time=0.3"], timeout_s=120)
        document = json.loads(result.check().stdout)
    except Exception as error:  # noqa: BLE001 - the bench still runs, only without the send-price column
        log(f"kernel costs not measured: {error!r}")
        return {}
    costs = {KERNEL_COST_NAMES[b["name"]]: b["cpu_time"] / 1e3 for b in document.get("benchmarks", [])
             if b["name"] in KERNEL_COST_NAMES and b.get("time_unit") == "ns"}
    log("kernel costs (us): " + ", ".join(f"{k} {v:.2f}" for k, v in costs.items()))
    return costs


def target_vs_send(target_us, kernel_costs):
    """A client CPU-per-message target beside the kernel's price of the one send per message the load
    requires, as measured in the same run: at the batching servers have under stream load (the peer reading
    every 8 messages) and at its cheapest (the peer letting segments pile up), e.g. "2.52 vs send 3.23
    (1.96 piled up)". None when either is missing."""
    send_us = (kernel_costs or {}).get("send")
    cheapest_us = (kernel_costs or {}).get("send_peer_lets_pile_up")
    if target_us is None or send_us is None:
        return None
    text = f"{_format(target_us)} vs send {_format(send_us)}"
    return text + (f" ({_format(cheapest_us)} piled up)" if cheapest_us is not None else "")


def value_range(values):
    """"lowest .. highest" of `values` as the tables print numbers; None when there are none."""
    return f"{_format(min(values))} .. {_format(max(values))}" if values else None


def add_round_ranges(ratio_rows, rows):
    """Gives each ratio_of() row a `per_round` column: the lowest and highest value of the same ratio taken
    within each round (the two cases of one round ran minutes apart at most). A wide range says the ratio of
    medians is not settled by this run; more --samples narrow it."""
    out = []
    for entry in ratio_rows:
        cases = entry.get("_cases")
        per_round = []
        if cases:
            (server_a, load_a, key_a), (server_b, load_b, key_b) = cases
            for round_index in sorted({r.get("round") for r in rows if r.get("round") is not None}):
                def value(server, load, key):
                    for r in rows:
                        if r.get("round") == round_index and r["server"] == server and r["load"] == load:
                            return r.get(key)
                    return None

                per_round_value = ratio(value(server_a, load_a, key_a), value(server_b, load_b, key_b))
                if per_round_value is not None:
                    per_round.append(per_round_value)
        out.append({"ratio": entry["ratio"], "value": entry["value"], "per_round": value_range(per_round),
                    "target": entry["target"],
                    **{k: v for k, v in entry.items() if k not in ("ratio", "value", "target", "_cases")}})
    return out


def summarize_cases(rows, cases, keys):
    """One entry per (server, load) case: the median of each of `keys` over its sample rows, the number of
    samples, the errors summed and the runs that failed."""
    summary = []
    for server_name, load in cases:
        mine = [r for r in rows if r["server"] == server_name and r["load"] == load]
        entry = {"server": server_name, "load": load, "samples": len(mine)}
        for key in keys:
            entry[key] = median([r.get(key) for r in mine])
        entry["errors"] = sum(r.get("errors") or 0 for r in mine)
        entry["failed_runs"] = sum(1 for r in mine if r["returncode"] != 0)
        summary.append(entry)
    return summary


def lookup(summary, server_name, load, key):
    """The `key` figure of one case of a summarize_cases() summary; None when absent."""
    for entry in summary:
        if entry["server"] == server_name and entry["load"] == load:
            return entry.get(key)
    return None


def interleaved(cases, samples):
    """Yields (round, case) with every case once per round, so slow drift hits all cases alike."""
    for round_index in range(samples):
        for case in cases:
            yield round_index, case


# ------------------------------------------------------------------------------------------------ output

def machine_label():
    """Names the machine a result came from: results of several machines are kept side by side."""
    if os.environ.get("NETBENCH_RESULTS_LABEL"):
        return os.environ["NETBENCH_RESULTS_LABEL"]
    system = platform.system().lower()
    cores = os.cpu_count()
    return f"{system}-{platform.machine()}-{cores}cpu"


def environment(kernel_costs=None):
    """Facts about this machine now; `kernel_costs` (measure_kernel_costs()) are kept with them."""
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    commit = subprocess.run(["git", "-C", repo_root(), "rev-parse", "--short=12", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    return {
        "os": platform.system(),
        "kernel": platform.release(),
        "machine": platform.machine(),
        "cpu_model": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "git_commit": commit or None,
        "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **({"kernel_costs_us": kernel_costs} if kernel_costs else {}),
    }


def results_dir():
    path = os.environ.get("NETBENCH_RESULTS_DIR") or os.path.join(repo_root(), "results", "data",
                                                                 machine_label())
    os.makedirs(path, exist_ok=True)
    return path


def _format(value):
    if value is None:
        return "-"
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 10:
            return f"{value:.1f}"
        return f"{value:.3g}"
    return str(value)


def markdown_table(rows, columns=None):
    if not rows:
        return "(no rows)\n"
    if columns is None:
        columns = []
        for row in rows:
            for key in row:
                if key not in columns and not isinstance(row[key], (list, dict)):
                    columns.append(key)
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(_format(row.get(c)) for c in columns) + " |")
    return "\n".join(lines) + "\n"


def write_results(name, cases, notes="", summary_rows=None, columns=None, env=None):
    """Writes results/data/<machine>/<name>.json (every sample) and <name>.md (the tables). `env` is the
    run's environment (default: this machine now)."""
    directory = results_dir()
    document = {"schema": "netbench.bench/1", "benchmark": name, "environment": env or environment(),
                "cases": cases, "summary": summary_rows or [], "notes": notes}
    json_path = os.path.join(directory, f"{name}.json")
    with open(json_path, "w") as f:
        json.dump(document, f, indent=2, sort_keys=False)
        f.write("\n")
    env = document["environment"]
    md = [f"# {name}", "",
          f"{env['cpu_model']}, {env['cores']} cores, {env['os']} {env['kernel']}, commit {env['git_commit']}, "
          f"{env['timestamp_utc']}", ""]
    costs = env.get("kernel_costs_us")
    if costs:
        md += ["Kernel prices measured in this run (us of CPU, //common:kernel_cost_benchmark): "
               + ", ".join(f"{k} {_format(v)}" for k, v in costs.items()) + ".", ""]
    if notes:
        md += [notes, ""]
    if summary_rows:
        md += ["## Summary (medians over samples)", "", markdown_table(summary_rows, columns), ""]
    md_path = os.path.join(directory, f"{name}.md")
    with open(md_path, "w") as f:
        f.write("\n".join(md))
    log(f"wrote {json_path} and {md_path}")
    return json_path, md_path


RATIOS_HEADING = "\n\n## Ratios (the issue's targets)\n\n"


def write_bench_report(name, rows, cases, summarize, ratios, notes, with_ratios, env=None):
    """The medians per case, the issue's ratios with their per-round ranges (appended to `notes`), and both
    result files; returns (summary, ratio_rows). `ratios(summary, env)` may read the run's kernel costs
    from `env` (default: this machine now)."""
    env = env or environment()
    summary = summarize(rows, cases)
    ratio_rows = add_round_ranges(ratios(summary, env), rows) if with_ratios else []
    if ratio_rows:
        notes += RATIOS_HEADING + markdown_table(ratio_rows)
    write_results(name, rows, notes=notes, summary_rows=summary, env=env)
    return summary, ratio_rows


def load_results(name):
    """The document write_results() stored for bench `name` on this machine."""
    with open(os.path.join(results_dir(), f"{name}.json")) as f:
        return json.load(f)


def add_rerender_argument(parser):
    parser.add_argument("--rerender", action="store_true",
                        help="rewrite the stored tables from the stored samples (JSON), running nothing")


def rerender(name, summarize, ratios):
    """Rewrites a bench's stored tables from its stored samples, running nothing: for a change in how results
    are reported. The environment and the notes stay those of the run."""
    document = load_results(name)
    cases = [(entry["server"], entry["load"]) for entry in document["summary"]]
    notes, separator, _ = document["notes"].partition(RATIOS_HEADING)
    write_bench_report(name, document["cases"], cases, summarize, ratios, notes, with_ratios=bool(separator),
                       env=document["environment"])
    return 0


def common_arguments(parser):
    parser.add_argument("--samples", type=int, default=3, help="rounds; cases are interleaved in each")
    parser.add_argument("--quick", action="store_true", help="tiny loads: a smoke check, not a measurement")
    return parser
