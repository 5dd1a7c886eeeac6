"""Runs registry contestants (bench/registry/registry.py) as real processes and measures them.

A server contestant is started once per configuration (its placeholders filled) and kept for the whole run;
a client contestant runs to completion against it, once per case and round. Each side's CPU time is read
from the kernel's scheduler clock (the process CPU clock, nanoseconds, threads that exited included), on a
remote host by netbench's reader there; where a side's host cannot run it, that side's CPU figures are None
and so is the row's `cpu_clock` (no other clock stands in). A daemon server (a `pidfile` entry) is measured
over its whole process tree. A server that fails to start or dies, and a client that fails or prints no result, give
failed rows that carry the last lines the program printed; every other case still runs.

    runner = contest.Runner(pin=False)
    server = runner.start_server(entry, {"procs": 2})          # contest.Failure on failure
    row = runner.run_client(client_entry, server, {"clients": 3, "duration_s": 5}, bound_s=5)
    runner.stop_all()

Where the programs run is the runner's executors (bench/running/executor.py): this machine by default
(local.py), or what a placement gives (remote_placement.RemotePlacement: a server host and a fleet of client
hosts over SSH, fleet.py). The runner never asks which: a fleet's result is its hosts' merged (figures summed,
latency histograms merged exactly, each host's share beside them in `hosts`), and the status chain (server
died, hung, exited N, printed no X, ok) is one for a client on one host and a fleet alike.
"""

import os
import subprocess

from bench.registry import registry
from bench.running import binaries
from bench.running import executor
from bench.running import local
from bench.running import placement as cpu_placement
from bench.running import ports
from bench.running import process_configuration
from bench.base import progress

HOST = local.HOST
tail_of = local.tail_of
# A server without a ready line (a registry entry with none, a command line of --versus) is ready once its port
# accepts a connection, and has failed to start when it does not within this many seconds.
LISTEN_S = 6
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


def client_status(result, found, deadline_s):
    """(error, tail) of a client's run (one process, or a fleet's: each of its `parts` is one host's), or None
    when it went well: the one status chain after "the server died": hung past its deadline, exited N, printed
    no X."""
    failed = [(r, why) for r in result.parts for why in [_why_failed(r, deadline_s)] if why]
    if failed:
        return "; ".join(_on(r.host, why) for r, why in failed), _tails([r for r, _ in failed])
    missing = [k for k, v in found.items() if not v]
    if missing:
        return (f"printed no {', '.join(missing)}{result.somewhere} (its 'result' regex matched nothing)",
                _tails(result.parts))
    return None


