"""A client fleet as one executor (bench/running/executor.py): the load started on every host at once, the
hosts' results handed back as one, which the runner (contest.py) reads as it reads one host's.

    clients = fleet.Fleet([ssh_a, ssh_b])         # what remote_placement gives for --client-hosts=a,b
    result = clients.run_client(launch, deadline_s=60)
    result.figures(entry)                          # `found` summed over the hosts, `hosts`, merged histograms

netbench's own clients are asked for their run documents (`document_flag`), for their histograms merged exactly.
"""

import re

from bench.analysis import histogram_merge
from bench.running import client_process
from bench.running import executor
from bench.running import local

# netbench's own programs (not the write-ups' systems under //contestants/), which write run documents (--json).
_TOKEN_NETBENCH = re.compile(r"^\{//(?!contestants/)[^{}]+\}$")


def merge_found(per_host_found):
    """A fleet's `found` values: for each figure, the sum over hosts of each host's last value (msgs/s
    summed, messages summed); a figure missing on any host is missing."""
    keys = list(dict.fromkeys(k for found in per_host_found for k in found))
    merged = {}
    for key in keys:
        lasts = [found.get(key)[-1] if found.get(key) else None for found in per_host_found]
        merged[key] = [sum(lasts)] if lasts and all(v is not None for v in lasts) else []
    return merged


def _host_part(entry, result):
    """One host's part of a row."""
    histograms = (result.document or {}).get("histograms") or {}
    return {"host": result.host, "returncode": result.returncode, "cpu_s": result.cpu_seconds,
            "cpu_clock": result.cpu_clock, "found": client_process.find_results(entry, result.stdout),
            "error": result.error, "histogram_counts": {name: h.get("count") for name, h in histograms.items()},
            "tail": local.tail_of(result.stdout + "\n" + result.stderr) if result.returncode else ""}


class FleetResult:
    """The hosts' ClientResults (`parts`) as one: CPU seconds summed (None unless every host read its own),
    the longest wall time, no CPU clock where any host had none. Its output is the first host's (what a
    client's configuration is probed from); it has no single process (`process`) nor run document."""

    process = None
    document = None

    def __init__(self, parts):
        self.parts = parts
        self.stdout, self.stderr = parts[0].stdout, parts[0].stderr
        cpus = [r.cpu_seconds for r in parts]
        self.cpu_seconds = sum(cpus) if all(c is not None for c in cpus) else None
        self.wall_s = max(r.wall_s for r in parts)
        self.cpu_clock = executor.SCHEDULER if all(r.cpu_clock == executor.SCHEDULER for r in parts) else None
        self.somewhere = " on some host" if len(parts) > 1 else ""

    def figures(self, entry):
        """`found` summed over the hosts, and `hosts`: each host's part and share of the messages per second;
        `histograms` merged exactly."""
        hosts = [_host_part(entry, result) for result in self.parts]
        found = merge_found([h["found"] for h in hosts])
        total_rate = (found.get("msgs_per_s") or [None])[-1]
        for host in hosts:
            rate, messages = ((host["found"].get(k) or [None])[-1] for k in ("msgs_per_s", "messages"))
            host.update(msgs_per_s=rate, messages=messages,
                        share=rate / total_rate if rate is not None and total_rate else None)
        documents = [r.document for r in self.parts if r.document]
        merged = documents and len(documents) == len(self.parts)  # the histograms where every host wrote them
        histograms = histogram_merge.merge_documents_histograms(documents) if merged else None
        return {"found": found, "hosts": hosts, **({"histograms": histograms} if histograms else {})}


class Fleet(executor.Executor):
    """Client hosts (`members`, executors) that each run every client at once. It runs no server."""

    def __init__(self, members, ready_timeout_s=60):
        self.members = list(members)
        self.ready_timeout_s = ready_timeout_s

    def hosts(self):
        return set().union(*(member.hosts() for member in self.members))

    def unavailable(self, entry):
        return next((why for why in (member.unavailable(entry) for member in self.members) if why), None)

    def refuses(self, entry):
        return self.members[0].refuses(entry)

    def resolve(self, token):
        return self.members[0].resolve(token)

    def document_flag(self, entry):
        """netbench's own clients write their run documents, for their histograms merged."""
        return "--json" if _TOKEN_NETBENCH.match(entry["command"][0]) else None

    def address(self):
        return self.members[0].address()

    def free_port(self):
        return self.members[0].free_port()

    def start_server(self, launch, ready, timeout_s=30):
        raise executor.StartError("a client fleet runs no server")

    def run_client(self, launch, deadline_s):
        """Every host's client released at once, when all are ready."""
        if len(self.members) == 1:
            return FleetResult([self.members[0].run_client(launch, deadline_s)])
        pending = [member.start_client(launch, deadline_s) for member in self.members]
        for each in pending:
            each.wait_ready(self.ready_timeout_s)
        for each in pending:
            each.release()
        return FleetResult([each.result() for each in pending])

    def client_cpus(self):
        return sum(member.client_cpus() for member in self.members)
