"""What else happened on the server's machine while one run was measured: the hypervisor's steal, the CPU that
anything other than the measured processes used, and each side's context switches and CPU migrations, as
deltas over the run. A verdict counts the rounds that ran with steal above a level (bench/analysis/verdict.py).

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
  neighbours       the programs beside ours: every user-space process of this machine that is not this suite
                   or one it started (the server's tree, the client and its children), kernel threads (PF_KTHREAD)
                   left out, each one's utime + stime from /proc/PID/stat over the run (a process that started
                   during the run counts whole; one that started and ended within it is missed): "cpu_s" their
                   total, "share" that over every CPU's time (the same ticks as other_cpu_share), "top" the one
                   that took most {"pid", "name" (its comm), "cpu_s"}, None when none took any, and "next" the
                   two after it (on a busy machine a neighbour may not be the top one). Unlike "other",
                   it holds none of the kernel's own work (softirq for loopback, kernel threads), which a short
                   run on a quiet machine is full of. The scheduler adds "quiet_share", the machine's own level
                   measured before the first round (quiet_level), from which a round is judged disturbed
                   (bench/analysis/verdict.py). None on a server over SSH.
  server           context switches, voluntary (it blocked) and involuntary (preempted), summed over its
                   threads' /proc/PID/task/TID/status, and migrations from their /proc/PID/task/TID/sched
                   (se.nr_migrations; None where the kernel has no scheduler debug files). The kernel keeps
                   these per thread and drops a thread's count when it exits: `threads_exited` says how many
                   threads ended during the run, whose switches after the first reading are missing (a
                   thread-per-connection server's connection threads, when its clients disconnect)
                   last_cpus: {CPU: threads} of the CPU each live thread last ran on, at the end of the run
                   (/proc/PID/task/TID/stat); minor_faults and major_faults: the page faults of its processes
                   over the run (/proc/PID/stat: each process's whole, exited threads included)
  client           context switches and page faults from the same rusage as its CPU (every thread, exited ones
                   included); migrations: None, and no last CPUs (a reaped process has no files left to read)

Every figure is of the server's machine. Where the clients run elsewhere (a client fleet over SSH), the client
fields are None and other_cpu_s is busy - server - suite. A server on another host is read over its SSH
connection (remote_noise.py): the same /proc files there, parsed by the functions below, its CPU from the
host's executor, and client_cpu_s, suite_cpu_s and client None (the suite and the clients are not there).
"""

import os
import resource
import time

from bench.running import process_cpu

STAT = "/proc/stat"
_TICKS_PER_S = os.sysconf("SC_CLK_TCK")
_SWITCHES = ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")
_MIGRATIONS = "se.nr_migrations"
_STAT_NAMES = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
PROC = "/proc"
# proc(5)'s flags bit of a kernel thread (include/linux/sched.h).
PF_KTHREAD = 0x00200000
# How long quiet_level watches the machine with nothing of ours running.
QUIET_S = 3.0


def parse_stat(text):
    """{"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "cpus"} of a /proc/stat text:
    the totals over every CPU, in ticks (a column the kernel does not give reads as 0), and the number of
    CPUs it lists. ValueError when its first line is not the `cpu` totals."""
    lines = text.splitlines()
    if not lines or lines[0].split()[:1] != ["cpu"]:
        raise ValueError(f"not a /proc/stat text: {text[:40]!r}")
    values = [int(v) for v in lines[0].split()[1:len(_STAT_NAMES) + 1]]
    ticks = dict(zip(_STAT_NAMES, values + [0] * (len(_STAT_NAMES) - len(values))))
    ticks["cpus"] = sum(1 for line in lines if line.startswith("cpu") and line[3:4].isdigit())
    return ticks


def cpu_ticks(stat_path=STAT):
    """parse_stat of this machine's /proc/stat (or of the file at `stat_path`)."""
    with open(stat_path) as f:
        return parse_stat(f.read())


