"""Where the suite runs a scenario's programs when they are not all on this machine (issue 15): the server on
`--server-host`, the load on every host of `--client-hosts` at once, each over its own SSH connection
(bench/running/ssh_host.py, remote_program.py).

    placement = remote_placement.RemotePlacement("10.0.0.11", ["10.0.0.12", "10.0.0.13"])
    placement.open()                                 # every host connected and checked, or RemoteError
    placement.prepare(entries)                       # binaries copied (or found in --remote-dir), or RemoteError
    server = placement.start_server(entry, values)   # values["host"] is the address the clients reach
    results = placement.run_fleet(client_entry, values, timeout_s=60)    # one HostResult per client host
    placement.close()                                # every program stopped, every connection closed

Binaries. The programs a remote host runs are files the suite can put there: the targets of this repository
({//pkg:target}, built here: netbench's own and the write-ups' systems in contestants/, whose scripts run the
host's racket, clojure or nginx). Without --remote-dir the suite copies the ones it needs to
DIR/<package>/<target> under ~/.cache/netbench/bin there (only when the host's copy differs), after checking
that the host's `uname -sm` is this machine's: these are builds for this OS and architecture. With
--remote-dir=DIR it uses the same layout under DIR, installed by the user, and copies nothing. A contestant
whose command is an installed program rather than a target is skipped on remote hosts, with that reason.

Failures stop the run before anything starts: a host that is unreachable, refuses the key, runs another
system, or lacks a binary is named in the RemoteError, and whatever had been opened is closed again.
"""

import hashlib
import json
import os
import random
import re
import shutil
import tempfile
import threading
import time
import uuid

from bench.running import binaries
from bench.analysis import histogram_merge
from bench.running import remote_program
from bench.running import ssh_host

DEFAULT_COPY_DIR = ".cache/netbench/bin"  # relative to the remote login directory
_TOKEN = re.compile(r"\{(//[^{}]+)\}")
_LOCAL_PATHS = ("{results}",)
# Ports for servers started there: below Linux's default ephemeral range (32768-60999), so that no client
# connection of that host holds one.
PORT_RANGE = (20000, 32000)


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
    for local in _LOCAL_PATHS:
        if local in command or local in " ".join(entry.get("env", {}).values()):
            return f"its command names {local}, a folder of this machine"
    return None


def _file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class HostResult:
    """What one client host's run gave: its output, exit status, CPU seconds and run document (or None)."""

    def __init__(self, target, returncode, stdout, stderr, cpu_seconds, document, error=None):
        self.target = target
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.cpu_seconds = cpu_seconds
        self.document = document
        self.error = error


class RemoteServer:
    """A server contestant running on the server host (the shape of contest.Server)."""

    def __init__(self, entry, values, program, host, clock_ticks, url=None):
        self.entry = entry
        self.values = values
        self.program = program
        self.host = host
        self.clock_ticks = clock_ticks
        self.url = url
        self.process = None

    @property
    def port(self):
        return self.values.get("port")

    def pid(self):
        return self.program.pid

    def cpu_seconds(self):
        """The server's CPU time so far, from the host's /proc (clock ticks: 10 ms at the usual 100 Hz)."""
        result = self.host.run(["cat", f"/proc/{self.program.pid}/stat"], timeout_s=30)
        return remote_program.ticks_of_process(result.stdout) / self.clock_ticks

    def alive(self):
        return self.program.running() and self.program.exit_code is None

    def output_tail(self, lines=8):
        text = (self.program.stdout() + self.program.stderr()).strip()
        return "\n".join(text.splitlines()[-lines:])

    def stop(self):
        self.program.stop()


