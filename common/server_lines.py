"""What a server prints that others read: its ready line, `listening on HOST:PORT ...` (every netbench server
and contestant, once it accepts connections), and a netbench server's closing line, `stopped by signal 2 after
1.2 s: 3 connections (...), B bytes read, W bytes written, K system calls` (common/server.cc). The one parser
of each in the tree, for the suite, the soak and every test.

    server_lines.parse("listening on 127.0.0.1:8080 model=epoll")   # ("127.0.0.1", 8080); None without one
    server_lines.listening_on("2024/01/02 20:14:49 listening on :9000")  # ("", 9000)
    server_lines.closing_counts(output)["system calls"]               # None where it printed no closing line

From a shell script (tools/callgrind_load.sh, tools/client_syscalls_check.sh), the port of a server's log:

    port=$(python3 common/server_lines.py port server.log)   # exit 1, printing nothing, before its ready line
"""

import re
import sys

_LISTENING = re.compile(r"listening on (\S*):(\d+)\b", re.IGNORECASE)
_CLOSING = re.compile(r"stopped by signal \d+ after [^:\n]*: (.*)")


def parse(text):
    """(address, port) of the first `listening on HOST:PORT` in `text` (a line or a program's output so far;
    HOST may be empty, a name, IPv4 or `[::1]`), else None."""
    match = _LISTENING.search(text or "")
    return (match.group(1), int(match.group(2))) if match else None


def listening_on(line):
    """(address, port) of a ready line; for a line that matched some other ready pattern, (None, the last
    `:PORT` on it: a log prefix such as Go's "20:14:49" comes first, so it is not taken); (None, None) without
    one."""
    found = parse(line)
    if found:
        return found
    ports = re.findall(r":(\d+)\b", line or "")
    return None, (int(ports[-1]) if ports else None)


def closing_counts(output):
    """{what: number} of the last closing line in `output` ("connections", "rejected", "bytes read", "system
    calls", the websocket server's "messages received", ...); None without one."""
    lines = _CLOSING.findall(output or "")
    if not lines:
        return None
    return {what: int(number) for number, what in re.findall(r"(\d+) ([a-z]+(?: [a-z]+)*)", lines[-1])}


def main(argv):
    """`port FILE`: prints the port of FILE's first ready line; exit 1 when it has none (yet), 2 for usage."""
    if len(argv) != 3 or argv[1] != "port":
        print("usage: server_lines.py port FILE", file=sys.stderr)
        return 2
    try:
        with open(argv[2], errors="replace") as f:
            found = parse(f.read())
    except OSError:
        found = None  # not written yet: no ready line
    if found is None:
        return 1
    print(found[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
