"""A contestant started for a test: a real process, ready once it prints "listening on HOST:PORT", stopped with
SIGINT (then SIGKILL) however the test ends. Every wait is bounded by a deadline, none by a sleep.

    with started_program.StartedProgram([server, "-addr", "127.0.0.1:0"]) as server:
        socket.create_connection(("127.0.0.1", server.port))
    server.output   # everything it printed
"""

import os
import selectors
import signal
import subprocess
import time

from common import server_lines


class StartedProgram:
    def __init__(self, argv, timeout_s=60, env=None):
        self.argv = argv
        self.timeout_s = timeout_s
        self.env = env
        self.output = ""
        self.port = None
        self.proc = None

    def __enter__(self):
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True, env=self.env)
        deadline = time.monotonic() + self.timeout_s
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        pending = b""
        while self.port is None:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                self._kill()
                raise AssertionError(f"{self.argv[0]} printed no 'listening on' line in {self.timeout_s} s:\n"
                                     + self.output)
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                self.proc.wait()
                raise AssertionError(f"{self.argv[0]} exited {self.proc.returncode} before listening:\n"
                                     + self.output)
            pending += chunk
            self.output += chunk.decode(errors="replace")
            found = server_lines.parse(self.output)
            if found:
                self.port = found[1]
        selector.close()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout_s=20):
        """Stops it (SIGINT, then SIGKILL past `timeout_s`) and returns its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self._kill()
        rest = self.proc.stdout.read()
        self.output += rest.decode(errors="replace")
        self.proc.stdout.close()
        return self.proc.returncode

    def _kill(self):
        self.proc.kill()
        self.proc.wait()


def run(argv, timeout_s=120):
    """Runs a client to completion within `timeout_s`; returns (exit status, stdout+stderr)."""
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout_s)
    return result.returncode, result.stdout
