"""What else happened on this machine while one run was measured: the hypervisor's steal, the CPU that anything
other than the measured processes used, and each side's context switches and CPU migrations, as deltas over
the run. A verdict counts the rounds that ran with steal above a level (bench/analysis/verdict.py).

    probe = noise.Probe(server_pid)         # just before the client starts
    result = client_process.run_client(...)
    row["noise"] = probe.finish()           # just after it was reaped

Where each number comes from, and how exact it is:
  steal            /proc/stat's first line: stolen / all CPU time of every CPU over the run, in [0, 1]; the
                   kernel counts it in ticks of 1/USER_HZ (10 ms), so a 1 s run on 2 CPUs reads to 0.5%
  busy_cpu_s       /proc/stat: user + nice + system + irq + softirq of every CPU (guest time is inside user)
  server_cpu_s     the scheduler's exact clock of the server's process tree (process_cpu), threads that exited
                   included
  client_cpu_s     getrusage(RUSAGE_CHILDREN) of this process: the client and the children it waited for, once
                   reaped; exact, provided the client is the only child reaped during the run (servers live on)
  suite_cpu_s      getrusage(RUSAGE_SELF): this Python process (its threads draining the client's output)
  other_cpu_s      busy - server - client - suite, at least 0: other programs, kernel threads, interrupts;
                   other_cpu_share divides it by every CPU's time over the run as /proc/stat counted it (the
                   same ticks, so that a run shorter than a few ticks still reads in [0, 1])
  server           context switches, voluntary (it blocked) and involuntary (preempted), summed over its
                   threads' /proc/PID/task/TID/status, and migrations from their /proc/PID/task/TID/sched
                   (se.nr_migrations; None where the kernel has no scheduler debug files). The kernel keeps
                   these per thread and drops a thread's count when it exits: `threads_exited` says how many
                   threads ended during the run, whose switches after the first reading are missing (a
                   thread-per-connection server's connection threads, when its clients disconnect)
  client           context switches from the same rusage as its CPU (every thread, exited ones included);
                   migrations: None (a reaped process has no scheduler file left to read)

Local runs only: a server on another host gets no server reading and the system figures are this machine's.
"""

import os
import resource
import time

from bench.running import process_cpu

STAT = "/proc/stat"
_TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def cpu_ticks(stat_path=STAT):
    """{"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "cpus"}: /proc/stat's totals over
    every CPU, in ticks, and the number of CPUs it lists."""
    with open(stat_path) as f:
        lines = f.read().splitlines()
    names = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
    values = [int(v) for v in lines[0].split()[1:len(names) + 1]]
    ticks = dict(zip(names, values + [0] * (len(names) - len(values))))
    ticks["cpus"] = sum(1 for line in lines if line.startswith("cpu") and line[3:4].isdigit())
    return ticks


def _fields(path, wanted):
    """{name: int} of the `name: value` lines of a /proc file that are in `wanted`."""
    found = {}
    try:
        with open(path) as f:
            for line in f:
                name, _, value = line.partition(":")
                name = name.strip()
                if name in wanted:
                    found[name] = int(float(value.split()[0]))
    except (OSError, ValueError, IndexError):
        pass
    return found


def thread_counters(pids):
    """{(pid, tid): {"voluntary", "involuntary", "migrations"}} for every live thread of `pids` (migrations
    None where the scheduler file is missing or unreadable)."""
    counters = {}
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:  # exited meanwhile
            continue
        for tid in tids:
            status = _fields(f"/proc/{pid}/task/{tid}/status",
                             ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"))
            if len(status) < 2:
                continue
            sched = _fields(f"/proc/{pid}/task/{tid}/sched", ("se.nr_migrations",))
            counters[(pid, tid)] = {"voluntary": status["voluntary_ctxt_switches"],
                                    "involuntary": status["nonvoluntary_ctxt_switches"],
                                    "migrations": sched.get("se.nr_migrations")}
    return counters


def _tree(pid):
    return process_cpu.descendants(pid) if pid is not None else []


def _cpu_of(pids):
    """{pid: CPU seconds} of the live ones of `pids`."""
    seconds = {}
    for pid in pids:
        try:
            seconds[pid] = process_cpu.cpu_seconds_of(pid)
        except OSError:  # exited meanwhile
            pass
    return seconds


class Probe:
    """One run's noise: construct it just before the measured client starts, call finish() once it has been
    reaped. `server_pid`: the server's process (its tree is read at both ends), or None for no server here."""

    def __init__(self, server_pid=None, stat_path=STAT):
        self._stat_path = stat_path
        self._server_pid = server_pid
        self._server_pids = _tree(server_pid)
        self._threads = thread_counters(self._server_pids)
        self._server_cpu = _cpu_of(self._server_pids)
        self._children = resource.getrusage(resource.RUSAGE_CHILDREN)
        self._self = resource.getrusage(resource.RUSAGE_SELF)
        self._ticks = cpu_ticks(stat_path)
        self._started = time.monotonic()

    def finish(self):
        """The deltas since the probe was made, as the row's `noise` (fields in the module's docstring)."""
        ticks = cpu_ticks(self._stat_path)
        wall_s = time.monotonic() - self._started
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        own = resource.getrusage(resource.RUSAGE_SELF)
        pids = _tree(self._server_pid)
        server_cpu = None
        if pids:
            # A process that started during the run (a worker) counts whole; one that exited is lost.
            server_cpu = sum(now - self._server_cpu.get(pid, 0.0) for pid, now in _cpu_of(pids).items())
        delta = {k: ticks[k] - self._ticks[k] for k in ticks if k != "cpus"}
        all_ticks = sum(delta.values())
        busy_s = (delta["user"] + delta["nice"] + delta["system"] + delta["irq"] + delta["softirq"]) / _TICKS_PER_S
        client_cpu = (children.ru_utime - self._children.ru_utime) + (children.ru_stime - self._children.ru_stime)
        suite_cpu = (own.ru_utime - self._self.ru_utime) + (own.ru_stime - self._self.ru_stime)
        other = max(0.0, busy_s - (server_cpu or 0.0) - client_cpu - suite_cpu)
        return {
            "steal": delta["steal"] / all_ticks if all_ticks > 0 else 0.0,
            "busy_cpu_s": busy_s,
            "server_cpu_s": server_cpu,
            "client_cpu_s": client_cpu,
            "suite_cpu_s": suite_cpu,
            "other_cpu_s": other,
            "other_cpu_share": min(1.0, other * _TICKS_PER_S / all_ticks) if all_ticks > 0 else None,
            "cpus": ticks["cpus"],
            "wall_s": wall_s,
            "server": self._server_switches(pids) if pids else None,
            "client": {"voluntary": children.ru_nvcsw - self._children.ru_nvcsw,
                       "involuntary": children.ru_nivcsw - self._children.ru_nivcsw, "migrations": None},
        }

    def _server_switches(self, pids):
        after = thread_counters(pids)
        out = {"voluntary": 0, "involuntary": 0, "migrations": 0, "threads": len(after),
               "threads_exited": sum(1 for key in self._threads if key not in after)}
        for key, now in after.items():
            before = self._threads.get(key, {"voluntary": 0, "involuntary": 0, "migrations": 0})
            for name in ("voluntary", "involuntary"):
                out[name] += now[name] - before[name]
            if out["migrations"] is not None and now["migrations"] is not None \
                    and before["migrations"] is not None:
                out["migrations"] += now["migrations"] - before["migrations"]
            else:
                out["migrations"] = None
        return out
