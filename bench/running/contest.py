"""Runs registry contestants (bench/registry/registry.py) as real processes and measures them.

A server contestant is started once per configuration (its placeholders filled) and kept for the whole run;
a client contestant runs to completion against it, once per case and round. Each side's CPU time is read
from the kernel's scheduler clock (the process CPU clock, nanoseconds, threads that exited included), not
from 10 ms ticks (on a remote host too, where netbench's reader runs there: the row's `cpu_clock` says
which); a daemon server (a `pidfile` entry) is measured over its whole process tree. A server that
fails to start or dies, and a client that fails or prints no result, give failed rows that carry the last
lines the program printed; every other case still runs.

    runner = contest.Runner(pin=False)
    server = runner.start_server(entry, {"procs": 2})          # contest.Failure on failure
    row = runner.run_client(client_entry, server, {"clients": 3, "duration_s": 5}, bound_s=5)
    runner.stop_all()

Where the programs run is the runner's executors (bench/running/executor.py): this machine by default
(local.py), or what a placement gives (remote_placement.RemotePlacement: a server host and a fleet of client
hosts over SSH). A fleet's row is the merge of its hosts' (figures summed, latency histograms merged exactly)
with each host's share beside it in `hosts`; the status chain (server died, hung, exited N, printed no X, ok)
is one for a client on one host and a fleet alike.
"""

import json
import os
import re
import subprocess

from bench.analysis import histogram_merge
from bench.registry import registry
from bench.running import binaries
from bench.running import executor
from bench.running import local
from bench.running import placement as cpu_placement
from bench.running import ports
from bench.running import process_configuration
from bench.running import progress

HOST = local.HOST
tail_of = local.tail_of
# A client's deadline is the bound of its own load (a duration, or the timeout a client passes its program) plus
# this margin for starting, connecting and closing; one still running then has hung, and is killed.
DEADLINE_MARGIN_S = 60


class Failure(RuntimeError):
    """A contestant that could not run; `tail` holds the last lines it printed."""

    def __init__(self, message, tail=""):
        super().__init__(message)
        self.tail = tail


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


SERIES_LINE = re.compile(r"^series: (\{.*\})$", re.MULTILINE)


def find_series(stdout):
    """The per-interval counts a load generator printed as its `series:` line (netbench's clients and the
    write-ups' Go loads: {"interval_s", "last_s", "sent": [...], "received": [...]}), or None: a client that
    prints none, or a line that does not parse, has no series, and its row says so by lacking one."""
    lines = SERIES_LINE.findall(stdout)
    if not lines:
        return None
    try:
        series = json.loads(lines[-1])
    except ValueError:
        return None
    ok = isinstance(series, dict) and isinstance(series.get("interval_s"), (int, float)) and series["interval_s"] > 0
    return series if ok and isinstance(series.get("sent"), list) else None


def merge_found(per_host_found):
    """A fleet's `found` values: for each figure, the sum over hosts of each host's last value (msgs/s
    summed, messages summed); a figure missing on any host is missing."""
    keys = list(dict.fromkeys(k for found in per_host_found for k in found))
    merged = {}
    for key in keys:
        lasts = [found.get(key)[-1] if found.get(key) else None for found in per_host_found]
        merged[key] = [sum(lasts)] if lasts and all(v is not None for v in lasts) else []
    return merged


def merged_histograms(results):
    """The latency histograms of every host's run document, merged exactly; None unless every host wrote one."""
    documents = [r.document for r in results if r.document]
    if not documents or len(documents) != len(results):
        return None
    return histogram_merge.merge_documents_histograms(documents)


def _on(host, words):
    return f"{host}: {words}" if host else words


def _tails(results):
    """The last lines each client printed, each host's marked with its name."""
    tails = [(r.host, tail_of(r.stdout + "\n" + r.stderr)) for r in results]
    return "\n".join(f"[{host}] {tail}" if host else tail for host, tail in tails)


