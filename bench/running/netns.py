"""A network namespace of this machine as an executor (bench/running/executor.py): its programs run under
`ip netns exec NAMESPACE`, so that a server and its load talk over a link rather than loopback (tools/testnet.sh
makes such hosts: namespaces on a bridge, each with an address). All else is this machine's (local.py): CPU
time, configuration, CPU affinity, the noise reading.

    server = netns.NetnsExecutor("nb1", "10.200.0.11")
    runner = contest.Runner(placement=executor.Placement(server, netns.NetnsExecutor("nb2", "10.200.0.12")))
"""

import dataclasses

from bench.running import local


def in_namespace(namespace, launch):
    """`launch` run in `namespace`: its command, and a daemon's stop command, under `ip netns exec`."""
    enter = ["ip", "netns", "exec", namespace]
    return dataclasses.replace(launch, argv=enter + list(launch.argv),
                               stop_argv=enter + list(launch.stop_argv) if launch.stop_argv else None)


class NetnsExecutor(local.LocalExecutor):
    """Namespace `namespace` (its name is the rows' `host`), whose servers clients reach at `address`."""

    def __init__(self, namespace, address, cpus=None):
        super().__init__(cpus)
        self.host, self.reached_at = namespace, address

    def address(self):
        return self.reached_at

    def segments_sent(self):
        return None  # tcp_segments.py reads the root namespace's counter, not this one's

    def start_server(self, launch, ready, timeout_s=30):
        return super().start_server(in_namespace(self.host, launch), ready, timeout_s)

    def run_client(self, launch, deadline_s):
        result = super().run_client(in_namespace(self.host, launch), deadline_s)
        result.host = self.host
        return result
