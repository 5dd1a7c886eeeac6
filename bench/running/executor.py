"""Where a program runs: one interface, and one implementation per place. `local.py` runs programs on this
machine (loopback, CPU affinity for the split placement), `ssh.py` on another host over OpenSSH, `fake.py` in
memory with scripted outputs for the suite's own tests. The runner (contest.py) knows only this interface: a
new placement (a container runtime, a Kubernetes Job) is one more implementation of `Executor`.

    executor = local.LocalExecutor(cpus={0, 1})
    executor.prepare(entries)                            # put what the entries need on the host
    path = executor.resolve("//echo:server")             # a {//pkg:target} token's program there
    port, address = executor.free_port(), executor.address()
    server = executor.start_server(Launch(argv, env, name="netbench-poll"), ready=r"listening on")
    server.cpu_seconds(); server.configuration(probe); server.alive(); server.output()
    everything_it_printed = server.stop()
    result = executor.run_client(Launch(argv, env), deadline_s=60)   # a client_process.ClientResult

A client fleet (fleet.py) is an executor too: it starts its hosts' clients together (`start_client` on each,
`wait_ready`, `release` on each, then `result` of each) and hands back one result of them all.

A new placement is one class here and one object the runner is given: a subclass of Executor that implements
the abstract methods below (unavailable, resolve, address, free_port, start_server, client_cpus), run_client
or start_client, and prepare, refuses, noise_probe, segments_sent and close where the place needs them, and a
placement whose `executors(server_here, client_here)` returns (the server's executor, the clients' executor):
`contest.Runner(placement=...)` then runs every scenario there unchanged.

CPU time is the scheduler's clock of the whole process tree (nanoseconds, threads that exited included), the
only clock the suite reads: `cpu_clock` is SCHEDULER where the host can read it, and None where it cannot (a
remote host without netbench's reader), whose CPU figures are then None, not measured.
"""

import abc
import dataclasses
import threading

SCHEDULER = "scheduler"


@dataclasses.dataclass
class Launch:
    """One program to start: its expanded command line, the entry's own environment variables (the executor
    adds them to the host's), a name for messages, and for a daemon its pidfile and stop command."""

    argv: list
    env: dict = dataclasses.field(default_factory=dict)
    name: str = ""
    pidfile: str = None
    stop_argv: list = None
    document_flag: str = None  # e.g. "--json": the client writes its run document to FLAG=PATH on the host


class StartError(RuntimeError):
    """A server that did not start; `tail` holds the last lines it printed."""

    def __init__(self, message, tail=""):
        super().__init__(message)
        self.tail = tail


class RunningServer(abc.ABC):
    """A server an executor started: its PID on its host, what it printed, its CPU and configuration."""

    pid = None
    cpu_clock = SCHEDULER

    @abc.abstractmethod
    def alive(self):
        """True while it runs."""

    @abc.abstractmethod
    def output(self):
        """Everything it printed so far (stdout and stderr)."""

    @abc.abstractmethod
    def cpu_seconds(self):
        """CPU seconds of its process tree so far; None where its host has no CPU clock (`cpu_clock` None)."""

    @abc.abstractmethod
    def configuration(self, probe):
        """{"cpus": N, "threads": N, probed values...} as it runs now (process_configuration.read)."""

    @abc.abstractmethod
    def stop(self):
        """Stops it and everything it started; returns everything it printed, its stop line included."""


class PendingClient(abc.ABC):
    """A client started on its host and held before its program runs, so that a fleet starts together."""

    @abc.abstractmethod
    def wait_ready(self, timeout_s):
        """True once it waits for release(); False when it failed first (its result says why)."""

    @abc.abstractmethod
    def release(self):
        """Lets the program run."""

    @abc.abstractmethod
    def result(self):
        """Waits for it; a client_process.ClientResult. One still running its deadline after release is
        stopped and its result says so (`timed_out`)."""