def parse_fields(text, wanted):
    """{name: int} of the `name: value` lines of a /proc text that are in `wanted` (a line whose value is not
    a number is left out)."""
    found = {}
    for line in text.splitlines():
        name, _, value = line.partition(":")
        name = name.strip()
        if name in wanted:
            try:
                found[name] = int(float(value.split()[0]))
            except (ValueError, IndexError):
                pass
    return found


def parse_thread(text):
    """{"voluntary", "involuntary", "migrations"} of one thread from the text of its status file followed by
    its sched file's (migrations None where the sched text is missing); None when the status text lacks the
    switch counts (the thread ended while it was read)."""
    fields = parse_fields(text, _SWITCHES + (_MIGRATIONS,))
    if not all(name in fields for name in _SWITCHES):
        return None
    return {"voluntary": fields["voluntary_ctxt_switches"], "involuntary": fields["nonvoluntary_ctxt_switches"],
            "migrations": fields.get(_MIGRATIONS)}


def _text_of(path):
    """A /proc file's text, or "" where it is gone or unreadable."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def parse_process_stat(text):
    """(minor faults, major faults, the CPU it last ran on) of a /proc/PID/stat or /proc/PID/task/TID/stat text
    (proc(5): fields 10, 12 and 39, counted after the command's closing parenthesis, which may hold spaces);
    None when the text is not one (the task ended while it was read)."""
    fields = text.rpartition(")")[2].split()
    if len(fields) < 37:
        return None
    return int(fields[7]), int(fields[9]), int(fields[36])


def faults(pids):
    """{pid: (minor, major)} page faults of the live ones of `pids`, each process's whole (its threads', exited
    ones included)."""
    found = {}
    for pid in pids:
        parsed = parse_process_stat(_text_of(f"/proc/{pid}/stat"))
        if parsed is not None:
            found[pid] = parsed[:2]
    return found


def fault_deltas(before, after):
    """{"minor_faults", "major_faults"} since `before` of the processes in `after` (one that started during the
    run counts whole)."""
    minor = sum(now[0] - before.get(pid, (0, 0))[0] for pid, now in after.items())
    major = sum(now[1] - before.get(pid, (0, 0))[1] for pid, now in after.items())
    return {"minor_faults": minor, "major_faults": major}


def thread_counters(pids):
    """{(pid, tid): {"voluntary", "involuntary", "migrations", "cpu"}} for every live thread of `pids`
    (migrations None where the scheduler file is missing or unreadable; cpu, the CPU it last ran on, None where
    its stat file is)."""
    counters = {}
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:  # exited meanwhile
            continue
        for tid in tids:
            task = f"/proc/{pid}/task/{tid}"
            counted = parse_thread(_text_of(f"{task}/status") + _text_of(f"{task}/sched"))
            if counted is not None:
                stat = parse_process_stat(_text_of(f"{task}/stat"))
                counters[(pid, tid)] = {**counted, "cpu": stat[2] if stat else None}
    return counters


def switches(before, after):
    """The row's `server` part from two thread_counters readings (the same keys, from any host): the switches
    and migrations of the threads alive at the end since the first reading (a thread that started during the
    run counts whole), their number, and how many threads of the first reading ended. Migrations None
    where any thread's are unknown."""
    out = {"voluntary": 0, "involuntary": 0, "migrations": 0, "threads": len(after),
           "threads_exited": sum(1 for key in before if key not in after)}
    last = [now.get("cpu") for now in after.values() if now.get("cpu") is not None]
    if last:  # which CPU the threads ended the run on: {cpu: threads}, what a bimodal ratio is read against
        out["last_cpus"] = {str(cpu): last.count(cpu) for cpu in sorted(set(last))}
    for key, now in after.items():
        then = before.get(key, {"voluntary": 0, "involuntary": 0, "migrations": 0})
        for name in ("voluntary", "involuntary"):
            out[name] += now[name] - then[name]
        if out["migrations"] is not None and now["migrations"] is not None and then["migrations"] is not None:
            out["migrations"] += now["migrations"] - then["migrations"]
        else:
            out["migrations"] = None
    return out


