"""Loopback ports of the servers under test: one free to hand to a server that takes its port as an argument,
and a wait until a server really accepts on it.

    port = ports.free_port()
    server = server_process.start_server([go_server, "-addr", f"127.0.0.1:{port}"], ready=r"listening on")
    if not ports.wait_until_accepting(port): ...
"""

import socket
import time


def free_port(host="127.0.0.1"):
    """A port nothing listens on now, for servers that take their port as an argument (and print their -addr,
    not the bound port, as Go's do)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_until_accepting(port, host="127.0.0.1", timeout_s=15, alive=None):
    """True once `port` accepts a connection, False after timeout_s, or at once when `alive` (a callable) says
    the server has exited: some servers print their ready line before they listen (Go's http.ListenAndServe),
    and a server without a ready line is ready only then."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and (alive is None or alive()):
        try:
            socket.create_connection((host, port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False
