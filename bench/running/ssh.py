"""A host reached over OpenSSH as an executor (bench/running/executor.py): programs started there by a small
script over the host's master connection (ssh_host.py, remote_program.py), binaries copied there (or found
under --remote-dir), CPU time read there with the scheduler's clock by netbench's own reader
(//common:process_tree_cpu, copied like the programs under test): a server's process tree by its PID, a
client's whole run through the reader's --run (wait4). Where the host cannot run the reader (a build whose
reader has no /proc, an install without it) its CPU figures are None and `cpu_clock` is None: the suite says
so once, naming the host, rather than read a coarser clock.

    host = ssh_host.SshHost("bench@10.0.0.12", control_dir); host.open()
    there = ssh.SshExecutor(host, directory=".cache/netbench/bin", installed=False)
    there.check()                                   # RemoteError: another system than the binaries'
    there.prepare(entries)                          # binaries and the reader there
    server = there.start_server(executor.Launch(argv, env, name="go"), ready="listening")
"""

import hashlib
import json
import os
import random
import re
import threading
import time
import uuid

from bench.registry import registry
from bench.running import binaries
from bench.running import client_process
from bench.running import executor
from bench.running import local
from bench.running import process_configuration
from bench.base import progress
from bench.running import remote_noise
from bench.running import remote_program
from bench.running import ssh_host

READER = "//common:process_tree_cpu"
_TOKEN = re.compile(r"\{(//[^{}]+)\}")
_LOCAL_PATHS = ("{results}",)
# Ports for servers started there: below Linux's default ephemeral range (32768-60999), so that no client
# connection of that host holds one.
PORT_RANGE = (20000, 32000)
STOPPED = "stopped over SSH: SIGINT, then SIGKILL"


def remote_path(directory, token):
    """Where a program of `token` ("//echo:server", "//contestants/go:spammer") lies under `directory` on a
    host."""
    package, _, name = token.lstrip("/").partition(":")
    return f"{directory}/{package}/{name}"


def tokens_of(entry):
    return sorted(set(_TOKEN.findall(" ".join(entry["command"]))))


def why_not_remote(entry):
    """None when `entry` can run on a remote host, else why not."""
    command = " ".join(entry["command"])
    if "pidfile" in entry:
        return "a daemon (pidfile) is run on this machine only"
    if not _TOKEN.match(entry["command"][0]):
        return (f"'{entry['command'][0]}' is an installed program; on remote hosts the suite runs only the "
                "binaries it can put there ({//pkg:target})")
    for folder in _LOCAL_PATHS:
        if folder in command or folder in " ".join(entry.get("env", {}).values()):
            return f"its command names {folder}, a folder of this machine"
    return None


def _file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def parse_reading(text):
    """{"cpu_ns": N, "processes": P, "threads": T, "cpus": C} of the reader's line."""
    return {key: int(value) for key, value in re.findall(r"(\w+)=(-?\d+)", text)}


class SshServer(executor.RunningServer):
    """A server running on the host."""

    def __init__(self, program, there):
        self.program = program
        self.there = there
        self.cpu_clock = there.cpu_clock

    @property
    def pid(self):
        return self.program.pid

    def alive(self):
        return self.program.running() and self.program.exit_code is None

    def output(self):
        return self.program.stdout() + self.program.stderr()

    def cpu_seconds(self):
        return self.there.tree_cpu_seconds(self.pid)

    def configuration(self, probe):
        reading = self.there.read_tree(self.pid) if self.cpu_clock else {}
        config = {key: reading[key] for key in ("cpus", "threads") if reading.get(key, -1) >= 0}
        return {**config, **process_configuration.probed(self.output(), probe)}

    def stop(self):
        self.there.stop_program(self.program)
        return self.output()