def reading(ticks_before, ticks_after, ticks_per_s, wall_s, processes):
    """The row's `noise` (fields in the module's docstring) of two parse_stat readings of the server's host,
    whose clock ticks `ticks_per_s` a second, and `processes`: the measured processes' figures over the same run
    ("server_cpu_s" and "server"; "client_cpu_s", "suite_cpu_s" and "client" where they ran on that host), each
    missing one None; "neighbours" (neighbours(): "cpu_s", "top", "next") where that host's processes were read,
    given its share here."""
    sides = {key: processes.get(key) for key in ("server_cpu_s", "client_cpu_s", "suite_cpu_s")}
    delta = {k: ticks_after[k] - ticks_before[k] for k in ticks_after if k != "cpus"}
    all_ticks = sum(delta.values())
    busy_s = (delta["user"] + delta["nice"] + delta["system"] + delta["irq"] + delta["softirq"]) / ticks_per_s
    server_s, client_s, suite_s = (value or 0.0 for value in sides.values())
    other = max(0.0, busy_s - server_s - client_s - suite_s)
    near = processes.get("neighbours")
    if near is not None:
        near = {**near, "share": min(1.0, near["cpu_s"] * ticks_per_s / all_ticks) if all_ticks > 0 else None}
    return {
        "steal": delta["steal"] / all_ticks if all_ticks > 0 else 0.0,
        "busy_cpu_s": busy_s,
        **sides,
        "other_cpu_s": other,
        "other_cpu_share": min(1.0, other * ticks_per_s / all_ticks) if all_ticks > 0 else None,
        "cpus": ticks_after["cpus"],
        "wall_s": wall_s,
        "server": processes.get("server"),
        "client": processes.get("client"),
        "neighbours": near,
    }


def parse_task(text):
    """(name, ppid, flags, utime + stime in ticks, start time in ticks) of a /proc/PID/stat text (proc(5):
    the command between its parentheses, then fields 4, 9, 14, 15 and 22); None when the text is not one."""
    name, close = text[text.find("(") + 1:text.rfind(")")], text.rfind(")")
    fields = text[close + 1:].split()
    if close < 0 or len(fields) < 20:
        return None
    return name, int(fields[1]), int(fields[6]), int(fields[11]) + int(fields[12]), int(fields[19])


def processes(proc=PROC):
    """{pid: parse_task} of every user-space process of this machine (kernel threads left out): one read of
    each /proc/PID/stat, a few milliseconds for a few hundred processes."""
    found = {}
    for entry in os.scandir(proc):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"{proc}/{entry.name}/stat", "rb") as f:
                task = parse_task(f.read().decode("utf-8", "replace"))
        except OSError:  # it ended while the folder was listed
            continue
        if task is not None and not task[2] & PF_KTHREAD:
            found[int(entry.name)] = task
    return found


def ours(snapshot, roots):
    """The pids of `snapshot` (processes()) that are `roots` or descend from one of them."""
    children = {}
    for pid, task in snapshot.items():
        children.setdefault(task[1], []).append(pid)
    found, todo = set(), [r for r in roots if r is not None]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo += children.get(pid, [])
    return found


def neighbours(before, after, excluded, ticks_per_s):
    """{"cpu_s", "top", "next"} of the processes of `after` not in `excluded` (pids) since `before` (two
    processes() readings): their CPU over the interval (one whose pid and start time are not in `before`
    started within it and counts whole), the one that took most, {"pid", "name", "cpu_s"} (None when none took
    any), and the two after it (a list)."""
    used_by = []
    for pid, (name, _, _, ticks, started) in after.items():
        if pid in excluded:
            continue
        then = before.get(pid)
        used = ticks - then[3] if then is not None and then[4] == started else ticks
        if used > 0:
            used_by.append((-used, pid, name))
    named = [{"pid": pid, "name": name, "cpu_s": -used / ticks_per_s} for used, pid, name in sorted(used_by)[:3]]
    return {"cpu_s": -sum(used for used, _, _ in used_by) / ticks_per_s, "top": named[0] if named else None,
            "next": named[1:]}


