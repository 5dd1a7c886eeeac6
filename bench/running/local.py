"""This machine as an executor (bench/running/executor.py): programs on loopback, each side optionally pinned
to its own CPUs (the split placement), CPU time from the scheduler's clock (process_cpu.py for servers, wait4
for clients), configuration from /proc (process_configuration.py).

    servers = local.LocalExecutor(cpus={0})             # None: every CPU
    server = servers.start_server(executor.Launch(argv, {"GOMAXPROCS": "1"}, name="go"), ready="listening")
"""

import json
import os
import re
import subprocess
import tempfile

from bench.registry import registry
from bench.running import binaries
from bench.running import client_process
from bench.running import executor
from bench.running import noise
from bench.running import ports
from bench.running import process_configuration
from bench.running import process_cpu
from bench.running import server_process
from bench.running import tcp_segments

HOST = "127.0.0.1"
TAIL_LINES = 8


def tail_of(text, lines=TAIL_LINES):
    return "\n".join(text.strip().splitlines()[-lines:])


class LocalServer(executor.RunningServer):
    """A server process of this machine (server_process.Server)."""

    def __init__(self, process):
        self.process = process
        self.pid = process.pid

    def alive(self):
        return self.process.alive()

    def output(self):
        return self.process.output()

    def cpu_seconds(self):
        return process_cpu.tree_cpu_seconds(self.pid)

    def configuration(self, probe):
        return process_configuration.read(self.pid, self.output(), probe)

    def stop(self):
        return self.process.stop()


class DaemonServer(executor.RunningServer):
    """A server that puts itself in the background (a registry entry with a `pidfile`): measured over its
    process tree by the PID it wrote, stopped by its entry's stop command."""

    def __init__(self, pid, start_output, stop_argv):
        self.pid = pid
        self.start_output = start_output
        self.stop_argv = stop_argv

    def alive(self):
        try:
            os.kill(self.pid, 0)
            return True
        except OSError:
            return False

    def output(self):
        return self.start_output

    def cpu_seconds(self):
        return process_cpu.tree_cpu_seconds(self.pid)

    def configuration(self, probe):
        return process_configuration.read(self.pid, self.start_output, probe)

    def stop(self):
        if self.stop_argv:
            subprocess.run(self.stop_argv, capture_output=True, timeout=60)
        return self.start_output


class LocalExecutor(executor.Executor):
    """This machine; `cpus` (a set, or None for every CPU) is where the programs it starts may run."""

    def __init__(self, cpus=None):
        self.cpus = cpus

    def unavailable(self, entry):
        return registry.unavailable(entry, self.resolve)

    def resolve(self, token):
        return binaries.program_path(token)

    def address(self):
        return HOST

    def free_port(self):
        return ports.free_port(HOST)

    def client_cpus(self):
        return len(self.cpus) if self.cpus else len(os.sched_getaffinity(0))

    def segments_sent(self):
        return tcp_segments.tcp_segments_sent()

    def noise_probe(self, server, clients_here=True):
        return noise.Probe(server.pid, clients_here=clients_here)

    def _environment(self, launch):
        return {**os.environ, **launch.env}

    def _affinity(self):
        if not self.cpus:
            return None
        return lambda: os.sched_setaffinity(0, self.cpus)

    def start_server(self, launch, ready, timeout_s=30):
        if launch.pidfile:
            return self._start_daemon(launch, ready)
        try:
            process = server_process.start_server(launch.argv, ready=ready, name=launch.name, timeout_s=timeout_s,
                                                  env=self._environment(launch), preexec=self._affinity())
        except OSError as error:
            raise executor.StartError(f"did not start: {error}") from error
        except RuntimeError as error:
            raise executor.StartError(f"did not start: {str(error).splitlines()[0]}",
                                      tail_of(str(error).partition(": ")[2])) from error
        return LocalServer(process)

    def _start_daemon(self, launch, ready):
        result = subprocess.run(launch.argv, capture_output=True, text=True, env=self._environment(launch),
                                timeout=60, preexec_fn=self._affinity())
        output = result.stdout + result.stderr
        if result.returncode != 0 or not re.search(ready, output):
            raise executor.StartError(f"did not start (exit {result.returncode})", tail_of(output))
        try:
            with open(launch.pidfile) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError) as error:
            raise executor.StartError(f"started but its pidfile is unreadable: {error}", tail_of(output)) from error
        return DaemonServer(pid, output, launch.stop_argv)

    def run_client(self, launch, deadline_s):
        """In the caller's thread, so that Ctrl-C kills the client's process group before it goes on."""
        with _Document(launch) as document:
            result = client_process.run_client(launch.argv + document.argv, deadline_s,
                                               env=self._environment(launch), preexec=self._affinity())
            result.document = document.read()
        return result


class _Document:
    """A temporary file a client writes its run document to (Launch.document_flag), read back as JSON."""

    def __init__(self, launch):
        self.flag = launch.document_flag
        self.path = None

    def __enter__(self):
        if self.flag:
            descriptor, self.path = tempfile.mkstemp(prefix="netbench-client-", suffix=".json")
            os.close(descriptor)
        return self

    @property
    def argv(self):
        return [f"{self.flag}={self.path}"] if self.path else []

    def read(self):
        if not self.path:
            return None
        try:
            with open(self.path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def __exit__(self, *exc):
        if self.path:
            os.unlink(self.path)
        return False


class Here:
    """Both sides on this machine: contest.Runner's default placement, which gives the runner's own executors."""

    @staticmethod
    def executors(server_here, client_here):
        return server_here, client_here


HERE = Here()
