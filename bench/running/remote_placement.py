"""Where the suite runs a scenario's programs when they are not all on this machine: the server on
`--server-host`, the load on every host of `--client-hosts` at once, each host an executor over its own SSH
connection (bench/running/ssh.py). A placement is what contest.Runner(placement=...) takes: its
`executors(server_here, client_here)` gives the server's executor and the clients' (a fleet, fleet.py).

    placement = remote_placement.RemotePlacement("10.0.0.11", ["10.0.0.12", "10.0.0.13"])
    placement.open()                                 # every host connected and checked, or RemoteError
    placement.prepare(entries)                       # binaries copied (or found in --remote-dir), or RemoteError
    runner = contest.Runner(placement=placement)
    placement.close()                                # every program stopped, every connection closed

Binaries. The programs a remote host runs are files the suite can put there: the targets of this repository
({//pkg:target}, built here: netbench's own and the write-ups' systems in contestants/, whose scripts run the
host's racket, clojure or nginx), and netbench's CPU reader (//common:process_tree_cpu). Without --remote-dir
the suite copies the ones it needs to DIR/<package>/<target> under ~/.cache/netbench/bin there (only when the
host's copy differs), after checking that the host's `uname -sm` is this machine's: these are builds for this
OS and architecture. With --remote-dir=DIR it uses the same layout under DIR, installed by the user, and copies
nothing. A contestant whose command is an installed program rather than a target is skipped on remote hosts,
with that reason.

Failures stop the run before anything starts: a host that is unreachable, refuses the key, runs another
system, or lacks a binary is named in the RemoteError, and whatever had been opened is closed again.
"""

import dataclasses
import shutil
import tempfile
import threading

from bench.running import fleet
from bench.running import ssh
from bench.running import ssh_host

DEFAULT_COPY_DIR = ".cache/netbench/bin"  # relative to the remote login directory


@dataclasses.dataclass
class Tuning:
    """Settings a test changes: where binaries are copied to, and how long a connection may take."""

    copy_dir: str = DEFAULT_COPY_DIR
    connect_timeout_s: float = ssh_host.CONNECT_TIMEOUT_S


class RemotePlacement:
    def __init__(self, server_target, client_targets=(), ssh_config=None, remote_dir=None, server_address=None,
                 tuning=None):
        self.server_target = server_target
        self.client_targets = list(client_targets)
        self.ssh_config = ssh_config
        self.tuning = tuning or Tuning()
        self.installed = remote_dir is not None
        self.directory = (remote_dir or self.tuning.copy_dir).rstrip("/") or "/"
        self.server_address = server_address or (ssh_host.split_target(server_target)[1] if server_target else None)
        self.hosts = {}  # target: ssh.SshExecutor
        self._control_dir = None

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

    def executors(self, server_here, client_here):
        """(the server's executor, the clients'): the hosts' where named (the client hosts a fleet.Fleet), else
        the ones here. Asked at each use: a runner may be made before the placement is opened."""
        server = self.hosts[self.server_target] if self.server_target else server_here
        clients = fleet.Fleet([self.hosts[t] for t in self.client_targets]) if self.client_targets else client_here
        return server, clients

    def open(self):
        """Connects to every host, in parallel, and checks each one; RemoteError naming every host that failed
        (the others are closed again)."""
        self._control_dir = tempfile.mkdtemp(prefix="nb-ssh-")
        for index, target in enumerate(self.targets()):
            connection = ssh_host.SshHost(target, self._control_dir, self.ssh_config, self.tuning.connect_timeout_s,
                                          index)
            address = self.server_address if target == self.server_target else None
            self.hosts[target] = ssh.SshExecutor(connection, self.directory, installed=self.installed,
                                                 address=address)
        errors = {}

        def connect(target):
            try:
                self.hosts[target].ssh.open()
                self.hosts[target].check()
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
            failed = [errors[t] for t in self.hosts if t in errors]
            self.close()
            raise ssh_host.RemoteError.of_several(failed)

    def prepare(self, entries):
        """Puts (or finds) every binary the chosen `entries` need on the hosts that run them, and the CPU reader
        on every host; RemoteError naming the host and the missing path."""
        for target, host in self.hosts.items():
            roles = {"server"} if target == self.server_target else set()
            roles |= {"client"} if target in self.client_targets else set()
            host.prepare([entry for entry in entries if entry["role"] in roles])

    def close(self):
        """Stops every program still running there and closes every connection."""
        for host in self.hosts.values():
            host.close()
            try:
                host.ssh.close()
            except Exception:  # noqa: BLE001 - close the others all the same
                pass
        self.hosts = {}
        if self._control_dir:
            shutil.rmtree(self._control_dir, ignore_errors=True)
            self._control_dir = None
