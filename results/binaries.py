"""Where the programs under test come from: netbench's own from Bazel (the runfiles of `bazel run`, else
built here on first use) and the Go reference peers from ../shared/peers (built with Debian's Go on first use).

    server = binaries.bazel_binary("//echo:server")
    spammer = binaries.peer_binary("spammer")     # None when Go or the peers are not available
"""

import os
import shutil
import subprocess
import sys

import checkout
import progress

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
    """Path of a netbench binary: from runfiles under `bazel run`, else built with bazel here.

    NETBENCH_BAZEL overrides the bazel command (e.g. "bazel --output_base=/tmp/ob")."""
    package, _, name = label.lstrip("/").partition(":")
    relative = os.path.join(package, name)
    for root in _runfiles_roots():
        path = os.path.join(root, WORKSPACE_NAME, relative)
        if os.path.exists(path):
            return path
    if label in _built:
        return _built[label]
    bazel = os.environ.get("NETBENCH_BAZEL", "bazel").split()
    progress.log(f"building {label} ...")
    subprocess.run(bazel + ["build", "--symlink_prefix=/", label], cwd=checkout.repo_root(), check=True,
                   stdout=subprocess.DEVNULL)
    bin_dir = subprocess.run(bazel + ["info", "--symlink_prefix=/", "bazel-bin"], cwd=checkout.repo_root(),
                             check=True, capture_output=True, text=True).stdout.strip()
    path = os.path.join(bin_dir, relative)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{label} built but {path} is missing")
    _built[label] = path
    return path


def peers_dir():
    return os.environ.get("NETBENCH_PEERS",
                          os.path.join(os.path.dirname(checkout.repo_root()), "shared", "peers"))


_peers_built = None


def peer_binary(name):
    """Path of a Go reference peer (echosrv, spammer, wsserver, wsclient, wsgorilla, fanout), building them
    with Debian's Go on first use; None (with a message) when Go or the peers are not available."""
    global _peers_built
    out = os.environ.get("NETBENCH_PEERS_BIN", "/tmp/peers-bin")
    path = os.path.join(out, name)
    if os.path.exists(path):
        return path
    if _peers_built is None:
        script = os.path.join(peers_dir(), "build.sh")
        if not os.path.exists(script):
            progress.log(f"note: no reference peers at {peers_dir()}; Go comparisons are skipped")
            _peers_built = False
        elif shutil.which("go") is None:
            progress.log("note: Go is not installed (tools/bootstrap.sh installs golang-go); Go comparisons are "
                         "skipped")
            _peers_built = False
        else:
            progress.log("building the Go reference peers ...")
            env = dict(os.environ, OUT=out)
            result = subprocess.run(["sh", script], env=env, capture_output=True, text=True)
            _peers_built = result.returncode == 0
            if not _peers_built:
                progress.log(f"note: building the Go peers failed; Go comparisons are skipped:\n{result.stderr}")
    return path if _peers_built and os.path.exists(path) else None


def program_path(token):
    """The local path of a registry token's program: "peer:NAME" (a Go peer) or "//pkg:target" (netbench's);
    FileNotFoundError saying why when it is not available."""
    if token.startswith("peer:"):
        path = peer_binary(token[len("peer:"):])
        if path is None:
            raise FileNotFoundError(f"the Go peer {token[len('peer:'):]} is not available (needs golang-go: "
                                    "tools/bootstrap.sh)")
        return path
    return bazel_binary(token)
