"""CPU time of live processes and the members of a process tree, read from /proc (clock-tick resolution).

    before = process_cpu.cpu_seconds_of(pid)
    ...
    server_cpu = process_cpu.cpu_seconds_of(pid) - before
    workers = process_cpu.descendants(nginx_master_pid)
"""

import os

_CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_split_of(pid):
    """(utime, stime) of a live process, in seconds, from /proc/PID/stat (clock-tick resolution)."""
    with open(f"/proc/{pid}/stat") as f:
        line = f.read()
    fields = line[line.rindex(")") + 2:].split()
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return int(fields[11]) / _CLK_TCK, int(fields[12]) / _CLK_TCK


def cpu_seconds_of(pid):
    """utime + stime of a live process, in seconds."""
    return sum(cpu_split_of(pid))


def descendants(pid):
    """`pid` and every live process below it (a shell's children, nginx's workers), from /proc."""
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
