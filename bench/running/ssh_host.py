"""One remote machine reached through OpenSSH, the way the suite runs contestants elsewhere: the
`ssh` client with BatchMode (never a prompt), a ConnectTimeout, and one ControlMaster connection per host, so
that every later command (start a program, read /proc, copy a binary) rides the same authenticated connection
instead of paying a handshake. No agent of netbench's own runs there; the remote side needs sshd, a POSIX sh
and coreutils.

    host = ssh_host.SshHost("bench@10.0.0.12", control_dir, ssh_config=None)
    host.open()                                    # RemoteError naming the host: unreachable, key refused
    host.run(["uname", "-sm"]).stdout              # "Linux x86_64\n"
    proc = host.popen(["sh", "-c", script, ...])   # a long-running command; its stdin/stdout/stderr are pipes
    host.close()                                   # the master connection exits

A failure to connect is classified from ssh's own message: the host is unreachable (refused, timed out, no
route, unknown name), it refused the key, or its host key is not the one known.
"""

import os
import shlex
import subprocess

CONNECT_TIMEOUT_S = 10
# A master whose suite died exits on its own once no session has used it for this long.
CONTROL_PERSIST = "10m"


class RemoteError(RuntimeError):
    """A remote host that cannot be used; the message starts with the host's name."""

    def __init__(self, host, message):
        super().__init__(f"{host}: {message}")
        self.host = host
        self.hosts = [host]

    @classmethod
    def of_several(cls, errors):
        """One error for several hosts' errors, each message kept as it was."""
        errors = list(errors)
        if len(errors) == 1:
            return errors[0]
        combined = cls(", ".join(e.host for e in errors), "")
        combined.args = ("; ".join(str(e) for e in errors),)
        combined.hosts = [e.host for e in errors]
        return combined


def split_target(target):
    """(user or None, host) of `[USER@]HOST`."""
    user, at, host = target.rpartition("@")
    return (user or None) if at else None, host


def classify_ssh_failure(stderr, returncode):
    """Why ssh could not connect, in words, from its last message."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    last = lines[-1] if lines else f"ssh exited {returncode} and printed nothing"
    text = stderr.lower()
    if "permission denied" in text:
        return f"refused the key ({last}); BatchMode is on, so only a key the host accepts can log in"
    if "host key verification failed" in text or "remote host identification has changed" in text:
        return f"its host key is not in known_hosts or has changed ({last}); connect once by hand to check it"
    for words in ("connection refused", "timed out", "no route to host", "network is unreachable",
                  "could not resolve hostname", "name or service not known", "connection closed",
                  "connection reset"):
        if words in text:
            return f"unreachable ({last})"
    return f"ssh failed, exit {returncode} ({last})"


class SshHost:
    """A host (`[USER@]HOST`, or a Host alias of the ssh config) and its ControlMaster connection."""

    def __init__(self, target, control_dir, ssh_config=None, connect_timeout_s=CONNECT_TIMEOUT_S, index=0):
        self.target = target
        self.user, self.host = split_target(target)
        self.ssh_config = ssh_config
        self.connect_timeout_s = connect_timeout_s
        # A short path: a Unix socket's name is limited to 107 bytes.
        self.control_path = os.path.join(control_dir, f"c{index}")
        self.log_path = os.path.join(control_dir, f"c{index}.log")
        self.opened = False

    def _ssh(self, *options):
        argv = ["ssh"] + (["-F", self.ssh_config] if self.ssh_config else [])
        argv += ["-o", "BatchMode=yes", "-o", f"ConnectTimeout={self.connect_timeout_s}",
                 "-o", f"ControlPath={self.control_path}", "-o", "ServerAliveInterval=5",
                 "-o", "ServerAliveCountMax=6", "-o", "ForwardAgent=no", "-o", "ClearAllForwardings=yes"]
        return argv + list(options)

    def open(self):
        """Connects and leaves the master in the background (ssh -f), or raises RemoteError saying why not."""
        # The master's stderr goes to a file: a pipe would stay open in the backgrounded master.
        with open(self.log_path, "w") as log:
            result = subprocess.run(self._ssh("-o", "ControlMaster=yes", "-o", f"ControlPersist={CONTROL_PERSIST}",
                                              "-f", "-N", self.target),
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                                    timeout=self.connect_timeout_s * 3 + 30)
        with open(self.log_path) as log:
            stderr = log.read()
        if result.returncode != 0:
            raise RemoteError(self.target, classify_ssh_failure(stderr, result.returncode))
        self.opened = True

    @staticmethod
    def command_line(argv):
        """The command string the remote login shell runs: every word quoted."""
        return " ".join(shlex.quote(str(a)) for a in argv)

    def argv_for(self, argv):
        """The local ssh command line that runs `argv` on the host over the master connection."""
        return self._ssh("-o", "ControlMaster=no", self.target, "--", self.command_line(argv))

    def run(self, argv, input=None, timeout_s=60, check=True):
        """Runs `argv` there to completion; a CompletedProcess (text). With `check`, a non-zero exit raises
        RemoteError with its last lines."""
        try:
            result = subprocess.run(self.argv_for(argv), input=input, capture_output=True, text=True,
                                    timeout=timeout_s, stdin=None if input is not None else subprocess.DEVNULL)
        except subprocess.TimeoutExpired as error:
            raise RemoteError(self.target, f"`{self.command_line(argv)}` took over {timeout_s} s") from error
        if check and result.returncode != 0:
            detail = (result.stderr.strip() or result.stdout.strip()).splitlines()[-3:]
            if result.returncode == 255:
                raise RemoteError(self.target, "the connection failed: " + classify_ssh_failure(result.stderr, 255))
            raise RemoteError(self.target, f"`{self.command_line(argv)}` exited {result.returncode}: "
                              + " / ".join(detail))
        return result

    def send_file(self, local_path, remote_path, mode="755"):
        """Copies a local file there through the master (cat into a temporary name, then rename)."""
        directory = os.path.dirname(remote_path) or "."
        temporary = f"{remote_path}.partial.{os.getpid()}"
        script = (f"mkdir -p {shlex.quote(directory)} && cat > {shlex.quote(temporary)} && "
                  f"chmod {mode} {shlex.quote(temporary)} && mv -f {shlex.quote(temporary)} {shlex.quote(remote_path)}")
        with open(local_path, "rb") as f:
            result = subprocess.run(self.argv_for(["sh", "-c", script]), stdin=f, capture_output=True, timeout=600)
        if result.returncode != 0:
            raise RemoteError(self.target, f"copying {local_path} to {remote_path} failed: "
                              + result.stderr.decode(errors="replace").strip())

    def popen(self, argv, stderr=subprocess.PIPE):
        """Starts `argv` there and returns the local ssh process, its stdin, stdout and stderr as text pipes."""
        return subprocess.Popen(self.argv_for(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                text=True, bufsize=1)

    def close(self):
        """Ends the master connection (its sessions have ended: every program is stopped first)."""
        if not self.opened:
            return
        subprocess.run(self._ssh("-O", "exit", self.target), stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=30)
        self.opened = False
