"""CPU time of live processes, from the kernel's scheduler clock: nanoseconds, every thread, exited threads
included. The one place the suite reads another process's CPU time on this machine (the write-ups' runner,
contest.py, and the detail scenarios alike); nothing reads the 10 ms ticks of /proc/PID/stat.

    before = process_cpu.cpu_seconds_of(pid)
    ...
    server_cpu = process_cpu.cpu_seconds_of(pid) - before
    nginx = process_cpu.tree_cpu_seconds(master_pid)     # a daemon with its workers
"""

import os
import time


def cpu_seconds_of(pid):
    """A process's CPU time so far (user + system, every thread, exited ones included), in seconds: the clock
    id that clock_getcpuclockid(3) would return for `pid`. The kernel gives a live process's user/system
    split only in clock ticks, so the suite reports the whole, exactly."""
    return time.clock_gettime(((~pid) << 3) | 2)


def tree_cpu_seconds(pid):
    """CPU seconds of `pid` and every live process below it (a shell's children, nginx's workers)."""
    total = 0.0
    for member in descendants(pid):
        try:
            total += cpu_seconds_of(member)
        except OSError:  # exited meanwhile
            pass
    return total


def descendants(pid):
    """`pid` and every live process below it, from each process's parent in /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += children.get(current, [])
    return found
