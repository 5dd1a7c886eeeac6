"""Interop of netbench's WebSocket server and client with Debian's python3-websockets.

Run by interop_test.sh (an sh_test) as: /usr/bin/python3 interop_test.py SERVER_BINARY CLIENT_BINARY MODEL...
1. For each server model given (those the build has): the Python client (py_client_peer.py) against
   //websocket:server.
2. //websocket:client in echo and sink modes, on threads and event loops, against the Python server.
Everything runs on loopback with kernel-chosen ports; each step has a timeout.
"""
import os
import re
import subprocess
import sys

from common import server_lines

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"


def start(cmd):
    """Starts `cmd` and returns (the process, its port) once it prints its ready line."""
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in proc.stdout:  # blocks until the program prints; no polling
        lines.append(line)
        found = server_lines.parse(line)
        if found:
            return proc, found[1]
    proc.wait()
    sys.exit(f"FAIL: {cmd[0]} exited before it was ready:\n{''.join(lines)}")


def run(cmd, what):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        sys.exit(f"FAIL: {what}: timed out")
    if out.returncode != 0:
        sys.exit(f"FAIL: {what} (exit {out.returncode}):\n{out.stdout}\n{out.stderr}")
    print(f"PASS: {what}", flush=True)
    return out.stdout


def main():
    server_bin, client_bin, models = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not models:
        sys.exit("FAIL: no server models given")

    for model in models:
        # The peer echoes 1 MiB messages, which echo mode holds whole: room for them in the input bound
        # (256 KiB by default, past which a message gets 1009; server_handler_test covers that).
        proc, port = start([server_bin, "--port=0", f"--model={model}", "--threads=2",
                            "--max_pending_input_kib=2048"])
        url = f"ws://127.0.0.1:{port}/echo"
        try:
            out = run([PYTHON, os.path.join(HERE, "py_client_peer.py"), url],
                      f"python client -> netbench server --model={model}")
            for check in ("text", "binary 1048576", "fragmented", "ping", "close 4000"):
                if f"ok {check}" not in out:
                    sys.exit(f"FAIL: check '{check}' missing from:\n{out}")
        finally:
            proc.send_signal(2)
            proc.wait(timeout=30)

    proc, port = start([PYTHON, os.path.join(HERE, "py_server_peer.py")])
    url = f"ws://127.0.0.1:{port}/echo"
    expected = 0
    try:
        for args in (["--mode=echo", "--clients=2", "--messages=500", "--pipeline=4"],
                     ["--mode=echo", "--clients=1", "--messages=20", "--size=70000", "--binary"],
                     # The last model built (epoll on Linux), with event loops on two threads.
                     ["--mode=echo", f"--model={models[-1]}", "--threads=2", "--clients=3",
                      "--messages=200"],
                     ["--mode=sink", "--clients=2", "--messages=1000"]):
            n = int(re.search(r"--clients=(\d+)", " ".join(args)).group(1)) * \
                int(re.search(r"--messages=(\d+)", " ".join(args)).group(1))
            expected += n
            out = run([client_bin, f"--url={url}", "--progress=false", "--timeout=30s"] + args,
                      "netbench client -> python server " + " ".join(args))
            if f"Sent {n} in" not in out:
                sys.exit(f"FAIL: expected 'Sent {n} in' in:\n{out}")
    finally:
        proc.stdin.close()
        rest = proc.stdout.read()
        proc.wait(timeout=30)
    m = re.search(r"messages (\d+)", rest)
    if not m or int(m.group(1)) != expected:
        sys.exit(f"FAIL: the python server received {m and m.group(1)} messages, want {expected}")
    print(f"PASS: python server received all {expected} messages")


if __name__ == "__main__":
    main()
