"""System calls per message of a netbench server, from its own count: every model (threads, poll,
epoll, uring) ends its stop line with the system calls it made over its whole life,

    stopped by signal 2 after 1.2 s: 3 connections (...), B bytes read, W bytes written, K system calls

so a detail scenario gives each case a server of its own (scheduler.ServerSpec's per_run), stopped after the
run, and reads the line then; the count includes starting, accepting and closing, a few calls per
connection. The websocket server's line also says how many messages it received."""

from bench.running import contest
from common import server_lines


def system_calls(output):
    """The system-call count of a server's stop line in `output`, or None where there is none (a server that
    is not netbench's, or one killed before it printed)."""
    return (server_lines.closing_counts(output) or {}).get("system calls")


def per_message(calls, messages):
    return calls / messages if calls is not None and messages else None


def received_messages(output):
    """The messages a netbench websocket server says it received, or None where it printed no such line."""
    return (server_lines.closing_counts(output) or {}).get("messages received")


def stop(runner, server):
    """Stops one server of `runner` (the others keep running) and returns everything it printed, its stop
    line included: read after the process exited."""
    return runner.stop(server)


def start(runner, entry, **kwargs):
    """(server, None), or (None, why it did not start: the server's own last lines, e.g. the uring model's
    exit 2 where the system refuses io_uring)."""
    try:
        return runner.start_server(entry, **kwargs), None
    except contest.Failure as error:
        return None, f"{error} {error.tail}".strip()
