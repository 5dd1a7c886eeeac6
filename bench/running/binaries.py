"""Where the programs under test come from: every one is a target of this repository, netbench's own and the
write-ups' systems in contestants/ alike, taken from the runfiles of `bazel run` or else built here with bazel.

    server = binaries.bazel_binary("//echo:server")
    spammer = binaries.program_path("//contestants/go:spammer")   # FileNotFoundError with the build's own words
"""

import os
import subprocess
import sys

from bench.base import checkout
from bench.base import progress

WORKSPACE_NAME = "netbench"


def _runfiles_roots():
    roots = []
    for var in ("RUNFILES_DIR", "TEST_SRCDIR"):
        if os.environ.get(var):
            roots.append(os.environ[var])
    argv0 = os.path.realpath(sys.argv[0])
    for candidate in (sys.argv[0] + ".runfiles", argv0 + ".runfiles"):
        if os.path.isdir(candidate):
            roots.append(candidate)
    return roots


_built = {}


def bazel_binary(label):
    """Path of a netbench binary: from runfiles under `bazel run` (Bazel's RUNFILES_DIR or TEST_SRCDIR), else
    built with bazel here."""
    package, _, name = label.lstrip("/").partition(":")
    relative = os.path.join(package, name)
    for root in _runfiles_roots():
        path = os.path.join(root, WORKSPACE_NAME, relative)
        if os.path.exists(path):
            return path
    if label in _built:
        return _built[label]
    bazel = ["bazel"]
    progress.log(f"building {label} ...")
    subprocess.run(bazel + ["build", "--symlink_prefix=/", label], cwd=checkout.repo_root(), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    bin_dir = subprocess.run(bazel + ["info", "--symlink_prefix=/", "bazel-bin"], cwd=checkout.repo_root(),
                             check=True, capture_output=True, text=True).stdout.strip()
    path = os.path.join(bin_dir, relative)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{label} built but {path} is missing")
    _built[label] = path
    return path


def program_path(token):
    """The local path of a registry token's program ("//pkg:target"); FileNotFoundError saying why when it cannot
    be had: the build's last lines, which name the missing package or the compile error."""
    if not token.startswith("//"):
        raise FileNotFoundError(f"'{token}' is not a program of this repository (//pkg:target)")
    try:
        return bazel_binary(token)
    except subprocess.CalledProcessError as error:
        lines = [line for line in (error.stderr or "").splitlines() if line.strip() and not line.startswith("INFO:")
                 and not line.startswith("Loading:") and not line.startswith("Analyzing:")]
        raise FileNotFoundError(f"bazel build {token} failed:\n  " + "\n  ".join(lines[-8:])) from error


def available(label):
    """program_path(label), or None after saying why it cannot be had (for benches that go on without it)."""
    try:
        return program_path(label)
    except FileNotFoundError as error:
        progress.log(f"note: {error}")
        return None
