"""What one client run against one server cost, as the detail benches (results/*_bench.py) report it: both
sides' CPU time (the client's from wait4, the server's from the scheduler clock, process_cpu.py), the TCP
segments sent meanwhile, and all of it per message.

    result, server_cpu = measured_run.run_client_against(server, cmd, timeout_s=60)
    measured_run.add_cpu_per_message(row, result, server_cpu, client_messages=sent, server_messages=echoed)
"""

from bench.running import client_process
from bench.running import tcp_segments


def run_client_against(server, cmd, timeout_s):
    """Runs a client to completion against `server`; returns its ClientResult (with `tcp_segments`, the
    segments sent meanwhile, or None) and the server's CPU seconds meanwhile."""
    server_before = server.cpu_seconds()
    segments_before = tcp_segments.tcp_segments_sent()
    result = client_process.run_client(cmd, timeout_s)
    segments_after = tcp_segments.tcp_segments_sent()
    server_after = server.cpu_seconds()
    result.tcp_segments = (segments_after - segments_before
                           if segments_before is not None and segments_after is not None else None)
    return result, server_after - server_before


def add_cpu_per_message(row, result, server_cpu, client_messages, server_messages):
    """Adds client_cpu/client_sys (per message the client counts) and server_cpu (per message the server
    handled; the scheduler clock has no user/system split, so server_sys is not measured) in microseconds to
    `row`, and the TCP segments per message the client counts (both directions, data and acknowledgements:
    fewer than one data segment per message means the kernel coalesced writes); None where a count is
    missing."""
    def per_message(seconds, messages):
        return seconds * 1e6 / messages if seconds is not None and messages else None

    row["client_cpu_us_per_msg"] = per_message(result.cpu_seconds, client_messages)
    row["client_sys_us_per_msg"] = per_message(result.system_seconds, client_messages)
    row["server_cpu_us_per_msg"] = per_message(server_cpu, server_messages)
    segments = result.tcp_segments
    row["tcp_segs_per_msg"] = segments / client_messages if segments is not None and client_messages else None