def quiet_level(seconds=QUIET_S, sleep=time.sleep, proc=PROC, stat_path=STAT):
    """The machine's own level: the share of every CPU's time that other programs (neighbours) took over
    `seconds` while this suite runs nothing, {"share", "cpu_s", "seconds", "top"}. Called before the first
    round; what a round's neighbours take is judged against it."""
    ticks, before = cpu_ticks(stat_path), processes(proc)
    sleep(seconds)
    after, ticks_after = processes(proc), cpu_ticks(stat_path)
    excluded = ours(before, [os.getpid()]) | ours(after, [os.getpid()])
    found = neighbours(before, after, excluded, _TICKS_PER_S)
    all_ticks = sum(ticks_after[k] - ticks[k] for k in ticks if k != "cpus")
    share = min(1.0, found["cpu_s"] * _TICKS_PER_S / all_ticks) if all_ticks > 0 else 0.0
    return {"share": share, "cpu_s": found["cpu_s"], "seconds": seconds, "top": found["top"]}


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
    """One run's noise on this machine: construct it just before the measured client starts, call finish()
    once it has been reaped. `server_pid`: the server's process (its tree is read at both ends), or None for
    no server here; `clients_here`: False where the clients run on other hosts (the client fields are then
    None, and this process's reaped children, its SSH sessions, count as other load)."""

    def __init__(self, server_pid=None, stat_path=STAT, clients_here=True):
        self._stat_path = stat_path
        self._server_pid = server_pid
        self._clients_here = clients_here
        self._server_pids = _tree(server_pid)
        self._threads = thread_counters(self._server_pids)
        self._faults = faults(self._server_pids)
        self._server_cpu = _cpu_of(self._server_pids)
        self._children = resource.getrusage(resource.RUSAGE_CHILDREN)
        self._self = resource.getrusage(resource.RUSAGE_SELF)
        self._processes = processes()
        self._ticks = cpu_ticks(stat_path)
        self._started = time.monotonic()

    def finish(self):
        """The deltas since the probe was made, as the row's `noise` (fields in the module's docstring)."""
        ticks = cpu_ticks(self._stat_path)
        wall_s = time.monotonic() - self._started
        now = processes()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        own = resource.getrusage(resource.RUSAGE_SELF)
        pids = _tree(self._server_pid)
        server_cpu = None
        if pids:
            # A process that started during the run (a worker) counts whole; one that exited is lost.
            server_cpu = sum(now - self._server_cpu.get(pid, 0.0) for pid, now in _cpu_of(pids).items())
        client_cpu = client = None
        if self._clients_here:
            client_cpu = ((children.ru_utime - self._children.ru_utime)
                          + (children.ru_stime - self._children.ru_stime))
            client = {"voluntary": children.ru_nvcsw - self._children.ru_nvcsw,
                      "involuntary": children.ru_nivcsw - self._children.ru_nivcsw, "migrations": None,
                      "minor_faults": children.ru_minflt - self._children.ru_minflt,
                      "major_faults": children.ru_majflt - self._children.ru_majflt}
        suite_cpu = (own.ru_utime - self._self.ru_utime) + (own.ru_stime - self._self.ru_stime)
        server = None
        if pids:
            server = {**switches(self._threads, thread_counters(pids)), **fault_deltas(self._faults, faults(pids))}
        # Ours: this suite, whatever it started (the servers, the client, its children), the server's tree.
        roots = [os.getpid(), self._server_pid, *self._server_pids]
        excluded = ours(self._processes, roots) | ours(now, roots)
        near = neighbours(self._processes, now, excluded, _TICKS_PER_S)
        return reading(self._ticks, ticks, _TICKS_PER_S, wall_s, {
            "server_cpu_s": server_cpu, "server": server,
            "client_cpu_s": client_cpu, "suite_cpu_s": suite_cpu, "client": client, "neighbours": near})
