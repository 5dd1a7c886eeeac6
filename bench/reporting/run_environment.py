"""What a result says about where and when it was measured: the machine's label (results of several machines
are kept side by side) and the facts of this run that decide whether two runs can be compared (CPU, kernel,
the netbench commit and whether its tree was dirty, the build mode, the sysctls that change loopback
results, the kernel prices measured). results/README.md documents every field; bench/reporting/compare.py warns
when two runs differ in one that changes outcomes.

    env = run_environment.environment(kernel_costs.measure_kernel_costs())
    run_environment.machine_label()                       # "linux-x86_64-2cpu"
"""

import os
import platform
import re
import subprocess
import sys
import time

from bench.base import checkout

# Kernel settings that move loopback benchmark results: autogroup decides how a server in its own session
# and its load share the cores (README: up to 2-3x in msgs/s), autocorking and the congestion control how
# small writes become segments, busy polling and the backlog how reads wait, and the page-table isolation
# (a vulnerability mitigation, not a sysctl) the price of every syscall.
SYSCTLS = [
    "kernel.sched_autogroup_enabled",
    "net.ipv4.tcp_autocorking",
    "net.ipv4.tcp_congestion_control",
    "net.ipv4.tcp_low_latency",
    "net.core.busy_poll",
    "net.core.busy_read",
    "net.core.somaxconn",
    "net.core.default_qdisc",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
]
MITIGATION_FILE = "/sys/devices/system/cpu/vulnerabilities/meltdown"


def machine_label():
    """Names the machine a result came from: results of several machines are kept side by side."""
    system = platform.system().lower()
    cores = os.cpu_count()
    return f"{system}-{platform.machine()}-{cores}cpu"


def _read(path):
    try:
        with open(path) as f:
            return " ".join(f.read().split())
    except OSError:
        return None


def sysctls():
    """The SYSCTLS this kernel has, by name (missing ones left out: another OS, an older kernel), and the
    meltdown mitigation's state as "vulnerabilities.meltdown"."""
    values = {}
    for name in SYSCTLS:
        value = _read("/proc/sys/" + name.replace(".", "/"))
        if value is not None:
            values[name] = value
    mitigation = _read(MITIGATION_FILE)
    if mitigation is not None:
        values["vulnerabilities.meltdown"] = mitigation
    return values


def build_mode(paths=None):
    """How Bazel built the programs: "opt", "dbg" or "fastbuild", read from the output folder the suite runs
    from (bazel-out/k8-opt/bin/...); None when it does not run from one (a bench started by hand builds
    with .bazelrc's default, opt, but nothing here proves it)."""
    if paths is None:
        paths = [os.environ.get("RUNFILES_DIR", ""), os.path.realpath(sys.argv[0]) if sys.argv and sys.argv[0] else ""]
    for path in paths:
        match = re.search(r"bazel-out/[^/]*?-(opt|dbg|fastbuild)(?:-[^/]*)?/bin/", path or "")
        if match:
            return match.group(1)
    return None


def _git(*args):
    try:
        return subprocess.run(["git", "-C", checkout.repo_root(), *args], capture_output=True, text=True,
                              timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def environment(kernel_costs=None):
    """Facts about this machine now; `kernel_costs` (kernel_costs.measure_kernel_costs()) are kept with them."""
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    commit = _git("rev-parse", "--short=12", "HEAD").strip()
    # Uncommitted changes to tracked files make the commit an approximation of what ran (results written by
    # the run itself are untracked or under results/data/, which does not count).
    dirty = bool(commit) and bool(_git("status", "--porcelain", "--untracked-files=no", "--", ".",
                                       ":(exclude)results/data").strip())
    try:
        cpus_allowed = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus_allowed = os.cpu_count()
    return {
        "os": platform.system(),
        "kernel": platform.release(),
        "machine": platform.machine(),
        "cpu_model": cpu,
        "cores": os.cpu_count(),
        "cpus_allowed": cpus_allowed,
        "python": platform.python_version(),
        "git_commit": commit or None,
        "git_dirty": dirty if commit else None,
        "build_mode": build_mode(),
        "sysctls": sysctls(),
        "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **({"kernel_costs_us": kernel_costs} if kernel_costs else {}),
    }
