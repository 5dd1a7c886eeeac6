"""A client or one-shot program run to completion as a real process: its output, exit status, wall time and
CPU time (wait4's rusage of the whole process, children it waited for included).

    result = client_process.run_client([binary, "--benchmark_format=json"], timeout_s=120).check()
    result.stdout, result.cpu_seconds, result.system_seconds, result.wall_s
    result.figures(entry)     # what its registry entry's `result` regexes found, and its `series:` line
"""

import json
import os
import re
import signal
import subprocess
import threading
import time


class ClientResult:
    """One client's run, wherever it ran (bench/running/executor.py): `output` is (stdout, stderr), `split`
    (user, system) seconds where the host gives them, else `cpu_seconds` alone."""

    def __init__(self, cmd, returncode, output, wall_s, cpu_seconds, split=None):
        self.cmd = cmd
        self.returncode = returncode  # None when it never ran (`error` says why)
        self.stdout, self.stderr = output
        self.user_seconds, self.system_seconds = split or (None, None)  # system: syscalls, TCP, wakeups
        self.cpu_seconds = sum(split) if split else cpu_seconds
        self.cpu_clock = "scheduler"  # None where the host could not run the CPU reader: cpu_seconds is None
        self.wall_s = wall_s
        self.timed_out = False  # stopped at its deadline
        self.stopped = "killed with its process group"  # how, when it was
        self.deadline_s = None
        self.host = None  # the executor's host: None for this machine
        self.error = None  # why it did not run, when it did not
        self.document = None  # its run document, where the runner asked for one (Launch.document_flag)

    # One process: its own parts, and the process a scenario may read more of (a fleet's FleetResult has none).
    somewhere = ""

    @property
    def parts(self):
        return [self]

    @property
    def process(self):
        return self

    def figures(self, entry):
        """A row's figures from its output: `found` (every number each of `entry`'s `result` regexes found) and,
        where it printed one, its `series`."""
        series = find_series(self.stdout)
        return {"found": find_results(entry, self.stdout), **({"series": series} if series is not None else {})}

    def check(self):
        if self.returncode != 0:
            raise RuntimeError(f"{' '.join(self.cmd)} exited {self.returncode}:\n{self.stdout[-2000:]}\n"
                               f"{self.stderr[-2000:]}")
        return self


def find_results(entry, stdout):
    """{figure: [every number its `result` regex found in stdout, in order]} of a client's output."""
    found = {}
    for key, pattern in entry["result"].items():
        numbers = []
        for match in re.finditer(pattern, stdout, re.MULTILINE):
            try:
                numbers.append(float(match.group("value").replace(",", "")))
            except ValueError:
                pass
        found[key] = numbers
    return found


SERIES_LINE = re.compile(r"^series: (\{.*\})$", re.MULTILINE)


def find_series(stdout):
    """The per-interval counts a load generator printed as its `series:` line (netbench's clients and the
    write-ups' Go loads: {"interval_s", "last_s", "sent": [...], "received": [...]}), or None: a client that
    prints none, or a line that does not parse, has no series, and its row says so by lacking one."""
    lines = SERIES_LINE.findall(stdout)
    if not lines:
        return None
    try:
        series = json.loads(lines[-1])
    except ValueError:
        return None
    ok = isinstance(series, dict) and isinstance(series.get("interval_s"), (int, float)) and series["interval_s"] > 0
    return series if ok and isinstance(series.get("sent"), list) else None


def run_client(cmd, timeout_s, env=None, cwd=None, preexec=None):
    """Runs `cmd` to completion and returns its output and CPU time (wait4's rusage: its user/system split comes
    from ticks, but their sum is the scheduler's exact run time, children that it waited for included).
    `preexec` runs in the child before exec (CPU affinity for --pin).

    The program runs in a process group of its own: one that is still running `timeout_s` after it started is
    killed with everything it started (SIGKILL to the group; a child left behind would hold its output open),
    and the result says so (`timed_out`). So is one whose run the suite abandons (Ctrl-C), before the
    exception goes on."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd,
                            preexec_fn=preexec, process_group=0)
    collected = {}

    def drain(stream, key):
        collected[key] = stream.read()

    readers = [threading.Thread(target=drain, args=(proc.stdout, "out")),
               threading.Thread(target=drain, args=(proc.stderr, "err"))]
    for r in readers:
        r.start()
    timed_out = threading.Event()

    def kill_group():
        timed_out.set()
        _kill_group(proc.pid)

    timer = threading.Timer(timeout_s, kill_group)
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except BaseException:
        _kill_group(proc.pid)
        proc.wait()
        raise
    finally:
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    for r in readers:
        r.join()
    proc.stdout.close()
    proc.stderr.close()
    wall = time.monotonic() - start
    result = ClientResult(cmd, proc.returncode, (collected.get("out", ""), collected.get("err", "")), wall, None,
                          split=(usage.ru_utime, usage.ru_stime))
    result.timed_out = timed_out.is_set()
    result.deadline_s = timeout_s
    return result


def _kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the group is gone: the program and everything it started have exited
