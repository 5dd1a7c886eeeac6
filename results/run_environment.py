"""What a result says about where and when it was measured: the machine's label (results of several machines
are kept side by side) and the facts of this run (CPU, kernel, commit, time, the kernel prices measured).

    env = run_environment.environment(kernel_costs.measure_kernel_costs())
    run_environment.machine_label()                       # "linux-x86_64-2cpu"
"""

import os
import platform
import subprocess
import time

import checkout


def machine_label():
    """Names the machine a result came from: results of several machines are kept side by side."""
    if os.environ.get("NETBENCH_RESULTS_LABEL"):
        return os.environ["NETBENCH_RESULTS_LABEL"]
    system = platform.system().lower()
    cores = os.cpu_count()
    return f"{system}-{platform.machine()}-{cores}cpu"


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
    commit = subprocess.run(["git", "-C", checkout.repo_root(), "rev-parse", "--short=12", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    return {
        "os": platform.system(),
        "kernel": platform.release(),
        "machine": platform.machine(),
        "cpu_model": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "git_commit": commit or None,
        "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **({"kernel_costs_us": kernel_costs} if kernel_costs else {}),
    }
