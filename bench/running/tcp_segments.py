"""The wire load of a loopback run in TCP segments, from the kernel's system-wide counter.

    before = tcp_segments.tcp_segments_sent()
    ...
    segments = tcp_segments.tcp_segments_sent() - before     # when neither is None
"""


def tcp_segments_sent():
    """TCP segments this machine has sent (/proc/net/snmp OutSegs); None where there is no such file. On
    loopback every segment sent is also received, so the difference over a run is the run's wire load in
    segments, data and acknowledgements alike. The count is system-wide: it means something on a quiet
    machine, as a bench's is."""
    try:
        with open("/proc/net/snmp") as f:
            lines = [line.split() for line in f if line.startswith("Tcp:")]
        header, values = lines[0], lines[1]
        return int(values[header.index("OutSegs")])
    except (OSError, IndexError, ValueError):
        return None
