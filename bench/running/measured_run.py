"""What one client run against one server cost per message, as the detail scenarios (bench/scenarios/*_bench.py)
report it: both sides' CPU time (measured by contest.Runner.run_client: the server's from the scheduler clock,
the client's from wait4) and the TCP segments sent meanwhile, each divided by the messages that side handled.

    measured_run.add_cpu_per_message(row, result, client_messages=sent, server_messages=echoed)
"""


def add_cpu_per_message(row, result, client_messages, server_messages):
    """Adds client_cpu/client_sys (per message the client counts) and server_cpu (per message the server
    handled; the scheduler clock has no user/system split, so server_sys is not measured) in microseconds to
    `row`, from its `server_cpu_s` and the client's, and in place of its `tcp_segments` the TCP segments per
    message the client counts (both directions, data and acknowledgements: fewer than one data segment per
    message means the kernel coalesced writes); None where a count is missing. `result` is the client's own
    ClientResult; a fleet's run has none, only the row's summed `client_cpu_s` (no user/system split, no
    segments: the counter sees one end of the link)."""
    def per_message(seconds, messages):
        return seconds * 1e6 / messages if seconds is not None and messages else None

    segments = row.pop("tcp_segments", None)
    if result is None:
        row["client_cpu_us_per_msg"] = per_message(row.get("client_cpu_s"), client_messages)
        row["server_cpu_us_per_msg"] = per_message(row.get("server_cpu_s"), server_messages)
        return
    row["client_cpu_us_per_msg"] = per_message(result.cpu_seconds, client_messages)
    row["client_sys_us_per_msg"] = per_message(result.system_seconds, client_messages)
    row["server_cpu_us_per_msg"] = per_message(row.get("server_cpu_s"), server_messages)
    row["tcp_segs_per_msg"] = segments / client_messages if segments is not None and client_messages else None
