"""A server's ready line, `listening on HOST:PORT ...`: what every netbench server and contestant prints once
it accepts connections (echo/server_main.cc, httpfanout/origin_main.cc, the Go, Racket and Clojure programs).
The one parser of it in the tree; the suite, the contestants' tests and the interop test all read it here.

    ready_line.parse("listening on 127.0.0.1:8080 model=epoll")   # ("127.0.0.1", 8080); None without one
    ready_line.listening_on("2024/01/02 20:14:49 listening on :9000")  # ("", 9000)
"""

import re

_LISTENING = re.compile(r"listening on (\S*):(\d+)\b", re.IGNORECASE)


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