class RemotePlacement:
    def __init__(self, server_target, client_targets=(), ssh_config=None, remote_dir=None,
                 copy_dir=DEFAULT_COPY_DIR, server_address=None, connect_timeout_s=ssh_host.CONNECT_TIMEOUT_S):
        self.server_target = server_target
        self.client_targets = list(client_targets)
        self.ssh_config = ssh_config
        self.installed = remote_dir is not None
        self.directory = (remote_dir or copy_dir).rstrip("/") or "/"
        self.server_address = server_address or (ssh_host.split_target(server_target)[1] if server_target else None)
        self.connect_timeout_s = connect_timeout_s
        self.hosts = {}
        self.clock_ticks = {}
        self.programs = []
        self._ports_given = set()
        self._control_dir = None
        self._lock = threading.Lock()

    # --------------------------------------------------------------------------------------- connections

    def targets(self):
        return list(dict.fromkeys(([self.server_target] if self.server_target else []) + self.client_targets))

    def describe(self):
        """Where the programs ran, for the report."""
        parts = []
        if self.server_target:
            reached = "" if self.server_address == ssh_host.split_target(self.server_target)[1] else (
                f" (clients connect to {self.server_address})")
            parts.append(f"server on {self.server_target}{reached}")
        else:
            parts.append("server on this machine")
        if self.client_targets:
            parts.append(f"{len(self.client_targets)} client host{'s' if len(self.client_targets) > 1 else ''} "
                         f"({', '.join(self.client_targets)}) started together, their results merged into each row")
        else:
            parts.append("clients on this machine")
        return ", ".join(parts) + ", over SSH"

    def open(self):
        """Connects to every host, in parallel, and checks each one; RemoteError naming every host that failed
        (the others are closed again)."""
        self._control_dir = tempfile.mkdtemp(prefix="nb-ssh-")
        for index, target in enumerate(self.targets()):
            self.hosts[target] = ssh_host.SshHost(target, self._control_dir, self.ssh_config,
                                                  self.connect_timeout_s, index)
        errors = {}

        def connect(target):
            try:
                host = self.hosts[target]
                host.open()
                self._check(host)
            except ssh_host.RemoteError as error:
                errors[target] = error
            except Exception as error:  # noqa: BLE001 - reported with the host's name
                errors[target] = ssh_host.RemoteError(target, repr(error))

        threads = [threading.Thread(target=connect, args=(t,)) for t in self.hosts]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            self.close()
            raise ssh_host.RemoteError.of_several(errors[t] for t in self.hosts if t in errors)

    def _check(self, host):
        system, ticks = host.run(["sh", "-c", "uname -sm; getconf CLK_TCK"]).stdout.split("\n")[:2]
        self.clock_ticks[host.target] = int(ticks.strip() or 100)
        here = f"{os.uname().sysname} {os.uname().machine}"
        if not self.installed and system.strip() != here:
            raise ssh_host.RemoteError(host.target, f"is '{system.strip()}', and the binaries built here are "
                                       f"'{here}': build netbench there and pass --remote-dir")

    def close(self):
        """Stops every program still running there and closes every connection."""
        for program in self.programs:
            try:
                program.stop()
            except Exception:  # noqa: BLE001 - stop the others all the same
                pass
        self.programs = []
        for host in self.hosts.values():
            try:
                host.close()
            except Exception:  # noqa: BLE001
                pass
        if self._control_dir:
            shutil.rmtree(self._control_dir, ignore_errors=True)
            self._control_dir = None

    # ------------------------------------------------------------------------------------------ binaries

    def resolve(self, token):
        """The path on a host of a {//pkg:target} token (for registry.expand)."""
        return remote_path(self.directory, token)

    def prepare(self, entries):
        """Puts (or finds) every binary the chosen `entries` need on the hosts that run them; RemoteError
        naming the host and the missing path."""
        needs = {}
        for entry in entries:
            if why_not_remote(entry):
                continue
            on = ([self.server_target] if entry["role"] == "server" and self.server_target else []) + (
                self.client_targets if entry["role"] == "client" else [])
            for target in on:
                needs.setdefault(target, set()).update(tokens_of(entry))
        for target, tokens in needs.items():
            host = self.hosts[target]
            paths = {token: self.resolve(token) for token in sorted(tokens)}
            if self.installed:
                script = "for p; do [ -x \"$p\" ] || echo \"$p\"; done"
                missing = host.run(["sh", "-c", script, "check"] + list(paths.values())).stdout.split()
                if missing:
                    raise ssh_host.RemoteError(target, f"lacks {', '.join(missing)} (--remote-dir={self.directory}: "
                                               "install the repository's binaries there as "
                                               "<package>/<target>)")
                continue
            sums = host.run(["sh", "-c", "sha256sum \"$@\" 2>/dev/null; true", "sums"] + list(paths.values())).stdout
            there = {line.split()[1]: line.split()[0] for line in sums.splitlines() if len(line.split()) == 2}
            for token, path in paths.items():
                try:
                    local = binaries.program_path(token)
                except (FileNotFoundError, OSError) as error:
                    raise ssh_host.RemoteError(target, f"cannot get {token} to it: {error}") from error
                if there.get(path) != _file_sha256(local):
                    host.send_file(local, path)

    def unavailable(self, entry):
        """None when `entry` can run where this placement puts its role, else why not."""
        remote = self.server_target if entry["role"] == "server" else self.client_targets
        return why_not_remote(entry) if remote else None

    # ---------------------------------------------------------------------------------------- programs

    def free_port(self):
        """A port nothing listens on (or is connected from) on the server host, none handed out before."""
        host = self.hosts[self.server_target]
        table = host.run(["sh", "-c", "cat /proc/net/tcp /proc/net/tcp6 2>/dev/null"]).stdout
        used = set()
        for line in table.splitlines()[1:]:
            fields = line.split()
            if len(fields) > 2 and ":" in fields[1]:
                used.add(int(fields[1].rsplit(":", 1)[1], 16))
        with self._lock:
            free = [p for p in range(*PORT_RANGE) if p not in used and p not in self._ports_given]
            port = random.choice(free)
            self._ports_given.add(port)
        return port

    def start_server(self, entry, values, argv, env, timeout_s=30):
        """Starts a server's expanded `argv` on the server host; a RemoteServer once its ready line came and
        its port accepts, else contest-style RuntimeError with its last lines."""
        host = self.hosts[self.server_target]
        ready = re.compile(entry["ready"])
        seen = threading.Event()
        program = remote_program.RemoteProgram(host, argv, env=env, merge_output=True,
                                               on_line=lambda line: ready.search(line) and seen.set())
        self.programs.append(program)
        server = RemoteServer(entry, values, program, host, self.clock_ticks[host.target])
        deadline = time.monotonic() + timeout_s
        while not seen.is_set() and program.running() and time.monotonic() < deadline:
            seen.wait(0.1)
        if not seen.is_set():
            tail = server.output_tail()
            when = "exited before it printed" if not program.running() else f"did not print within {timeout_s}s"
            program.stop()
            raise RuntimeError(f"{entry['name']} on {host.target} {when} /{entry['ready']}/: {tail}")
        return server

    def stop_program(self, program):
        program.stop()
        if program in self.programs:
            self.programs.remove(program)

    def run_fleet(self, entry, argv, env, timeout_s, json_flag=None):
        """Runs the client `argv` on every client host with one common start: each host's script waits until
        every host is ready, then all are released at once. `json_flag` (e.g. "--json") asks each for its run
        document. One HostResult per host, in --client-hosts order; whatever still runs at `timeout_s` is
        stopped."""
        programs, json_paths = [], []
        try:
            for index, target in enumerate(self.client_targets):
                host = self.hosts[target]
                path = f"/tmp/netbench-client-{uuid.uuid4().hex[:12]}.json" if json_flag else None
                json_paths.append(path)
                program = remote_program.RemoteProgram(host, argv + ([f"{json_flag}={path}"] if path else []),
                                                       env=env, barrier=True)
                programs.append(program)
                self.programs.append(program)
            for target, program in zip(self.client_targets, programs):
                if not program.wait_waiting(self.connect_timeout_s * 3):
                    raise ssh_host.RemoteError(target, f"the client could not be started: {program.failure()}")
            for program in programs:
                program.release()
            deadline = time.monotonic() + timeout_s
            for program in programs:
                if program.wait(max(deadline - time.monotonic(), 0)) is None:
                    program.stop()
            results = []
            for target, program, path in zip(self.client_targets, programs, json_paths):
                document = None
                if path:
                    fetched = self.hosts[target].run(["sh", "-c", 'cat "$1" 2>/dev/null; rm -f "$1"', "fetch", path],
                                                     check=False)
                    try:
                        document = json.loads(fetched.stdout) if fetched.stdout.strip() else None
                    except ValueError:
                        document = None
                code = program.exit_code if program.exit_code is not None else program.proc.returncode
                cpu = (program.cpu_ticks / self.clock_ticks[target]) if program.cpu_ticks is not None else None
                error = None if program.exit_code is not None else program.failure()
                results.append(HostResult(target, code, program.stdout(), program.stderr(), cpu, document, error))
            return results
        finally:
            for program in programs:
                self.stop_program(program)


def merge_found(per_host_found):
    """The fleet's `found` values: for each figure, the sum over hosts of each host's last value (msgs/s
    summed, messages summed); a figure missing on any host is missing."""
    keys = list(dict.fromkeys(k for found in per_host_found for k in found))
    merged = {}
    for key in keys:
        lasts = [found.get(key)[-1] if found.get(key) else None for found in per_host_found]
        merged[key] = [sum(lasts)] if lasts and all(v is not None for v in lasts) else []
    return merged


def merged_histograms(results):
    documents = [r.document for r in results if r.document]
    if not documents or len(documents) != len(results):
        return None
    return histogram_merge.merge_documents_histograms(documents)