def _settled(row, status):
    """`row` with its status: "ok" where `status` is None, else "failed" with its (error, tail)."""
    row.update({"status": "failed", "error": status[0], "tail": status[1]} if status else {"status": "ok"})
    return row


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
    write-ups ran them; "split" (pin=True) gives each a disjoint half (bench/running/placement.py). `placement`
    puts the programs: its `executors(server_here, client_here)` gives the server's executor and the clients' (one
    host, or a fleet: fleet.py); this machine by default. `link` names the runner's network link where a
    comparison has several (loopback, remote); rows carry both."""

    def __init__(self, pin=False, placement=local.HERE, link=None, deadline_margin_s=DEADLINE_MARGIN_S):
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
        return self.placement.executors(*self._here)[0]

    @property
    def clients(self):
        """The executor clients run on: one host, or a fleet of hosts each running every client at once."""
        return self.placement.executors(*self._here)[1]

    def unavailable(self, entry):
        """None when `entry` can run where this runner puts its role, else why not."""
        return (self.server_host if entry["role"] == "server" else self.clients).unavailable(entry)

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
        """Starts `entry` with `values` for its placeholders (a free {port} is added); returns a Server once it
        printed its ready line and its port accepts (an entry without a ready line: once its port accepts, within
        LISTEN_S), or raises Failure with the last lines it printed."""
        host = self.server_host
        values = {**self.base_values(), "host": host.address(), "port": host.free_port(), **(values or {})}
        launch = self._launch(entry, values, extra_args, host)
        try:
            running = host.start_server(launch, entry.get("ready"))
        except executor.StartError as error:
            raise Failure(str(error), error.tail) from error
        url = registry.expand([url_template], values)[0] if url_template else None
        server = Server(entry, values, running, url=url)
        self.servers.append(server)
        if "{port}" in " ".join(entry["command"]):
            self._wait_accepting(server)
        return server

    @staticmethod
    def _wait_accepting(server):
        """Returns once `server`'s port accepts a connection; Failure saying what it did instead."""
        where = f"{server.values['host']}:{server.port}"
        if "ready" in server.entry:
            if not ports.wait_until_accepting(server.port, server.values["host"]):
                raise Failure(f"printed its ready line but accepts nothing on {where}", server.output_tail())
            return
        if not ports.wait_until_accepting(server.port, server.values["host"], LISTEN_S, alive=server.alive):
            said = ("exited before it accepted a connection" if not server.alive()
                    else f"accepted no connection within {LISTEN_S} s")
            raise Failure(f"{said} on {where} (its {{port}})", server.output_tail())

    def run_client(self, entry, server, values, extra_args=(), bound_s=60, measured=None):
        """Runs client `entry` to completion against `server` on the runner's clients (one host, or every host
        of a fleet at once). Returns a row: status "ok" or "failed" (with `error` and `tail`), the values its
        result regexes found (all matches for per-repetition figures; a fleet's summed), wall time and both
        sides' CPU seconds over the run, and `cpu_clock` ("scheduler", or None where a side's host could not
        measure). `bound_s` is the load's own bound (its duration, or the timeout its program is given): a client
        still running `bound_s` + the runner's `deadline_margin_s` after it started has hung, and is stopped, its
        row failed ("hung past its deadline of N s") with the last lines it printed. `measured`, where given (a
        scheduler.Measured), names the flag the client writes its run document with (`report_flag`) and is given the
        client's process (its client_process.ClientResult: output, exit status, user/system split) and that
        document, for a scenario that reads more than the row keeps: a fleet's merged result has neither."""
        values = {**self.base_values(), "host": server.values.get("host", HOST), "port": server.port,
                  "url": server.url, **values}
        deadline_s = bound_s + self.deadline_margin_s
        clients = self.clients
        try:
            launch = self._launch(entry, values, extra_args, clients)
        except Failure as error:
            return {"status": "failed", "error": str(error)}
        if not server.alive():
            return {"status": "failed", "error": "the server is not running", "tail": server.output_tail()}
        launch.document_flag = getattr(measured, "report_flag", None) or clients.document_flag(entry)
        row, result, died = self._measure(server, clients, launch, deadline_s)
        row.update(result.figures(entry))
        self._configurations(row, server, entry, result)
        if measured is not None:
            measured.result, measured.report = result.process, result.document
        status = (("the server died during the run", server.output_tail()) if died
                  else client_status(result, row["found"], deadline_s))
        return _settled(row, status)

    def run_alone(self, entry, values, extra_args=(), bound_s=60, measured=None):
        """Runs `entry`, a program that needs no server (a microbenchmark), to completion on the runner's
        clients: a row as run_client's (status, the values its result regexes found, wall time, its CPU
        seconds), without a server's figures. `measured` is given the client's process, as there."""
        deadline_s = bound_s + self.deadline_margin_s
        try:
            launch = self._launch(entry, {**self.base_values(), **values}, extra_args, self.clients)
        except Failure as error:
            return {"status": "failed", "error": str(error)}
        result = self.clients.run_client(launch, deadline_s)
        row = {"client_cpu_s": result.cpu_seconds, "wall_s": result.wall_s, "cpu_clock": result.cpu_clock,
               **result.figures(entry)}
        if measured is not None:
            measured.result = result.process
        return _settled(row, client_status(result, row["found"], deadline_s))

    def _measure(self, server, clients, launch, deadline_s):
        """(row, result, died): the client run on `clients`, both sides' CPU seconds (the server's None when it
        died meanwhile or its host has no CPU clock), wall time, and what the server's host did meanwhile
        (executor.Meanwhile: the TCP segments sent where the clients ran there too, and its `noise`: steal, other
        load, context switches, where its executor reads them)."""
        server_before = server.cpu_seconds()
        meanwhile = executor.Meanwhile(self.server_host, clients, server.running)
        result = clients.run_client(launch, deadline_s)
        host_figures = meanwhile.finish()
        server_alive = server.alive()
        server_after = server.cpu_seconds() if server_alive else None
        clocks = {server.running.cpu_clock, result.cpu_clock}
        row = {"status": "failed", "client_cpu_s": result.cpu_seconds, "wall_s": result.wall_s,
               "server_cpu_s": server_after - server_before if None not in (server_before, server_after) else None,
               "cpu_clock": executor.SCHEDULER if clocks == {executor.SCHEDULER} else None}
        row.update(host_figures)
        return row, result, not server_alive

    def _configurations(self, row, server, client_entry, client_result):
        """Each side's configuration as it ran (process_configuration), how much of its CPUs it used, and which
        side, if either, had none to spare."""
        if server.alive():
            server.config = process_configuration.merge(server.config,
                                                        server.running.configuration(server.entry.get("probe")))
            row["server_config"] = server.config
        client_cpus = self.clients.client_cpus()
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
