"""A program run on a remote host over its SSH connection (bench/running/ssh_host.py), so that it can be measured
and is sure to stop: a small sh script there starts it in the background, says its PID, optionally waits
for the suite's "go" (a fleet's common start), and watches its own standard input, which is the SSH channel:
when the suite closes it, or the suite or the connection dies, the program gets SIGINT. When the program
exits, the script prints its exit status and exits too. The script measures nothing: a program's CPU time
comes from netbench's reader, which the caller puts in front of it (bench/running/ssh.py).

    program = remote_program.RemoteProgram(host, argv, env={"GOMAXPROCS": "2"}, merge_output=True)
    pid = program.wait_started(timeout_s=30)       # RemoteError when it could not start
    program.release()                             # with barrier=True: start now
    program.wait(timeout_s=60)                    # exit status; False when it is still running
    program.stop()                                # SIGINT, then SIGKILL through the master; nothing is left

The script's own lines go to stderr and start with "netbench-remote-"; the program's output is not touched.
"""

import threading

from bench.running import ssh_host

MARKER = "netbench-remote-"
# $1: --barrier or --now; $2: --merge (the program's stderr into its stdout) or --split; then the program.
SCRIPT = r"""
exec 3<&0 </dev/null
barrier=$1 merge=$2
shift 2
if [ "$barrier" = --barrier ]; then
  echo "netbench-remote-waiting" >&2
  read -r _ <&3 || { echo "netbench-remote-exit 125 released by nobody" >&2; exit 125; }
fi
if [ "$merge" = --merge ]; then "$@" 2>&1 & else "$@" & fi
pid=$!
echo "netbench-remote-pid $pid" >&2
{ while read -r _ <&3; do :; done; kill -INT "$pid"; } 2>/dev/null &
watchdog=$!
wait "$pid"
code=$?
kill "$watchdog" 2>/dev/null
echo "netbench-remote-exit $code" >&2
exit "$code"
"""


class RemoteProgram:
    def __init__(self, host, argv, env=None, merge_output=False, barrier=False, on_line=None):
        self.host = host
        self.argv = list(argv)
        environment = [f"{k}={v}" for k, v in (env or {}).items()]
        command = (["env"] + environment if environment else []) + self.argv
        self.proc = host.popen(["sh", "-c", SCRIPT, "netbench-remote", "--barrier" if barrier else "--now",
                                "--merge" if merge_output else "--split"] + command)
        self.pid = None
        self.exit_code = None
        self.cpu_nanos = None  # where it ran under the CPU reader's --run (bench/running/ssh.py)
        self._stdout, self._stderr = [], []
        self._on_line = on_line
        self._started = threading.Event()  # the PID is known, or the session ended
        self._waiting = threading.Event()  # waiting for release (barrier), or the session ended
        self._readers = [threading.Thread(target=self._read_stdout, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read_stdout(self):
        for line in self.proc.stdout:
            self._stdout.append(line)
            if self._on_line:
                self._on_line(line)

    def _read_stderr(self):
        for line in self.proc.stderr:
            if line.startswith(MARKER + "waiting"):
                self._waiting.set()
            elif line.startswith(MARKER + "pid "):
                self.pid = int(line.split()[1])
                self._started.set()
            elif line.startswith(MARKER + "cpu-ns "):
                self.cpu_nanos = int(line.split()[1])
            elif line.startswith(MARKER + "exit "):
                self.exit_code = int(line.split()[1])
            else:
                self._stderr.append(line)
        self._waiting.set()
        self._started.set()

    def stdout(self):
        return "".join(self._stdout)

    def stderr(self):
        return "".join(self._stderr)

    def running(self):
        return self.proc.poll() is None

    def wait_waiting(self, timeout_s):
        """True once the script waits for release(); False when the session ended first (see failure())."""
        self._waiting.wait(timeout_s)
        return self.running() and self._waiting.is_set()

    def release(self):
        """Lets a barrier=True program start (a line on the channel)."""
        try:
            self.proc.stdin.write("go\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def wait_started(self, timeout_s):
        """The program's remote PID once it runs; None when the session ended or timed out before."""
        self._started.wait(timeout_s)
        return self.pid

    def wait(self, timeout_s):
        """Waits for the session to end; its exit status (ssh's: the program's, or 255 for a lost connection),
        or None on timeout."""
        try:
            code = self.proc.wait(timeout=timeout_s)
        except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired
            return None
        for reader in self._readers:
            reader.join(timeout=5)
        return code

    def failure(self):
        """What went wrong, in words, for a session that ended without a program or an exit marker."""
        text = self.stderr().strip()
        if self.proc.returncode == 255 and self.exit_code is None:
            return "the connection failed: " + ssh_host.classify_ssh_failure(text, 255)
        return text.splitlines()[-1] if text else f"exited {self.proc.returncode}"

    def stop(self, grace_s=10):
        """Stops the program and waits until it and the script are gone: the channel closes (the script
        sends SIGINT), then, after `grace_s`, SIGKILL by PID through the master, then the local ssh."""
        if self.running():
            try:
                self.proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass
            if self.wait(grace_s) is None and self.pid is not None:
                try:
                    self.host.run(["kill", "-KILL", str(self.pid)], check=False, timeout_s=30)
                except ssh_host.RemoteError:
                    pass
            if self.wait(grace_s) is None:
                self.proc.kill()
                self.proc.wait()
        for reader in self._readers:
            reader.join(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except (BrokenPipeError, OSError):
                pass
        return self.proc.returncode