class _Threaded(PendingClient):
    """A client that runs in a thread of its own once released: nothing holds it before."""

    def __init__(self, run):
        self.run, self.thread, self.outcome = run, None, {}

    def wait_ready(self, timeout_s):
        return True

    def release(self):
        self.thread = threading.Thread(target=lambda: self.outcome.update(result=self.run()))
        self.thread.start()

    def result(self):
        self.thread.join()
        return self.outcome["result"]


class Executor(abc.ABC):
    """Where programs run. `host` is the name rows carry for it: None for this machine."""

    host = None
    cpu_clock = SCHEDULER

    def hosts(self):
        """The names of the hosts it runs programs on (None: this machine)."""
        return {self.host}

    @abc.abstractmethod
    def unavailable(self, entry):
        """None when registry `entry` can run here, else why not (its programs, packages and checks)."""

    def refuses(self, entry):
        """Why `entry` cannot run here at all, from its shape alone (cheap: asked at every start); None by
        default."""
        return None

    @abc.abstractmethod
    def resolve(self, token):
        """The path here of a {//pkg:target} token (for registry.expand); FileNotFoundError when none."""

    def document_flag(self, entry):
        """The flag client `entry` writes its run document with where this executor reads one anyway; None by
        default."""
        return None

    def prepare(self, entries):
        """Puts what `entries` need on the host (their binaries, the CPU reader); nothing by default."""

    @abc.abstractmethod
    def address(self):
        """The address clients reach a server of this host at."""

    @abc.abstractmethod
    def free_port(self):
        """A port nothing listens on there, for a server that takes its port as an argument."""

    @abc.abstractmethod
    def start_server(self, launch, ready, timeout_s=30):
        """Starts `launch` and returns a RunningServer once a line of its output matches the regex `ready` (at
        once where `ready` is None: the runner then waits until its port accepts); StartError with its last
        lines when it does not."""

    def start_client(self, launch, deadline_s):
        """Starts client `launch`, held before its program runs; a PendingClient whose program is stopped
        `deadline_s` after release. By default its run_client in a thread of its own once released (an executor
        implements one of the two)."""
        return _Threaded(lambda: self.run_client(launch, deadline_s))

    def run_client(self, launch, deadline_s):
        """Runs client `launch` to completion: its output, exit status, wall time and CPU time (a
        client_process.ClientResult); stopped at `deadline_s` (`timed_out`). By default through start_client."""
        pending = self.start_client(launch, deadline_s)
        pending.wait_ready(deadline_s)
        pending.release()
        return pending.result()

    @abc.abstractmethod
    def client_cpus(self):
        """How many CPUs a client may use there."""

    def noise_probe(self, server, clients_here=True):
        """A reading of what else happens on this host, the server's, while clients run against `server` (a
        RunningServer): an object whose finish() returns the row's `noise` (bench/running/noise.py) or None;
        None where the host cannot say. `clients_here`: whether the clients run on this host too (where they
        do not, the reading has no client figures)."""
        return None

    def segments_sent(self):
        """TCP segments the host has sent so far, where it says; None by default."""
        return None

    def close(self):
        """Stops whatever still runs there and lets the host go."""


class Placement:
    """A server's executor and the clients' (one, or a fleet.Fleet), as contest.Runner(placement=...) takes one."""

    def __init__(self, server, clients):
        self.server, self.clients = server, clients

    def executors(self, server_here, client_here):
        return self.server, self.clients


class Meanwhile:
    """What the server's host did while clients ran against `server` (a RunningServer): the TCP segments it
    sent, where the clients ran there too (a system-wide counter sees only one end of a link otherwise), and
    its noise probe's reading. Made just before the run; finish() just after it."""

    def __init__(self, server_host, clients, server):
        self.server_host = server_host
        self.together = clients.hosts() == server_host.hosts()
        self.segments = server_host.segments_sent() if self.together else None
        self.probe = server_host.noise_probe(server, clients_here=self.together)

    def finish(self):
        """The row's `tcp_segments` and `noise`, each where its host said."""
        noise = self.probe.finish() if self.probe is not None else None
        after = self.server_host.segments_sent() if self.together else None
        figures = {"tcp_segments": after - self.segments} if self.segments is not None and after is not None else {}
        return {**figures, **({"noise": noise} if noise is not None else {})}
