"""Runs registry contestants (bench/registry/registry.py) as real processes on loopback and measures them.

A server contestant is started once per configuration (its placeholders filled) and kept for the whole run;
a client contestant runs to completion against it, once per case and round. Each side's CPU time is read
from the kernel's scheduler clock (the process CPU clock, nanoseconds, threads that exited included), not
from 10 ms ticks; a daemon server (a `pidfile` entry) is measured over its whole process tree. A server that
fails to start or dies, and a client that fails or prints no result, give failed rows that carry the last
lines the program printed; every other case still runs.

    runner = contest.Runner(pin=False)
    server = runner.start_server(entry, {"procs": 2})          # contest.Failure on failure
    row = runner.run_client(client_entry, server, {"clients": 3, "duration_s": 5}, bound_s=5)
    runner.stop_all()

With a remote_placement.RemotePlacement (issue 15) the server runs on --server-host and each client on every
host of --client-hosts at once, over SSH; a fleet's row is the merge of its hosts' (figures summed, latency
histograms merged exactly) with each host's share beside it in `hosts`.
"""

import os
import re
import subprocess
import time

from bench.running import binaries
from bench.running import client_process
from bench.running import noise
from bench.running import placement as cpu_placement
from bench.running import ports
from bench.running import process_configuration
from bench.running import process_cpu
from bench.running import progress
from bench.registry import registry
from bench.running import remote_placement
from bench.running import server_process
from bench.running import ssh_host
from bench.running import tcp_segments

HOST = "127.0.0.1"
TAIL_LINES = 8
# A client's deadline is the bound of its own load (a duration, or the timeout a client passes its program) plus
# this margin for starting, connecting and closing; one still running then has hung, and is killed.
DEADLINE_MARGIN_S = 60


class Failure(RuntimeError):
    """A contestant that could not run; `tail` holds the last lines it printed."""

    def __init__(self, message, tail=""):
        super().__init__(message)
        self.tail = tail


def tail_of(text, lines=TAIL_LINES):
    return "\n".join(text.strip().splitlines()[-lines:])


def cpu_sets(pin):
    """(server CPUs, client CPUs): disjoint halves of this machine's CPUs with --pin, else all for both."""
    cpus = sorted(os.sched_getaffinity(0))
    if not pin or len(cpus) < 2:
        return None, None
    half = len(cpus) // 2
    return set(cpus[:half]), set(cpus[half:])


# netbench's own programs (not the write-ups' systems under //contestants/), which write run documents (--json).
_TOKEN_NETBENCH = re.compile(r"^\{//(?!contestants/)[^{}]+\}$")


def find_results(entry, stdout):
    """{figure: [every number its `result` regex found in stdout, in order]} of a client's output."""
    found = {}
    for key, pattern in entry["result"].items():
        numbers = []
        for match in re.finditer(pattern, stdout, re.MULTILINE):
            try:
                numbers.append(float(match.group("value").replace(",", "")))
            except ValueError:
                pass
        found[key] = numbers
    return found


class Server:
    """One started server contestant: its process (or daemon), the URL or port it serves, its output."""

    def __init__(self, entry, values, process=None, daemon_pid=None, url=None):
        self.entry = entry
        self.values = values
        self.process = process  # a server_process.Server, or None for a daemon
        self.daemon_pid = daemon_pid
        self.url = url
        self.died = None

    @property
    def port(self):
        return self.values.get("port")

    def pid(self):
        return self.process.pid if self.process else self.daemon_pid

    def cpu_seconds(self):
        return process_cpu.tree_cpu_seconds(self.pid())

    def alive(self):
        if self.process:
            return self.process.alive()
        try:
            os.kill(self.daemon_pid, 0)
            return True
        except OSError:
            return False

    def output_tail(self):
        return tail_of(self.process.output()) if self.process else ""


