"""What configuration a contestant really ran with, read from the running process rather than assumed:
the CPUs it may use, how many threads it had at most, and what it says of itself at start (a registry entry's
`probe`: regexes over its output, such as a Go program's "gomaxprocs 2").

Go and the JVM size themselves from the CPUs a process may use (`taskset -c 0` gives Go GOMAXPROCS 1), so two
entries that differ on paper can run the same configuration; comparing them is then no experiment, and the
verdict says so (bench/scenarios/judging.py).

    config = process_configuration.read(pid, output, entry.get("probe", {}))
    # {"cpus": 2, "threads": 5, "gomaxprocs": 2}
    process_configuration.merge(earlier, later)    # threads: the peak; the rest: the newest reading
    process_configuration.saturation(cpu_s, wall_s, config["cpus"])   # 0.97: CPU time / (wall x CPUs)
"""

import os
import re

from bench.running import process_cpu

SATURATED = 0.9  # a side whose CPU time reaches 90% of wall time x its CPUs had no CPU to spare


def allowed_cpus(pid):
    """How many CPUs `pid` may run on (its affinity mask); None once it has gone."""
    try:
        return len(os.sched_getaffinity(pid))
    except OSError:
        return None


def threads_of_tree(pid):
    """Threads of `pid` and every process below it (nginx's workers under its script), now; None once gone."""
    total = None
    for member in process_cpu.descendants(pid):
        try:
            with open(f"/proc/{member}/status") as f:
                for line in f:
                    if line.startswith("Threads:"):
                        total = (total or 0) + int(line.split()[1])
                        break
        except (OSError, ValueError):
            pass
    return total


def probed(output, probe):
    """{name: number} of each `probe` regex (a group named `value`) over `output`: its first match."""
    found = {}
    for name, pattern in (probe or {}).items():
        match = re.search(pattern, output or "", re.MULTILINE)
        if match:
            text = match.group("value")
            try:
                found[name] = int(text)
            except ValueError:
                found[name] = text
    return found


def read(pid, output, probe):
    """The configuration of a live process: `cpus` (what it may use: its affinity now), `threads` (its tree's,
    now) and every probed value."""
    config = {"cpus": allowed_cpus(pid)}
    threads = threads_of_tree(pid)
    if threads is not None:
        config["threads"] = threads
    config.update(probed(output, probe))
    return {k: v for k, v in config.items() if v is not None}


def merge(earlier, later):
    """Two readings of one process: the peak thread count, otherwise the later reading."""
    merged = {**(earlier or {}), **(later or {})}
    threads = [c.get("threads") for c in (earlier or {}, later or {}) if c.get("threads") is not None]
    if threads:
        merged["threads"] = max(threads)
    return merged


def saturation(cpu_s, wall_s, cpus):
    """CPU time over what the side could have used (wall x CPUs it may use); None without the figures."""
    if cpu_s is None or not wall_s or not cpus:
        return None
    return cpu_s / (wall_s * cpus)


def bottleneck(server_saturation, client_saturation):
    """Which side had no CPU to spare: "server", "load", "both" or "neither" (None without the figures)."""
    if server_saturation is None and client_saturation is None:
        return None
    server = server_saturation is not None and server_saturation >= SATURATED
    load = client_saturation is not None and client_saturation >= SATURATED
    return {(True, True): "both", (True, False): "server", (False, True): "load"}.get((server, load), "neither")