class SshPending(executor.PendingClient):
    """A client started on the host by the script, waiting for the suite's "go" (a fleet's common start)."""

    def __init__(self, there, launch, deadline_s):
        self.there = there
        self.launch = launch
        self.deadline_s = deadline_s
        self.document_path = (f"/tmp/netbench-client-{uuid.uuid4().hex[:12]}.json" if launch.document_flag
                              else None)
        argv = launch.argv + ([f"{launch.document_flag}={self.document_path}"] if self.document_path else [])
        wrapper = [there.resolve(READER), "--run", "--"] if there.cpu_clock else []
        self.program = remote_program.RemoteProgram(there.ssh, wrapper + argv, env=launch.env, barrier=True)
        there.programs.append(self.program)
        self.released = None

    def wait_ready(self, timeout_s):
        return self.program.wait_waiting(timeout_s)

    def release(self):
        self.program.release()
        self.released = time.monotonic()

    def result(self):
        program = self.program
        timed_out = program.wait(max(self.released + self.deadline_s - time.monotonic(), 0)) is None
        wall_s = time.monotonic() - self.released
        if timed_out:
            self.there.stop_program(program)
        code = program.exit_code if program.exit_code is not None else program.proc.returncode
        # The reader's line, or no figure: a host without the reader, or a client stopped before it spoke.
        cpu_s = program.cpu_nanos / 1e9 if program.cpu_nanos is not None else None
        result = client_process.ClientResult(self.launch.argv, code, (program.stdout(), program.stderr()), wall_s,
                                             cpu_s)
        result.cpu_clock = self.there.cpu_clock
        result.timed_out, result.stopped, result.host = timed_out, STOPPED, self.there.host
        result.error = None if program.exit_code is not None or timed_out else program.failure()
        result.document = self._fetch_document()
        self.there.stop_program(program)
        return result

    def _fetch_document(self):
        if not self.document_path:
            return None
        fetched = self.there.ssh.run(["sh", "-c", 'cat "$1" 2>/dev/null; rm -f "$1"', "fetch", self.document_path],
                                     check=False)
        try:
            return json.loads(fetched.stdout) if fetched.stdout.strip() else None
        except ValueError:
            return None


