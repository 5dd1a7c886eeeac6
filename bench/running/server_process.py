"""A server under test as a real process: started in a session of its own, ready once a line of its output
says so, its CPU read from the scheduler clock (process_cpu.py) while it runs, stopped with SIGINT (then SIGKILL).

    srv = server_process.start_server([binaries.bazel_binary("//echo:server"), "--port=0"], ready=r"listening on")
    user, system = srv.cpu_split()
    port = srv.port()                                     # from its ready line: common/server_lines.py
    output = srv.stop()
"""

import os
import re
import signal
import subprocess
import threading

from bench.running import process_cpu
from common import server_lines

# The scheduling note every bench that starts servers adds to its report.
SCHEDULING_NOTE = ("Servers run in a session of their own, as if started from a second terminal: with Linux's "
                   "autogroup scheduling that decides how server and client share the cores, and so how many "
                   "messages each wakeup finds. The *_sys_* columns are the kernel's share of the CPU time "
                   "(syscalls, loopback TCP, wakeups).")


class Server:
    """A server process; a reader thread collects its output (stdout and stderr) line by line."""

    def __init__(self, proc, name, ready):
        self.proc = proc
        self.pid = proc.pid
        self.name = name
        self.ready_line = None
        self._ready_pattern = re.compile(ready) if ready is not None else None
        self._ready = threading.Event()
        self._output = []
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self):
        for line in self.proc.stdout:
            self._output.append(line)
            if self.ready_line is None and self._ready_pattern and self._ready_pattern.search(line):
                self.ready_line = line
                self._ready.set()
        self._ready.set()  # EOF: wake the waiter, who finds no ready line

    def wait_ready(self, timeout_s):
        """True once a line matched the ready pattern; at once for a server without one (ready=None)."""
        if self._ready_pattern is None:
            return True
        self._ready.wait(timeout_s)
        return self.ready_line is not None

    def cpu_seconds(self):
        return process_cpu.cpu_seconds_of(self.pid)

    def port(self):
        """The port its ready line names (server_lines.listening_on)."""
        return server_lines.listening_on(self.ready_line)[1]

    def address(self):
        """The address its ready line names (server_lines.listening_on); None where it names none."""
        return server_lines.listening_on(self.ready_line)[0]

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


def start_server(cmd, ready, name=None, timeout_s=30, env=None, preexec=None):
    """Starts `cmd` and returns once a line of its output (stdout+stderr) matches the regex `ready`, or at once
    where `ready` is None (a server that says nothing: its caller waits until its port accepts, ports.py).
    The server gets a session of its own (SCHEDULING_NOTE); `preexec` runs in the child before exec (CPU
    affinity for --pin)."""
    name = name or os.path.basename(cmd[0])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                            env=env, start_new_session=True, preexec_fn=preexec)
    server = Server(proc, name, ready)
    if server.wait_ready(timeout_s):
        return server
    exited = proc.poll()
    proc.kill()
    proc.wait()
    server.stop()
    when = f"exited ({exited}) before it printed" if exited is not None else f"did not print within {timeout_s}s"
    raise RuntimeError(f"{name} {when} /{ready}/: {server.output()[-2000:]}")