class Runner:
    """Starts servers and runs clients with one resolver for {//pkg:target}, one placement of the two sides on
    the CPUs and one place that stops everything. Placement "shared" lets server and load use every CPU, as the
    write-ups ran them; "split" (pin=True) gives each a disjoint half (bench/running/placement.py). `link` names the
    runner's network link where a comparison has several (loopback, remote); rows carry both."""

    def __init__(self, pin=False, placement=None, link=None, deadline_margin_s=DEADLINE_MARGIN_S):
        self.deadline_margin_s = deadline_margin_s
        self.server_cpus, self.client_cpus = cpu_sets(pin)
        self.pin = pin and self.server_cpus is not None
        self.placement_name = cpu_placement.SPLIT if self.pin else cpu_placement.SHARED
        self.link = link
        self.servers = []
        self.placement = placement  # None: everything on this machine, on loopback

    def remote_server(self):
        return self.placement is not None and self.placement.server_target is not None

    def remote_clients(self):
        return self.placement is not None and bool(self.placement.client_targets)

    def unavailable(self, entry):
        """None when `entry` can run where this runner puts it, else why not (registry.unavailable for this
        machine; remote hosts run only the binaries the suite can put there)."""
        remote = self.placement.unavailable(entry) if self.placement else None
        return remote or registry.unavailable(entry, self.resolve)

    @staticmethod
    def resolve(token):
        try:
            return binaries.program_path(token)
        except FileNotFoundError as error:
            raise Failure(str(error)) from error

    @staticmethod
    def base_values():
        return {"host": HOST, "results": registry.FOLDER}

    def _environment(self, entry, values):
        env = dict(os.environ)
        for name, value in entry.get("env", {}).items():
            env[name] = registry.expand([value], values)[0]
        return env

    def _affinity(self, cpus):
        if not cpus:
            return None
        return lambda: os.sched_setaffinity(0, cpus)

    def start_server(self, entry, values=None, extra_args=(), url_template=None):
        """Starts `entry` with `values` for its placeholders (a free {port} is added); returns a Server or
        raises Failure with the last lines it printed."""
        if self.remote_server():
            return self._start_remote_server(entry, values, extra_args, url_template)
        values = {**self.base_values(), "port": ports.free_port(HOST), **(values or {})}
        try:
            argv = registry.expand(entry["command"], values, self.resolve) + list(extra_args)
        except (KeyError, FileNotFoundError, subprocess.CalledProcessError) as error:
            raise Failure(f"cannot build its command: {error}") from error
        env = self._environment(entry, values)
        url = registry.expand([url_template], values)[0] if url_template else None
        if "pidfile" in entry:
            return self._start_daemon(entry, values, argv, env, url)
        try:
            process = server_process.start_server(argv, ready=entry["ready"], name=entry["name"], env=env,
                                                  preexec=self._affinity(self.server_cpus))
        except (RuntimeError, OSError) as error:
            raise Failure(f"did not start: {str(error).splitlines()[0]}",
                          tail_of(str(error).partition(": ")[2] if isinstance(error, RuntimeError) else ""))
        server = Server(entry, values, process=process, url=url)
        self.servers.append(server)
        if "{port}" in " ".join(entry["command"]) and not ports.wait_until_accepting(values["port"], HOST):
            raise Failure(f"printed its ready line but accepts nothing on port {values['port']}",
                          server.output_tail())
        return server

    def _start_remote_server(self, entry, values, extra_args, url_template):
        placement = self.placement
        why = remote_placement.why_not_remote(entry)
        if why:
            raise Failure(f"cannot run on {placement.server_target}: {why}")
        try:
            values = {**self.base_values(), "host": placement.server_address, "port": placement.free_port(),
                      **(values or {})}
            argv = registry.expand(entry["command"], values, placement.resolve) + list(extra_args)
            env = {name: registry.expand([value], values)[0] for name, value in entry.get("env", {}).items()}
            server = placement.start_server(entry, values, argv, env)
        except KeyError as error:
            raise Failure(f"cannot build its command: {error}") from error
        except ssh_host.RemoteError as error:
            raise Failure(str(error)) from error
        except RuntimeError as error:
            raise Failure(f"did not start: {str(error).splitlines()[0]}",
                          tail_of(str(error).partition(": ")[2]))
        server.url = registry.expand([url_template], values)[0] if url_template else None
        self.servers.append(server)
        if "{port}" in " ".join(entry["command"]) and not ports.wait_until_accepting(values["port"],
                                                                                    values["host"]):
            raise Failure(f"printed its ready line but accepts nothing on {values['host']}:{values['port']} "
                          "(seen from this machine)", server.output_tail())
        return server

    def _start_daemon(self, entry, values, argv, env, url):
        result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60,
                                preexec_fn=self._affinity(self.server_cpus))
        output = result.stdout + result.stderr
        if result.returncode != 0 or not re.search(entry["ready"], output):
            raise Failure(f"did not start (exit {result.returncode})", tail_of(output))
        try:
            with open(registry.expand([entry["pidfile"]], values)[0]) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError) as error:
            raise Failure(f"started but its pidfile is unreadable: {error}", tail_of(output))
        server = Server(entry, values, daemon_pid=pid, url=url)
        self.servers.append(server)
        return server

    def run_client(self, entry, server, values, extra_args=(), bound_s=60, on_result=None):
        """Runs client `entry` to completion against `server`. Returns a row: status "ok" or "failed" (with
        `error` and `tail`), the values its result regexes found (all matches for per-repetition figures),
        wall time and both sides' CPU seconds over the run. `bound_s` is the load's own bound (its duration,
        or the timeout its program is given): a client still running `bound_s` + the runner's
        `deadline_margin_s` after it started has hung, and is killed with its process group, its row failed
        ("hung past its deadline of N s") with the last lines it printed. `on_result`, where given, gets the
        local client's client_process.ClientResult (its output, exit status, user/system split) before the row
        returns: for a scenario that reads more than the row keeps."""
        values = {**self.base_values(), "host": server.values.get("host", HOST), "port": server.port,
                  "url": server.url, **values}
        deadline_s = bound_s + self.deadline_margin_s
        if self.remote_clients():
            return self._run_fleet(entry, server, values, extra_args, deadline_s)
        row = {"status": "failed"}
        try:
            argv = registry.expand(entry["command"], values, self.resolve) + list(extra_args)
        except (KeyError, Failure, FileNotFoundError, subprocess.CalledProcessError) as error:
            row["error"] = f"cannot build its command: {error}"
            return row
        if not server.alive():
            row["error"] = "the server is not running"
            row["tail"] = server.output_tail()
            return row
        server_before = server.cpu_seconds()
        segments_before = tcp_segments.tcp_segments_sent()
        probe = noise.Probe(None if self.remote_server() else server.pid())
        result = client_process.run_client(argv, deadline_s, env=self._environment(entry, values),
                                           preexec=self._affinity(self.client_cpus))
        row["noise"] = probe.finish()
        segments_after = tcp_segments.tcp_segments_sent()
        server_alive = server.alive()
        row["server_cpu_s"] = server.cpu_seconds() - server_before if server_alive else None
        row["client_cpu_s"] = result.cpu_seconds
        row["wall_s"] = result.wall_s
        self._configurations(row, server, entry, result.stdout + "\n" + result.stderr)
        # The system-wide counter sees every segment on loopback, but only this machine's half of a link.
        if segments_before is not None and segments_after is not None and not self.remote_server():
            row["tcp_segments"] = segments_after - segments_before
        found = find_results(entry, result.stdout)
        row["found"] = found
        if on_result is not None:
            on_result(result)
        if not server_alive:
            row["error"] = "the server died during the run"
            row["tail"] = server.output_tail()
        elif result.timed_out:
            row["error"] = f"hung past its deadline of {deadline_s:g} s (killed with its process group)"
            row["tail"] = tail_of(result.stdout + "\n" + result.stderr)
        elif result.returncode != 0:
            row["error"] = f"exited {result.returncode}"
            row["tail"] = tail_of(result.stdout + "\n" + result.stderr)
        elif not all(found.values()):
            missing = [k for k, v in found.items() if not v]
            row["error"] = f"printed no {', '.join(missing)} (its 'result' regex matched nothing)"
            row["tail"] = tail_of(result.stdout + "\n" + result.stderr)
        else:
            row["status"] = "ok"
        return row

    def _configurations(self, row, server, client_entry, client_output):
        """Each side's configuration as it ran (process_configuration), how much of its CPUs it used, and which
        side, if either, had none to spare."""
        if not self.remote_server() and getattr(server, "process", None) is not None and server.alive():
            reading = process_configuration.read(server.pid(), server.process.output(),
                                                 server.entry.get("probe"))
            server.config = process_configuration.merge(getattr(server, "config", None), reading)
            row["server_config"] = server.config
        client_cpus = len(self.client_cpus) if self.client_cpus else len(os.sched_getaffinity(0))
        row["client_config"] = {"cpus": client_cpus,
                                **process_configuration.probed(client_output, client_entry.get("probe"))}
        row["server_saturation"] = process_configuration.saturation(
            row.get("server_cpu_s"), row.get("wall_s"), row.get("server_config", {}).get("cpus"))
        row["client_saturation"] = process_configuration.saturation(row.get("client_cpu_s"), row.get("wall_s"),
                                                                    client_cpus)
        row["bottleneck"] = process_configuration.bottleneck(row["server_saturation"], row["client_saturation"])

    def _run_fleet(self, entry, server, values, extra_args, timeout_s):
        """Runs client `entry` on every client host at once against `server`: one row, its figures summed
        over the hosts, latency histograms merged (netbench's clients write run documents), and `hosts`
        with each host's figures and share of the messages per second."""
        placement = self.placement
        row = {"status": "failed"}
        why = remote_placement.why_not_remote(entry)
        try:
            if why:
                raise Failure(why)
            argv = registry.expand(entry["command"], values, placement.resolve) + list(extra_args)
            env = {name: registry.expand([value], values)[0] for name, value in entry.get("env", {}).items()}
        except (KeyError, Failure) as error:
            row["error"] = f"cannot run on the client hosts: {error}"
            return row
        if not server.alive():
            row.update(error="the server is not running", tail=server.output_tail())
            return row
        json_flag = "--json" if _TOKEN_NETBENCH.match(entry["command"][0]) else None
        server_before = server.cpu_seconds()
        started = time.monotonic()
        try:
            results = placement.run_fleet(entry, argv, env, timeout_s, json_flag=json_flag)
        except ssh_host.RemoteError as error:
            row["error"] = str(error)
            return row
        row["wall_s"] = time.monotonic() - started
        server_alive = server.alive()
        row["server_cpu_s"] = server.cpu_seconds() - server_before if server_alive else None
        hosts = []
        for result in results:
            hosts.append({"host": result.target, "returncode": result.returncode, "cpu_s": result.cpu_seconds,
                          "found": find_results(entry, result.stdout), "error": result.error,
                          "histogram_counts": {name: h.get("count") for name, h in
                                               ((result.document or {}).get("histograms") or {}).items()},
                          "tail": tail_of(result.stdout + "\n" + result.stderr) if result.returncode else ""})
        row["found"] = remote_placement.merge_found([h["found"] for h in hosts])
        cpus = [h["cpu_s"] for h in hosts]
        row["client_cpu_s"] = sum(cpus) if all(c is not None for c in cpus) else None
        total_rate = (row["found"].get("msgs_per_s") or [None])[-1]
        for host in hosts:
            rate = (host["found"].get("msgs_per_s") or [None])[-1]
            host["msgs_per_s"] = rate
            host["messages"] = (host["found"].get("messages") or [None])[-1]
            host["share"] = rate / total_rate if rate is not None and total_rate else None
        row["hosts"] = hosts
        histograms = remote_placement.merged_histograms(results)
        if histograms:
            row["histograms"] = histograms
        failed = [h for h in hosts if h["returncode"] != 0]
        if not server_alive:
            row.update(error="the server died during the run", tail=server.output_tail())
        elif failed:
            row["error"] = "; ".join(f"{h['host']}: " + (h["error"] or f"exited {h['returncode']}") for h in failed)
            row["tail"] = "\n".join(f"[{h['host']}] {h['tail']}" for h in failed)
        elif not all(row["found"].values()):
            missing = [k for k, v in row["found"].items() if not v]
            row["error"] = f"printed no {', '.join(missing)} on some host (its 'result' regex matched nothing)"
        else:
            row["status"] = "ok"
        return row

    def stop_all(self):
        for server in self.servers:
            try:
                if hasattr(server, "stop"):
                    server.stop()
                elif server.process:
                    server.process.stop()
                elif "stop" in server.entry:
                    subprocess.run(registry.expand(server.entry["stop"], server.values), capture_output=True,
                                   timeout=60)
            except Exception as error:  # noqa: BLE001 - stop the others all the same
                progress.log(f"note: stopping {server.entry['name']}: {error!r}")
        self.servers = []
