"""This machine's kernel prices (a syscall, a loopback send, a blocking round trip), measured in the run that
uses them and kept in its environment.

    costs = kernel_costs.measure_kernel_costs()          # {"send": 3.2, ...}, us of CPU; {} on failure
"""

import json

from bench.running import binaries
from bench.running import client_process
from bench.base import progress

KERNEL_COST_NAMES = {
    "BM_WriteToDevNull": "syscall",
    "BM_TcpSendWithoutWakeup/peer_reads_every:1": "send_peer_reads_each",
    "BM_TcpSendWithoutWakeup/peer_reads_every:8": "send",
    "BM_TcpSendWithoutWakeup/peer_reads_every:2048": "send_peer_lets_pile_up",
    "BM_TcpRoundTripBlocking/process_time/real_time": "round_trip",
}


def measure_kernel_costs():
    """This machine's kernel prices now, in us of CPU, from //common:kernel_cost_benchmark (a few seconds):
    "syscall" (a write to /dev/null), "send" (a 22-byte loopback send that wakes nobody, the peer reading
    every 8 messages; also "send_peer_reads_each" and "send_peer_lets_pile_up") and "round_trip" (one byte
    there and back between two blocked threads: two sends, two reads, two sleep/wake cycles). A bench takes
    them in its own run, because this VM's speed drifts, and keeps them in its environment. Empty on failure."""
    try:
        binary = binaries.bazel_binary("//common:kernel_cost_benchmark")
        result = client_process.run_client([binary, "--benchmark_format=json", "--benchmark_min_time=0.3"],
                                           timeout_s=120)
        document = json.loads(result.check().stdout)
    except Exception as error:  # noqa: BLE001 - the run goes on, its environment without the prices
        progress.log(f"kernel costs not measured: {error!r}")
        return {}
    costs = {KERNEL_COST_NAMES[b["name"]]: b["cpu_time"] / 1e3 for b in document.get("benchmarks", [])
             if b["name"] in KERNEL_COST_NAMES and b.get("time_unit") == "ns"}
    progress.log("kernel costs (us): " + ", ".join(f"{k} {v:.2f}" for k, v in costs.items()))
    return costs
