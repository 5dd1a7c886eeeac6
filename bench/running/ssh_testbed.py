"""Test hosts reached over SSH, on this machine (tests only; needs root): network namespaces made by
bench/running/testnet.sh, each running Debian's sshd in the foreground on the namespace's address, with host keys and
a client key generated for the test in a temporary folder, and an ssh config that trusts exactly those keys.

    with ssh_testbed.Testbed("nbssh", hosts=3, sshd_on=3) as bed:
        bed.addresses            # ["10.x.y.11", "10.x.y.12", "10.x.y.13"]
        bed.ssh_config           # pass as ssh -F (the suite's --ssh-config)
        bed.refused_ssh_config   # the same hosts with a key none of them accepts
        bed.pids_in(0)           # PIDs running in the first namespace (`ip netns pids`)
        bed.sshd_pids[0]

Hosts past `sshd_on` have no sshd: connecting to them is refused. Everything is removed on exit.

Run as a program, it brings the testbed up around one command (the suite over "remote" hosts on this
machine), filling {0}, {1}, ... with the hosts' addresses and {ssh_config} with the config's path:

    /usr/bin/python3 -m bench.running.ssh_testbed --hosts=3 -- bazel run //:bench -- --only=echo \
        --server-host={0} --client-hosts={1},{2} --ssh-config={ssh_config} --compare-loopback
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from bench.base import checkout

SSHD = "/usr/sbin/sshd"


def unavailable():
    """None when the testbed can be made here, else why not (for skipTest)."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, sshd); CI runs as root"
    for program in (SSHD, shutil.which("ssh"), shutil.which("ssh-keygen"), shutil.which("ip")):
        if not program or not os.path.exists(program):
            return "needs openssh-server, openssh-client and iproute2 (tools/bootstrap.sh)"
    return None


def _testnet():
    return os.path.join(checkout.repo_root(), "bench", "running", "testnet.sh")


def _keygen(path):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "netbench-test", "-f", path], check=True)


class Testbed:
    def __init__(self, name, hosts=3, sshd_on=None):
        self.name = name
        self.host_count = hosts
        self.sshd_on = hosts if sshd_on is None else sshd_on
        self.namespaces, self.addresses, self.sshds, self.sshd_pids = [], [], [], []

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="nb-sshd-")
        try:
            self._up()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _up(self):
        listed = subprocess.run([_testnet(), "up", "--name", self.name, "--hosts", str(self.host_count)],
                                check=True, capture_output=True, text=True).stdout
        for line in listed.splitlines():
            namespace, address = line.split()
            self.namespaces.append(namespace)
            self.addresses.append(address)
        host_key = os.path.join(self.dir, "host_key")
        client_key = os.path.join(self.dir, "client_key")
        other_key = os.path.join(self.dir, "other_key")
        for key in (host_key, client_key, other_key):
            _keygen(key)
        shutil.copy(client_key + ".pub", os.path.join(self.dir, "authorized_keys"))
        with open(host_key + ".pub") as f:
            host_public = " ".join(f.read().split()[:2])
        with open(os.path.join(self.dir, "known_hosts"), "w") as f:
            f.writelines(f"{address} {host_public}\n" for address in self.addresses)
        self.ssh_config = self._client_config("ssh_config", client_key)
        self.refused_ssh_config = self._client_config("refused_ssh_config", other_key)
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd's privilege separation directory
        for index in range(self.sshd_on):
            self._start_sshd(index, host_key)

    def _client_config(self, name, key):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(f"Host *\n  User root\n  IdentityFile {key}\n  IdentitiesOnly yes\n  IdentityAgent none\n"
                    f"  UserKnownHostsFile {self.dir}/known_hosts\n  GlobalKnownHostsFile /dev/null\n"
                    "  StrictHostKeyChecking yes\n  PasswordAuthentication no\n  LogLevel ERROR\n")
        return path

    def _start_sshd(self, index, host_key):
        config = os.path.join(self.dir, f"sshd_config{index}")
        with open(config, "w") as f:
            f.write(f"ListenAddress {self.addresses[index]}\nPort 22\nHostKey {host_key}\nPidFile none\n"
                    f"AuthorizedKeysFile {self.dir}/authorized_keys\n"
                    # The temporary folder's modes are not what StrictModes wants of a home directory.
                    "StrictModes no\nPermitRootLogin prohibit-password\nPubkeyAuthentication yes\n"
                    "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
                    "MaxSessions 100\nMaxStartups 100\nLogLevel INFO\n")
        sshd = subprocess.Popen(["ip", "netns", "exec", self.namespaces[index], SSHD, "-D", "-e", "-f", config],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.sshds.append(sshd)
        ready = threading.Event()
        lines = []

        def drain():
            for line in sshd.stdout:
                lines.append(line)
                if re.search(r"Server listening on", line):
                    ready.set()
            ready.set()

        threading.Thread(target=drain, daemon=True).start()
        ready.wait(30)
        if sshd.poll() is not None or not any("Server listening" in line for line in lines):
            raise RuntimeError(f"sshd in {self.namespaces[index]} did not start: {''.join(lines)[-2000:]}")
        self.sshd_pids.append(sshd.pid)

    def pids_in(self, index):
        """The PIDs in host `index`'s namespace (ip netns pids)."""
        out = subprocess.run(["ip", "netns", "pids", self.namespaces[index]], capture_output=True, text=True).stdout
        return {int(p) for p in out.split()}

    def wait_for_only(self, index, expected, timeout_s=15):
        """Host `index`'s PIDs once they are `expected` (an SSH session's process exits a moment after its
        connection closes), or as they are at `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        pids = self.pids_in(index)
        while pids != expected and time.monotonic() < deadline:
            time.sleep(0.05)
            pids = self.pids_in(index)
        return pids

    def __exit__(self, *exc):
        for sshd in self.sshds:
            if sshd.poll() is None:
                sshd.terminate()
                try:
                    sshd.wait(10)
                except subprocess.TimeoutExpired:
                    sshd.kill()
                    sshd.wait()
        subprocess.run([_testnet(), "down", "--name", self.name], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)
        return False


def main(argv):
    parser = argparse.ArgumentParser(description="Runs one command with SSH test hosts up (root).")
    parser.add_argument("--name", default="nbssh", help="the namespaces' name (bench/running/testnet.sh --name)")
    parser.add_argument("--hosts", type=int, default=3, help="test hosts, each running sshd")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...; {0} {1} ... {ssh_config}")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command after --")
    why = unavailable()
    if why:
        print(f"ssh_testbed: {why}", file=sys.stderr)
        return 1
    with Testbed(args.name, hosts=args.hosts) as bed:
        filled = [word.format(*bed.addresses, ssh_config=bed.ssh_config) for word in command]
        print("ssh_testbed: " + " ".join(filled), file=sys.stderr, flush=True)
        return subprocess.run(filled).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
