"""The noise reading (bench/running/noise.py) of a server on another host, read over that host's SSH
connection: the same fields as a local run's, every one of them the server's host's, not this machine's.

    probe = remote_noise.RemoteProbe(there, server.pid)   # there: the host's ssh.SshExecutor
    result = clients.run_client(...)
    row["noise"] = probe.finish()                         # None where the host could not be read

Each end of the run is one SSH command (SCRIPT): the host's clock ticks per second (getconf CLK_TCK: the unit
of its /proc/stat) and its /proc/stat, then the status and sched files of every thread of the server's process
tree, each thread's after a line `netbench-task PID TID`. The tree is followed through the threads'
/proc/PID/task/TID/children (a kernel without that file gives the server's own threads only). Parsing is
noise.py's, on the text that came back (parse_output).

  steal, busy_cpu_s, other_cpu_share, cpus   the host's /proc/stat, in the host's clock ticks (its CLK_TCK)
  server_cpu_s     the delta of the executor's tree_cpu_seconds (netbench's reader there: the scheduler's
                   clock), None where the reader cannot run there, it could not be read, or the server ended
  server           switches, migrations, threads and threads_exited, as noise.switches gives them
  other_cpu_s      busy - server, at least 0: everything else on the host, its sshd serving the suite
                   included, and the clients where they run there too
  client_cpu_s, suite_cpu_s, client   None: the suite and its clients' reaping are not on that host
  wall_s           this machine's clock, from the end of the first reading to the end of the second
"""

import time

from bench.running import noise
from bench.running import ssh_host

TASK = "netbench-task"
# $1: the server's PID. One generation of the process tree per pass: `level` holds its PIDs.
SCRIPT = r"""
getconf CLK_TCK && cat /proc/stat || exit 1
level=$1
while [ -n "$level" ]; do
  next=
  for pid in $level; do
    for task in /proc/"$pid"/task/*; do
      [ -r "$task/status" ] || continue
      echo "netbench-task $pid ${task##*/}"
      cat "$task/status" "$task/sched" 2>/dev/null
      next="$next $(cat "$task/children" 2>/dev/null)"
    done
  done
  level=$(echo $next)
done
"""


def parse_output(text):
    """(the host's ticks per second, noise.parse_stat of its /proc/stat, {(pid, tid): noise.parse_thread}) of
    SCRIPT's output; ValueError where it does not start with those two. A thread whose files were gone before
    they were read is left out, as locally."""
    ticks_per_s, _, text = text.partition("\n")
    sections = text.split("\n" + TASK + " ")
    ticks = noise.parse_stat(sections[0])
    threads = {}
    for section in sections[1:]:
        header, _, body = section.partition("\n")
        try:
            pid, tid = (int(word) for word in header.split())
        except ValueError:
            continue
        counted = noise.parse_thread(body)
        if counted is not None:
            threads[(pid, tid)] = counted
    return int(ticks_per_s), ticks, threads


class RemoteProbe:
    """One run's noise on the host of `there` (an ssh.SshExecutor: its `ssh` connection and `tree_cpu_seconds`)
    for the server whose PID there is `server_pid`: construct it just before the clients start, call finish()
    once they have ended. A reading the host does not give (the connection failed, a command timed out) makes
    finish() return None rather than stop the run."""

    def __init__(self, there, server_pid, timeout_s=30):
        self._there = there
        self._server_pid = server_pid
        self._timeout_s = timeout_s
        # The CPU first and /proc/stat last, and the reverse at the end, as noise.Probe does: the server's
        # CPU window holds the host's, so busy - server does not count the server's CPU between them as other.
        self._server_cpu = self._cpu()
        self._before = self._read()
        self._started = time.monotonic()

    def _read(self):
        """parse_output of SCRIPT run there, or None."""
        try:
            result = self._there.ssh.run(["sh", "-c", SCRIPT, "netbench-noise", str(self._server_pid)],
                                         check=False, timeout_s=self._timeout_s)
            return parse_output(result.stdout)
        except (ssh_host.RemoteError, ValueError):
            return None

    def _cpu(self):
        try:
            return self._there.tree_cpu_seconds(self._server_pid)
        except (ssh_host.RemoteError, ValueError):
            return None

    def finish(self):
        """The deltas since the probe was made, as the row's `noise` (fields in the module's docstring), or
        None where either reading failed."""
        after = self._read()
        wall_s = time.monotonic() - self._started
        server_cpu = self._cpu()
        if self._before is None or after is None:
            return None
        (_, ticks_before, threads_before), (ticks_per_s, ticks_after, threads_after) = self._before, after
        live = bool(threads_after)  # no thread left: the server ended, and its tree's CPU is not its own
        cpu = server_cpu - self._server_cpu if live and None not in (server_cpu, self._server_cpu) else None
        return noise.reading(ticks_before, ticks_after, ticks_per_s, wall_s, {
            "server_cpu_s": cpu, "server": noise.switches(threads_before, threads_after) if live else None})