def _why_failed(result, deadline_s):
    if result.error:
        return result.error
    if result.timed_out:
        return f"hung past its deadline of {deadline_s:g} s ({result.stopped})"
    if result.returncode != 0:
        return f"exited {result.returncode}"
    return None


def client_status(results, found, deadline_s):
    """(error, tail) of a client's run on one host or on each host of a fleet, or None when it went well: the
    one status chain after "the server died": hung past its deadline, exited N, printed no X."""
    failed = [(r, why) for r in results for why in [_why_failed(r, deadline_s)] if why]
    if failed:
        return "; ".join(_on(r.host, why) for r, why in failed), _tails([r for r, _ in failed])
    missing = [k for k, v in found.items() if not v]
    if missing:
        where = " on some host" if len(results) > 1 else ""
        return f"printed no {', '.join(missing)}{where} (its 'result' regex matched nothing)", _tails(results)
    return None


def _host_part(entry, result):
    """One fleet host's part of a row."""
    histograms = (result.document or {}).get("histograms") or {}
    return {"host": result.host, "returncode": result.returncode, "cpu_s": result.cpu_seconds,
            "cpu_clock": result.cpu_clock, "found": find_results(entry, result.stdout), "error": result.error,
            "histogram_counts": {name: h.get("count") for name, h in histograms.items()},
            "tail": tail_of(result.stdout + "\n" + result.stderr) if result.returncode else ""}


def _fleet_figures(entry, results):
    """`found` summed over the hosts, and `hosts`: each host's part and share of the messages per second."""
    hosts = [_host_part(entry, result) for result in results]
    found = merge_found([h["found"] for h in hosts])
    total_rate = (found.get("msgs_per_s") or [None])[-1]
    for host in hosts:
        rate = (host["found"].get("msgs_per_s") or [None])[-1]
        host["msgs_per_s"] = rate
        host["messages"] = (host["found"].get("messages") or [None])[-1]
        host["share"] = rate / total_rate if rate is not None and total_rate else None
    figures = {"found": found, "hosts": hosts}
    histograms = merged_histograms(results)
    if histograms:
        figures["histograms"] = histograms
    return figures


class Server:
    """One started server contestant: the executor's RunningServer, the values its placeholders were filled
    with (host, port), the URL it serves and its configuration as read so far."""

    def __init__(self, entry, values, running, url=None):
        self.entry = entry
        self.values = values
        self.running = running
        self.url = url
        self.config = None

    @property
    def port(self):
        return self.values.get("port")

    def pid(self):
        return self.running.pid

    def cpu_seconds(self):
        return self.running.cpu_seconds()

    def alive(self):
        return self.running.alive()

    def output_tail(self):
        return tail_of(self.running.output())