class SshExecutor(executor.Executor):
    """One host over its SSH connection (`ssh`, an opened ssh_host.SshHost). Programs lie under `directory`
    there: copied by prepare(), or, `installed`, put there by the user. `address` is where clients reach a
    server there (default: the host's own name)."""

    def __init__(self, ssh, directory, installed=False, address=None):
        self.ssh = ssh
        self.host = ssh.target
        self.directory = directory
        self.installed = installed
        self._address = address or ssh.host
        self.cpus = None
        self.cpu_clock = None  # no CPU figures until prepare() finds the reader runs there
        self.programs = []
        self._ports_given = set()
        self._lock = threading.Lock()

    def check(self):
        """Reads the host's system and CPUs; RemoteError when the binaries built here cannot run there (another
        system or architecture, and no --remote-dir)."""
        system, cpus = (self.ssh.run(["sh", "-c", "uname -sm; nproc"]).stdout.split("\n") + [""])[:2]
        self.cpus = int(cpus.strip() or 1)
        here = f"{os.uname().sysname} {os.uname().machine}"
        if not self.installed and system.strip() != here:
            raise ssh_host.RemoteError(self.host, f"is '{system.strip()}', and the binaries built here are "
                                       f"'{here}': build netbench there and pass --remote-dir")

    def refuses(self, entry):
        return why_not_remote(entry)

    def unavailable(self, entry):
        # The binaries come from this machine: what it lacks (a package, a failing check) the host lacks too.
        return why_not_remote(entry) or registry.unavailable(entry, binaries.program_path)

    def resolve(self, token):
        return remote_path(self.directory, token)

    def address(self):
        return self._address

    def client_cpus(self):
        return self.cpus or 1

    def prepare(self, entries):
        """Puts (or finds) every binary `entries` need there, RemoteError naming the missing path; then the CPU
        reader, without which the host's CPU figures are None (said once, with why)."""
        tokens = sorted({token for entry in entries if not why_not_remote(entry) for token in tokens_of(entry)})
        self._install(tokens)
        try:
            self._install([READER])
            check = self.ssh.run([self.resolve(READER), "--check"], check=False)
            why = None if "cpu_ns" in parse_reading(check.stdout) else (
                f"`{self.resolve(READER)} --check` exited {check.returncode}: {check.stderr.strip()[-200:]}")
        except ssh_host.RemoteError as error:  # not in --remote-dir, or it could not be copied
            why = str(error).removeprefix(f"{error.host}: ")
        self.cpu_clock = None if why else executor.SCHEDULER
        if why:
            progress.log(f"note: {self.host}: CPU not measured there (null in its rows): netbench's reader {READER}: "
                         + why)

    def _install(self, tokens):
        if not tokens:
            return
        paths = {token: self.resolve(token) for token in tokens}
        if self.installed:
            script = "for p; do [ -x \"$p\" ] || echo \"$p\"; done"
            missing = self.ssh.run(["sh", "-c", script, "check"] + list(paths.values())).stdout.split()
            if missing:
                raise ssh_host.RemoteError(self.host, f"lacks {', '.join(missing)} (--remote-dir={self.directory}: "
                                           "install the repository's binaries there as <package>/<target>)")
            return
        sums = self.ssh.run(["sh", "-c", "sha256sum \"$@\" 2>/dev/null; true", "sums"] + list(paths.values())).stdout
        there = {line.split()[1]: line.split()[0] for line in sums.splitlines() if len(line.split()) == 2}
        for token, path in paths.items():
            try:
                local = binaries.program_path(token)
            except (FileNotFoundError, OSError) as error:
                raise ssh_host.RemoteError(self.host, f"cannot get {token} to it: {error}") from error
            if there.get(path) != _file_sha256(local):
                self.ssh.send_file(local, path)

    def free_port(self):
        """A port nothing listens on (or is connected from) there, none handed out before."""
        table = self.ssh.run(["sh", "-c", "cat /proc/net/tcp /proc/net/tcp6 2>/dev/null"]).stdout
        used = set()
        for line in table.splitlines()[1:]:
            fields = line.split()
            if len(fields) > 2 and ":" in fields[1]:
                used.add(int(fields[1].rsplit(":", 1)[1], 16))
        with self._lock:
            port = random.choice([p for p in range(*PORT_RANGE) if p not in used and p not in self._ports_given])
            self._ports_given.add(port)
        return port

    def read_tree(self, pid):
        """The reader's figures of `pid`'s tree there: cpu_ns, processes, threads, cpus ({} once it has gone)."""
        return parse_reading(self.ssh.run([self.resolve(READER), f"--pid={pid}"], check=False, timeout_s=30).stdout)

    def tree_cpu_seconds(self, pid):
        """CPU seconds of `pid`'s tree there, from the scheduler's clock; None where the reader cannot run."""
        return self.read_tree(pid).get("cpu_ns", 0) / 1e9 if self.cpu_clock else None

    def noise_probe(self, server, clients_here=True):
        # The host's own /proc, read over SSH: the clients' figures are never there (remote_noise.py).
        return remote_noise.RemoteProbe(self, server.pid)

    def start_server(self, launch, ready, timeout_s=30):
        try:
            return self._start_server(launch, ready, timeout_s)
        except ssh_host.RemoteError as error:
            raise executor.StartError(str(error)) from error

    def _start_server(self, launch, ready, timeout_s):
        pattern = re.compile(ready) if ready is not None else None
        seen = threading.Event()
        if pattern is None:  # ready once its port accepts: the runner waits for that
            seen.set()
        program = remote_program.RemoteProgram(self.ssh, launch.argv, env=launch.env, merge_output=True,
                                               on_line=lambda line: pattern and pattern.search(line) and seen.set())
        self.programs.append(program)
        server = SshServer(program, self)
        deadline = time.monotonic() + timeout_s
        while not seen.is_set() and program.running() and time.monotonic() < deadline:
            seen.wait(0.1)
        if not seen.is_set():
            when = "exited before it printed" if not program.running() else f"did not print within {timeout_s}s"
            self.stop_program(program)
            raise executor.StartError(f"did not start: {launch.name} on {self.host} {when} /{ready}/",
                                      local.tail_of(server.output()))
        # The ready line (the program's stdout) may come before the script's PID line (its stderr, another
        # channel of the session): the server's CPU is read by that PID.
        if program.wait_started(max(deadline - time.monotonic(), 1)) is None:
            self.stop_program(program)
            raise executor.StartError(f"did not start: {launch.name} on {self.host} printed /{ready}/ but its "
                                      "PID never came", local.tail_of(server.output()))
        return server

    def start_client(self, launch, deadline_s):
        return SshPending(self, launch, deadline_s)

    def stop_program(self, program):
        program.stop()
        if program in self.programs:
            self.programs.remove(program)

    def close(self):
        for program in list(self.programs):
            try:
                self.stop_program(program)
            except Exception:  # noqa: BLE001 - stop the others all the same
                pass
