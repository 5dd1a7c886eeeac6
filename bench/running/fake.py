"""An executor in memory (bench/running/executor.py), for the suite's own tests of the code above the executor:
no process runs; servers and clients do what the test scripted, and the executor records what it was asked.

    servers = fake.FakeExecutor()
    servers.script_server("srv", output="listening on 1\\n", cpu_per_check=0.25)
    clients = fake.FakeExecutor(host="client-a")
    clients.script_client("load", fake.ClientScript(stdout="rate: 10\\n", cpu_s=0.5))
    servers.noise = {"steal": 0.01}                 # what its noise probes read (None: none, by default)
    clients.cpu_clock = None                        # a host without netbench's CPU reader: no CPU figures
    runner = contest.Runner(placement=fake.FakePlacement(servers, clients))   # or fleet.Fleet([a, b])

A program is known by the basename of its argv[0]; one that was not scripted does not start ("not found").

    clock = fake.FakeClock()                        # a clock for rounds.Budget and scheduler.Plan: clock.now += 5
"""

import dataclasses
import os
import re

from bench.running import client_process
from bench.running import executor


class FakeClock:
    """A clock that stands still until a test moves it: `now` seconds, 0 at first."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@dataclasses.dataclass
class ClientScript:
    """What a scripted client does: prints, exits, costs; `hangs` makes it run past its deadline, and
    `kills_server` stops the server it was run against, as a crash under load would."""

    stdout: str = ""
    stderr: str = ""
    returncode: int = 0
    cpu_s: float = 0.1
    wall_s: float = 1.0
    hangs: bool = False
    kills_server: bool = False


class FakeServer(executor.RunningServer):
    def __init__(self, name, output, cpu_per_check, pid):
        self.name = name
        self.printed = output
        self.cpu_per_check = cpu_per_check
        self.pid = pid
        self.running = True
        self.checks = 0

    def alive(self):
        return self.running

    def output(self):
        return self.printed

    def cpu_seconds(self):
        """`cpu_per_check` more at every reading: a server busy between two readings (None: no clock there)."""
        if self.cpu_clock is None:
            return None
        self.checks += 1
        return self.checks * self.cpu_per_check

    def configuration(self, probe):
        return {"cpus": 1, "threads": 1}

    def stop(self):
        if self.running:
            self.running = False
            self.printed += f"stopped {self.name}\n"
        return self.printed


class _Probe:
    def __init__(self, reading):
        self.reading = reading

    def finish(self):
        return dict(self.reading)


class FakeExecutor(executor.Executor):
    """A host in memory; `host` is its name in rows (None: as this machine)."""

    def __init__(self, host=None, cpus=2):
        self.host = host
        self.cpus = cpus
        self.servers = {}  # program name: (output, CPU seconds added per reading)
        self.clients = {}  # program name: ClientScript
        self.started = []  # every FakeServer started
        self.launches = []  # every client Launch run
        self.server_host = self  # whose servers a client that `kills_server` stops (FakePlacement sets it)
        self.noise = None  # the reading its noise probes give; None: it gives no probe, as by default
        self.noise_probes = []  # (the server's PID, clients_here) of every noise probe asked for
        self._ports = iter(range(40000, 50000))

    def script_server(self, program, output="ready\n", cpu_per_check=0.25):
        self.servers[program] = (output, cpu_per_check)

    def script_client(self, program, script):
        self.clients[program] = script

    def unavailable(self, entry):
        return None

    def resolve(self, token):
        return "/fake/" + token.lstrip("/").replace(":", "/")

    def address(self):
        return self.host or "127.0.0.1"

    def free_port(self):
        return next(self._ports)

    def client_cpus(self):
        return self.cpus

    def noise_probe(self, server, clients_here=True):
        self.noise_probes.append((server.pid, clients_here))
        return _Probe(self.noise) if self.noise is not None else None

    def start_server(self, launch, ready, timeout_s=30):
        program = os.path.basename(launch.argv[0])
        if program not in self.servers:
            raise executor.StartError(f"did not start: {program}: not found", f"{program}: not found")
        output, cpu = self.servers[program]
        if ready is not None and not re.search(ready, output):
            raise executor.StartError(f"{program} exited before it printed /{ready}/", output.strip())
        server = FakeServer(program, output, cpu, pid=1000 + len(self.started))
        server.cpu_clock = self.cpu_clock
        self.started.append(server)
        return server

    def run_client(self, launch, deadline_s):
        self.launches.append(launch)
        program = os.path.basename(launch.argv[0])
        script = self.clients.get(program) or ClientScript(stderr=f"{program}: not found\n", returncode=127)
        if script.kills_server:
            for server in self.server_host.started:
                server.running = False
        result = client_process.ClientResult(launch.argv, None if script.hangs else script.returncode,
                                             (script.stdout, script.stderr),
                                             deadline_s if script.hangs else script.wall_s,
                                             script.cpu_s if self.cpu_clock else None)
        result.cpu_clock = self.cpu_clock
        result.timed_out = script.hangs
        result.host = self.host
        return result


class FakePlacement(executor.Placement):
    """A placement of fake executors: a server's and the clients' (a FakeExecutor, or a fleet.Fleet of them)."""

    def __init__(self, server, clients):
        super().__init__(server, clients)
        for each in getattr(clients, "members", [clients]):
            each.server_host = server