class Runner:
    """Starts servers and runs clients with one resolver for {//pkg:target}, one placement of the two sides on
    the CPUs and one place that stops everything. Placement "shared" lets server and load use every CPU, as the
    write-ups ran them; "split" (pin=True) gives each a disjoint half (bench/running/placement.py). `placement`,
    where given, puts the programs elsewhere: its `executors(server_here, client_here)` gives the server's
    executor and the clients' (a fleet). `link` names the runner's network link where a comparison has several
    (loopback, remote); rows carry both."""

    def __init__(self, pin=False, placement=None, link=None, deadline_margin_s=DEADLINE_MARGIN_S):
        self.deadline_margin_s = deadline_margin_s
        self.server_cpus, self.client_cpus = cpu_sets(pin)
        self.pin = pin and self.server_cpus is not None
        self.placement_name = cpu_placement.SPLIT if self.pin else cpu_placement.SHARED
        self.link = link
        self.servers = []
        self.placement = placement
        self._here = local.LocalExecutor(self.server_cpus), local.LocalExecutor(self.client_cpus)

    @property
    def server_host(self):
        """The executor servers run on."""
        return self.placement.executors(*self._here)[0] if self.placement else self._here[0]

    @property
    def client_hosts(self):
        """The executors clients run on: one, or the hosts of a fleet, each running every client at once."""
        return self.placement.executors(*self._here)[1] if self.placement else [self._here[1]]

    def fleet(self):
        """True when the clients run on named hosts: each row then carries every host's part (`hosts`), its
        figures summed and its latency histograms merged."""
        return any(host.host is not None for host in self.client_hosts)


    def unavailable(self, entry):
        """None when `entry` can run where this runner puts its role, else why not."""
        hosts = [self.server_host] if entry["role"] == "server" else self.client_hosts
        return next((why for why in (host.unavailable(entry) for host in hosts) if why), None)

    @staticmethod
    def resolve(token):
        """The path on this machine of a {//pkg:target} token (a version command runs here)."""
        try:
            return binaries.program_path(token)
        except FileNotFoundError as error:
            raise Failure(str(error)) from error

    @staticmethod
    def base_values():
        return {"host": HOST, "results": registry.FOLDER}

    @staticmethod
    def _launch(entry, values, extra_args, host):
        """The executor's Launch of `entry` on `host`, its placeholders filled; Failure when it cannot be
        built there."""
        try:
            why = host.refuses(entry)
            if why:
                raise Failure(why)
            expand = registry.expand
            return executor.Launch(
                expand(entry["command"], values, host.resolve) + list(extra_args),
                env={name: expand([value], values)[0] for name, value in entry.get("env", {}).items()},
                name=entry["name"], pidfile=expand([entry["pidfile"]], values)[0] if "pidfile" in entry else None,
                stop_argv=expand(entry["stop"], values) if "stop" in entry else None)
        except (KeyError, Failure, FileNotFoundError, subprocess.CalledProcessError) as error:
            raise Failure(f"cannot build its command: {error}") from error

    def start_server(self, entry, values=None, extra_args=(), url_template=None):
        """Starts `entry` with `values` for its placeholders (a free {port} is added); returns a Server or
        raises Failure with the last lines it printed."""
        host = self.server_host
        values = {**self.base_values(), "host": host.address(), "port": host.free_port(), **(values or {})}
        launch = self._launch(entry, values, extra_args, host)
        try:
            running = host.start_server(launch, entry["ready"])
        except executor.StartError as error:
            raise Failure(str(error), error.tail) from error
        url = registry.expand([url_template], values)[0] if url_template else None
        server = Server(entry, values, running, url=url)
        self.servers.append(server)
        if "{port}" in " ".join(entry["command"]) and not ports.wait_until_accepting(values["port"],
                                                                                    values["host"]):
            raise Failure(f"printed its ready line but accepts nothing on {values['host']}:{values['port']}",
                          server.output_tail())
        return server

    def run_client(self, entry, server, values, extra_args=(), bound_s=60, on_result=None):
        """Runs client `entry` to completion against `server`, on the runner's client host (or every host of
        its fleet at once). Returns a row: status "ok" or "failed" (with `error` and `tail`), the values its
        result regexes found (all matches for per-repetition figures; a fleet's summed), wall time and both
        sides' CPU seconds over the run, and which clock gave them (`cpu_clock`). `bound_s` is the load's own
        bound (its duration, or the timeout its program is given): a client still running `bound_s` + the
        runner's `deadline_margin_s` after it started has hung, and is stopped, its row failed ("hung past its
        deadline of N s") with the last lines it printed. `on_result`, where given and the client ran on one
        host, gets its client_process.ClientResult (its output, exit status, user/system split) before the row
        returns: for a scenario that reads more than the row keeps."""
        values = {**self.base_values(), "host": server.values.get("host", HOST), "port": server.port,
                  "url": server.url, **values}
        deadline_s = bound_s + self.deadline_margin_s
        try:
            launch = self._launch(entry, values, extra_args, self.client_hosts[0])
        except Failure as error:
            return {"status": "failed", "error": str(error)}
        if not server.alive():
            return {"status": "failed", "error": "the server is not running", "tail": server.output_tail()}
        if self.fleet() and _TOKEN_NETBENCH.match(entry["command"][0]):
            launch.document_flag = "--json"
        row, results = self._measure(server, launch, deadline_s)
        row.update(_fleet_figures(entry, results) if self.fleet() else {"found": find_results(entry,
                                                                                              results[0].stdout)})
        series = None if self.fleet() else find_series(results[0].stdout)
        if series is not None:
            row["series"] = series
        self._configurations(row, server, entry, results[0])
        if on_result is not None and not self.fleet():
            on_result(results[0])
        died = row["server_cpu_s"] is None  # read only while it runs
        status = (("the server died during the run", server.output_tail()) if died
                  else client_status(results, row["found"], deadline_s))
        if status:
            row.update(status="failed", error=status[0], tail=status[1])
        else:
            row["status"] = "ok"
        return row

    def _measure(self, server, launch, deadline_s):
        """(row, results): the client run on every client host together, both sides' CPU seconds (the
        server's None when it died meanwhile), wall time, where server and clients share one host the TCP
        segments sent meanwhile (a system-wide counter sees only one end of a link), and what else the server's
        host did meanwhile (`noise`: steal, other load, context switches, where its executor reads them, this
        machine or a host over SSH; the client figures only where the clients ran there too)."""
        one_host = all(host.host == self.server_host.host for host in self.client_hosts)
        segments_before = self.server_host.segments_sent() if one_host else None
        server_before = server.cpu_seconds()
        probe = self.server_host.noise_probe(server.running, clients_here=one_host)
        results = executor.run_together(self.client_hosts, launch, deadline_s)
        noise = probe.finish() if probe is not None else None
        segments_after = self.server_host.segments_sent() if one_host else None
        server_alive = server.alive()
        cpus = [r.cpu_seconds for r in results]
        clocks = {server.running.cpu_clock} | {r.cpu_clock for r in results}
        row = {"status": "failed", "server_cpu_s": server.cpu_seconds() - server_before if server_alive else None,
               "client_cpu_s": sum(cpus) if all(c is not None for c in cpus) else None,
               "wall_s": max(r.wall_s for r in results),
               "cpu_clock": executor.TICKS if executor.TICKS in clocks else executor.SCHEDULER}
        if segments_before is not None and segments_after is not None:
            row["tcp_segments"] = segments_after - segments_before
        if noise is not None:
            row["noise"] = noise
        return row, results

    def _configurations(self, row, server, client_entry, client_result):
        """Each side's configuration as it ran (process_configuration), how much of its CPUs it used, and which
        side, if either, had none to spare."""
        if server.alive():
            server.config = process_configuration.merge(server.config,
                                                        server.running.configuration(server.entry.get("probe")))
            row["server_config"] = server.config
        client_cpus = sum(host.client_cpus() for host in self.client_hosts)
        client_output = client_result.stdout + "\n" + client_result.stderr
        row["client_config"] = {"cpus": client_cpus,
                                **process_configuration.probed(client_output, client_entry.get("probe"))}
        row["server_saturation"] = process_configuration.saturation(
            row.get("server_cpu_s"), row.get("wall_s"), row.get("server_config", {}).get("cpus"))
        row["client_saturation"] = process_configuration.saturation(row.get("client_cpu_s"), row.get("wall_s"),
                                                                    client_cpus)
        row["bottleneck"] = process_configuration.bottleneck(row["server_saturation"], row["client_saturation"])

    def stop(self, server):
        """Stops one server (the others keep running); returns everything it printed, its stop line included."""
        if server in self.servers:
            self.servers.remove(server)
        return server.running.stop()

    def stop_all(self):
        for server in list(self.servers):
            try:
                self.stop(server)
            except Exception as error:  # noqa: BLE001 - stop the others all the same
                progress.log(f"note: stopping {server.entry['name']}: {error!r}")
        self.servers = []
