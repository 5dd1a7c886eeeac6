"""A client or one-shot program run to completion as a real process: its output, exit status, wall time and
CPU time (wait4's rusage of the whole process, children it waited for included).

    result = client_process.run_client([binary, "--benchmark_format=json"], timeout_s=120).check()
    result.stdout, result.cpu_seconds, result.system_seconds, result.wall_s
"""

import os
import subprocess
import threading
import time


class ClientResult:
    def __init__(self, cmd, returncode, stdout, stderr, user_seconds, system_seconds, wall_s):
        self.cmd = cmd
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.user_seconds = user_seconds
        self.system_seconds = system_seconds  # the kernel's share: syscalls, loopback TCP, wakeups
        self.cpu_seconds = user_seconds + system_seconds
        self.wall_s = wall_s
        self.tcp_segments = None  # segments sent meanwhile, where the runner counted them (measured_run.py)

    def check(self):
        if self.returncode != 0:
            raise RuntimeError(f"{' '.join(self.cmd)} exited {self.returncode}:\n{self.stdout[-2000:]}\n"
                               f"{self.stderr[-2000:]}")
        return self


def run_client(cmd, timeout_s, env=None, cwd=None, preexec=None):
    """Runs `cmd` to completion (killed after timeout_s) and returns its output and CPU time (wait4's rusage:
    its user/system split comes from ticks, but their sum is the scheduler's exact run time, children that
    it waited for included). `preexec` runs in the child before exec (CPU affinity for --pin)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd,
                            preexec_fn=preexec)
    collected = {}

    def drain(stream, key):
        collected[key] = stream.read()

    readers = [threading.Thread(target=drain, args=(proc.stdout, "out")),
               threading.Thread(target=drain, args=(proc.stderr, "err"))]
    for r in readers:
        r.start()
    timer = threading.Timer(timeout_s, proc.kill)
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    for r in readers:
        r.join()
    proc.stdout.close()
    proc.stderr.close()
    wall = time.monotonic() - start
    return ClientResult(cmd, proc.returncode, collected.get("out", ""), collected.get("err", ""),
                        usage.ru_utime, usage.ru_stime, wall)
