"""Soak: every server in every model under a bounded mixed load, sampled every 10 s.

  tools/soak.sh [--servers=echo,websocket,origin] [--models=threads,poll,epoll,uring] [--minutes=5] [--out=DIR]
  /usr/bin/python3 tools/soak.py --bin-dir=bazel-bin [same options]

--models defaults to every model this build and machine run (each server's `--check` says: the portable
libc++ build has no epoll and no uring, and a kernel or seccomp filter can refuse io_uring); a model named
explicitly must run. The well-behaved clients use epoll where it is built, else poll.

For each server x model it starts the built server on 127.0.0.1, port 0, and for --minutes (or --seconds)
runs at once, each at a bounded rate:
  well-behaved  netbench's own clients, back to back, each run short and bounded (count and timeout), with
                --json, so every run's p99 and errors are read from its report:
                  echo       stream (open loop, --rate) and pingpong (--messages)
                  websocket  echo one in flight (ping-pong) and echo --pipeline=32 (streaming)
                  origin     fanout --keepalive, 2 in flight (ping-pong), and fanout 8 in flight with a
                             connection per request (streaming bodies, churn of its own)
  churn         connect and close, --churn-rate a second (default 200), half after sending a valid request
                or handshake, a quarter closed with RST (SO_LINGER 0)
  slow          peers that send a request or message a byte at a time (one byte per 200 ms) and read slowly
  non-reading   peers that write until the socket blocks (up to 8 MiB) and never read, held 15 s
  oversize      echo: one 4 MiB write, then close; websocket: a frame announcing 1 GiB (over
                --max_message_size); origin: a 100 KiB request head (over the 64 KiB limit)
  malformed     echo: random bytes; websocket: a handshake without a key, an unmasked frame, a reserved
                opcode, invalid UTF-8; origin: a garbage request line, a bad version, a bad Content-Length
Every 10 s (--sample-seconds) it samples the server's RSS (VmRSS) and threads (/proc/PID/status), its
descriptors (/proc/PID/fd), and the well-behaved clients' p99 (the largest p99 of the runs that ended in
that window) and errors. When the load stops it waits (at most --settle-seconds) for the server to settle,
then takes the end sample.

Passes when:
  - no well-behaved client run saw an error (a non-zero exit, or a count named errors.*, mismatch* or
    failed* above 0), and every window had runs;
  - descriptors and threads at the end equal those at the start (the load's connections are all closed);
  - RSS at the end is within the bounds' allowance of the start:
        allowance = peak connections x (max_pending_input_kib + max_pending_output_kib) KiB
    where the server's per-connection bounds are the flags this tool passes it (--max-pending-input-kib,
    --max-pending-output-kib, the servers' defaults 256 and 1024), and peak connections is the most the
    load can hold open at once by construction (the clients' connections plus the caps on every kind of
    peer, printed at the start). What stays resident after every connection has closed (allocator caches,
    thread stacks kept for reuse) is at most what those connections could legitimately have buffered; a
    leak per connection grows with the connections made (tens of thousands), not the ones open at once:
    the result names the smallest leak per connection this run would catch (allowance / connections the
    server accepted, from its closing line), and the longer the run, the smaller it is.
The server must also stay up throughout. The result (every sample, every client run's p99 and errors,
the peers' counts, the verdict) goes to OUT/<server>-<model>.json, the chart (RSS, descriptors, p99 over
time) to OUT/<server>-<model>.svg. Exit 0 when every run passed, 1 when one failed (a line says which and
why), 2 for usage.
"""

import argparse
import asyncio
import base64
import json
import os
import random
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

SERVERS = {
    "echo": "echo/server",
    "websocket": "websocket/server",
    "origin": "httpfanout/origin",
}
CLIENTS = {
    "echo": "echo/client",
    "websocket": "websocket/client",
    "origin": "httpfanout/fanout",
}
MODELS = ("threads", "poll", "epoll", "uring")
CLIENT_MODELS = ("epoll", "poll")  # the first the build has; clients have no uring model

# The caps on the hostile peers' connections open at once (the allowance counts them).
SLOW_PEERS = 4
NON_READING_PEERS = 4
CHURN_IN_FLIGHT = 32
OVERSIZE_IN_FLIGHT = 4
MALFORMED_IN_FLIGHT = 12
OVERSIZE_PER_S = 2.0
MALFORMED_PER_S = 5.0
NON_READING_HOLD_S = 15.0
NON_READING_MAX_BYTES = 8 << 20
SLOW_BYTE_INTERVAL_S = 0.2
CLIENT_PERIOD_S = 1.0  # at most one run of each well-behaved job a second


class UsageError(Exception):
    pass


# --- Well-behaved load: netbench's own clients ---------------------------------------------------------------

def model_refusal(bin_dir, model):
    """None where every server runs `model` here, else what the first that cannot says (its --check)."""
    for path in SERVERS.values():
        result = subprocess.run([os.path.join(bin_dir, path), f"--model={model}", "--check"], capture_output=True,
                                text=True, timeout=60)
        if result.returncode != 0:
            said = (result.stderr.strip() or result.stdout.strip()).splitlines()
            return said[-1] if said else f"{path} --model={model} --check exited {result.returncode}"
    return None


def available_models(bin_dir):
    return [m for m in MODELS if model_refusal(bin_dir, m) is None]


def client_jobs(server, client, port, client_model="epoll"):
    """[(name, argv, connections)]: the well-behaved jobs, each run repeatedly; argv lacks --json."""
    if server == "echo":
        common = [client, "--host=127.0.0.1", f"--port={port}", f"--model={client_model}", "--progress=false"]
        return [
            ("stream", common + ["--mode=stream", "--clients=2", "--rate=2000", "--duration=2s",
                                 "--drain_timeout=5s", "--timeout=20s"], 2),
            ("pingpong", common + ["--mode=pingpong", "--clients=2", "--messages=2000", "--timeout=20s"], 2),
        ]
    if server == "websocket":
        common = [client, f"--url=ws://127.0.0.1:{port}/echo", f"--model={client_model}", "--progress=false",
                  "--mode=echo", "--timeout=20s"]
        return [
            ("pingpong", common + ["--clients=2", "--messages=1000"], 2),
            ("stream", common + ["--clients=1", "--pipeline=32", "--messages=5000"], 1),
        ]
    url = f"--url=http://127.0.0.1:{port}/"
    common = [client, url, f"--model={client_model}", "--repetitions=1", "--quiet", "--timeout=20s",
              "--connect_timeout=10s"]
    return [
        ("pingpong", common + ["--requests=100", "--concurrency=2", "--keepalive"], 2),
        ("stream", common + ["--requests=100", "--concurrency=8"], 8),
    ]


def read_run(report):
    """(p99 ns or None, {error key: count}) from a netbench.run/1 document."""
    errors = {key: value for key, value in report.get("counts", {}).items()
              if value and (key.startswith("errors") or key.startswith("mismatch") or key.startswith("failed"))}
    p99s = [h["percentiles"].get("99") for h in report.get("histograms", {}).values() if h.get("count")]
    p99s = [p for p in p99s if p is not None]
    return (max(p99s) if p99s else None), errors


class ClientLoop(threading.Thread):
    """Runs one well-behaved job back to back (at most one start per CLIENT_PERIOD_S) until stopped."""

    def __init__(self, name, argv, stop, started):
        super().__init__(daemon=True)
        self.job, self.argv, self.stop, self.started = name, argv, stop, started
        self.runs = []

    def run(self):
        with tempfile.TemporaryDirectory() as folder:
            report_path = os.path.join(folder, "run.json")
            while not self.stop.is_set():
                begin = time.monotonic()
                try:
                    os.unlink(report_path)
                except FileNotFoundError:
                    pass
                record = {"job": self.job, "start_s": round(begin - self.started, 3)}
                try:
                    result = subprocess.run(self.argv + [f"--json={report_path}"], capture_output=True,
                                            text=True, timeout=60)
                    record["exit"] = result.returncode
                    if os.path.exists(report_path):
                        with open(report_path) as f:
                            p99, errors = read_run(json.load(f))
                    else:
                        p99, errors = None, {"no report": 1}
                    if result.returncode != 0:
                        errors["exit"] = result.returncode
                        record["stderr"] = (result.stderr or result.stdout)[-400:]
                except subprocess.TimeoutExpired:
                    p99, errors = None, {"timeout": 1}
                    record["exit"] = None
                end = time.monotonic()
                record.update(end_s=round(end - self.started, 3), p99_ns=p99, errors=errors)
                self.runs.append(record)
                self.stop.wait(max(0.0, CLIENT_PERIOD_S - (end - begin)))


# --- Hostile peers: churn, slow, non-reading, oversize, malformed -------------------------------------------

def ws_handshake(key=True):
    lines = ["GET /echo HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket", "Connection: Upgrade",
             "Sec-WebSocket-Version: 13"]
    if key:
        lines.append("Sec-WebSocket-Key: " + base64.b64encode(os.urandom(16)).decode())
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def ws_frame(payload, opcode=1, masked=True, announce=None):
    """A final frame; announce sets the length field to a value other than the payload's."""
    length = len(payload) if announce is None else announce
    head = bytes([0x80 | opcode])
    mask_bit = 0x80 if masked else 0
    if length < 126:
        head += bytes([mask_bit | length])
    elif length < 65536:
        head += bytes([mask_bit | 126]) + struct.pack("!H", length)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", length)
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


HTTP_GET = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
ECHO_MESSAGE = struct.pack("<II", 14, 1) + b"hello, friend\n"


def valid_request(server):
    """What a well-behaved peer sends first."""
    if server == "websocket":
        return ws_handshake()
    if server == "origin":
        return HTTP_GET
    return ECHO_MESSAGE


def malformed_inputs(server):
    if server == "websocket":
        return [ws_handshake(key=False),
                ws_handshake() + ws_frame(b"unmasked", masked=False),
                ws_handshake() + ws_frame(b"reserved", opcode=3),
                ws_handshake() + ws_frame(b"\xff\xfe bad utf-8"),
                b"GET /echo HTTP/1.1\r\nHost: \x00\x01\r\n\r\n",
                b"\x16\x03\x01\x02\x00 not http at all\r\n\r\n"]
    if server == "origin":
        return [b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
                b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
                b"GET / HTTP/1.1\r\nHost x\r\n\r\n", b"\x00\x01\x02\x03\r\n\r\n",
                b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"]
    return [os.urandom(random.randint(1, 4096)) for _ in range(4)]


def oversize_input(server):
    if server == "websocket":
        return ws_handshake() + ws_frame(b"x" * 64, announce=1 << 30)
    if server == "origin":
        return b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * (100 << 10) + b"\r\n\r\n"
    return bytes(4 << 20)


class Peers:
    """The hostile peers, on one asyncio loop in a thread; counts what they did and their connections."""

    def __init__(self, server, port, churn_rate):
        self.server, self.port, self.churn_rate = server, port, churn_rate
        self.counts = {}
        self.open = 0
        self.peak_open = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._main, daemon=True)
        self.stopping = None

    @staticmethod
    def cap():
        return CHURN_IN_FLIGHT + SLOW_PEERS + NON_READING_PEERS + OVERSIZE_IN_FLIGHT + MALFORMED_IN_FLIGHT

    def count(self, key, n=1):
        self.counts[key] = self.counts.get(key, 0) + n

    def start(self):
        self.thread.start()

    def stop(self):
        self.loop.call_soon_threadsafe(self.stopping.set)
        self.thread.join(timeout=60)

    def _main(self):
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._run())
        self.loop.close()

    async def _run(self):
        self.stopping = asyncio.Event()
        tasks = [asyncio.create_task(self._paced("churn", self.churn_rate, CHURN_IN_FLIGHT, self._churn_one)),
                 asyncio.create_task(self._paced("oversize", OVERSIZE_PER_S, OVERSIZE_IN_FLIGHT,
                                                 self._oversize_one)),
                 asyncio.create_task(self._paced("malformed", MALFORMED_PER_S, MALFORMED_IN_FLIGHT,
                                                 self._malformed_one))]
        tasks += [asyncio.create_task(self._repeat("slow", self._slow_one)) for _ in range(SLOW_PEERS)]
        tasks += [asyncio.create_task(self._repeat("non-reading", self._non_reading_one))
                  for _ in range(NON_READING_PEERS)]
        await self.stopping.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _connect(self):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        self.open += 1
        self.peak_open = max(self.peak_open, self.open)
        try:
            await asyncio.wait_for(self.loop.sock_connect(sock, ("127.0.0.1", self.port)), 10)
        except BaseException:
            self._close(sock)
            raise
        return sock

    def _close(self, sock, reset=False):
        if reset:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
        self.open -= 1

    async def _paced(self, kind, rate, cap, one):
        """Starts `one` `rate` times a second, at most `cap` at once (a start due while at the cap is skipped
        and counted)."""
        in_flight = set()
        interval = 1.0 / rate
        due = self.loop.time()
        try:
            while True:
                due += interval
                if len(in_flight) < cap:
                    task = asyncio.create_task(self._guarded(kind, one))
                    in_flight.add(task)
                    task.add_done_callback(in_flight.discard)
                else:
                    self.count(f"{kind}.skipped_at_cap")
                await asyncio.sleep(max(0.0, due - self.loop.time()))
        finally:
            for task in list(in_flight):
                task.cancel()
            await asyncio.gather(*in_flight, return_exceptions=True)

    async def _repeat(self, kind, one):
        while True:
            await self._guarded(kind, one)
            await asyncio.sleep(0.1)

    async def _guarded(self, kind, one):
        try:
            await one()
            self.count(f"{kind}.done")
        except asyncio.CancelledError:
            raise
        except (OSError, asyncio.TimeoutError) as e:
            # What the server does to a hostile peer (reset, close, refuse) is its right: counted, not failed.
            self.count(f"{kind}.{type(e).__name__}")

    async def _drain_some(self, sock, limit, timeout):
        """Reads until EOF, `limit` bytes or `timeout`; returns the bytes read."""
        got = b""
        try:
            while len(got) < limit:
                chunk = await asyncio.wait_for(self.loop.sock_recv(sock, 65536), timeout)
                if not chunk:
                    break
                got += chunk
        except asyncio.TimeoutError:
            pass
        return got

    async def _churn_one(self):
        sock = await self._connect()
        style = random.random()
        try:
            if style < 0.5:
                await self.loop.sock_sendall(sock, valid_request(self.server))
        finally:
            self._close(sock, reset=style >= 0.75)

    async def _oversize_one(self):
        sock = await self._connect()
        try:
            data = oversize_input(self.server)
            # Whatever the server takes before it closes or stops reading; then read its answer briefly.
            try:
                await asyncio.wait_for(self.loop.sock_sendall(sock, data), 5)
            except asyncio.TimeoutError:
                self.count("oversize.send_blocked")
            answer = await self._drain_some(sock, 1 << 20, 2)
            if self.server == "origin" and answer.startswith(b"HTTP/1.1 431"):
                self.count("oversize.answered_431")
            if self.server == "websocket" and b"\x88" in answer[:400] and b"\x03\xf1" in answer:
                self.count("oversize.closed_1009")
        finally:
            self._close(sock)

    async def _malformed_one(self):
        sock = await self._connect()
        try:
            await self.loop.sock_sendall(sock, random.choice(malformed_inputs(self.server)))
            answer = await self._drain_some(sock, 1 << 16, 2)
            if answer.startswith(b"HTTP/1.1 4"):
                self.count("malformed.answered_4xx")
        finally:
            self._close(sock)

    async def _slow_one(self):
        """A request or message a byte at a time, then its answer read a little at a time (at most 20 s)."""
        sock = await self._connect()
        try:
            data = valid_request(self.server)
            if self.server == "websocket":
                await self.loop.sock_sendall(sock, data)
                await self._drain_some(sock, 129, 5)  # the 101
                data = ws_frame(b"slowly, slowly")
            for i in range(len(data)):
                await self.loop.sock_sendall(sock, data[i:i + 1])
                await asyncio.sleep(SLOW_BYTE_INTERVAL_S)
            deadline = self.loop.time() + 20
            while self.loop.time() < deadline:
                chunk = await asyncio.wait_for(self.loop.sock_recv(sock, 512), 20)
                if not chunk:
                    break
                await asyncio.sleep(0.5)
        finally:
            self._close(sock)

    async def _non_reading_one(self):
        sock = await self._connect()
        try:
            if self.server == "websocket":
                await self.loop.sock_sendall(sock, ws_handshake())
                await self._drain_some(sock, 129, 5)
                unit = ws_frame(b"w" * 4096, opcode=2) * 16
            elif self.server == "origin":
                unit = HTTP_GET * 256
            else:
                unit = ECHO_MESSAGE * 3000
            sent = 0
            while sent < NON_READING_MAX_BYTES:
                try:
                    n = sock.send(unit)
                except BlockingIOError:
                    break
                sent += n
            self.count("non-reading.bytes_sent", sent)
            await asyncio.sleep(NON_READING_HOLD_S)
        finally:
            self._close(sock, reset=random.random() < 0.5)


# --- The server and its samples ------------------------------------------------------------------------------

def proc_sample(pid):
    """{'rss_kib', 'threads', 'fds'} of a live process."""
    sample = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                sample["rss_kib"] = int(line.split()[1])
            elif line.startswith("Threads:"):
                sample["threads"] = int(line.split()[1])
    sample["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return sample


def start_server(binary, server, model, input_kib, output_kib):
    argv = [binary, "--host=127.0.0.1", "--port=0", f"--model={model}",
            f"--max_pending_input_kib={input_kib}", f"--max_pending_output_kib={output_kib}"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in process.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith("listening on "):
            port = int(line.split()[2].rsplit(":", 1)[1])
            # Keep reading its output, so that the server never blocks on a full pipe.
            reader = threading.Thread(target=lambda: lines.extend(l.rstrip("\n") for l in process.stdout),
                                      daemon=True)
            reader.start()
            return process, argv, port, lines, reader
    process.wait()
    raise RuntimeError(f"{binary} exited {process.returncode} before listening: " + " | ".join(lines))


def window_stats(runs, begin, end):
    in_window = [r for r in runs if begin < r["end_s"] <= end]
    p99s = [r["p99_ns"] for r in in_window if r["p99_ns"] is not None]
    return {"runs": len(in_window), "errors": sum(1 for r in in_window if r["errors"]),
            "p99_ms": round(max(p99s) / 1e6, 3) if p99s else None}


def verdict(start, end, allowance_kib, runs, samples, server_alive):
    """[] when the run passed, else the reasons it failed (one line each)."""
    reasons = []
    if not server_alive:
        reasons.append("the server exited during the soak")
    failed = [r for r in runs if r["errors"]]
    if failed:
        first = failed[0]
        reasons.append(f"{len(failed)} of {len(runs)} well-behaved client runs saw errors; first: "
                       f"{first['job']} at {first['start_s']} s: {first['errors']}")
    empty = [s["t_s"] for s in samples if s["phase"] == "load" and s["client_runs"] == 0]
    if empty:
        reasons.append(f"no well-behaved client run ended in the windows ending at {empty} s")
    if end is None:
        return reasons
    if end["fds"] != start["fds"]:
        reasons.append(f"descriptors: {end['fds']} at the end, {start['fds']} at the start")
    if end["threads"] != start["threads"]:
        reasons.append(f"threads: {end['threads']} at the end, {start['threads']} at the start")
    grown = end["rss_kib"] - start["rss_kib"]
    if grown > allowance_kib:
        reasons.append(f"RSS grew {grown} KiB (start {start['rss_kib']}, end {end['rss_kib']}), over the "
                       f"allowance of {allowance_kib} KiB")
    return reasons


def soak_one(args, server, model, log):
    binary = os.path.join(args.bin_dir, SERVERS[server])
    client = os.path.join(args.bin_dir, CLIENTS[server])
    process, argv, port, server_lines, reader = start_server(binary, server, model, args.max_pending_input_kib,
                                                    args.max_pending_output_kib)
    started = time.monotonic()
    wall_start = time.time()
    samples, runs, stop, loops, peers = [], [], threading.Event(), [], None
    end = None

    def sample(phase, t=None):
        s = proc_sample(process.pid)
        s.update(t_s=round(time.monotonic() - started if t is None else t, 1), phase=phase)
        return s

    try:
        jobs = client_jobs(server, client, port, args.client_model)
        peak_connections = sum(c for _, _, c in jobs) + Peers.cap()
        allowance_kib = peak_connections * (args.max_pending_input_kib + args.max_pending_output_kib)
        start = sample("start", 0.0)
        start.update(client_runs=0, client_errors=0, p99_ms=None)
        samples.append(start)
        log(f"{server}/{model}: pid {process.pid}, port {port}; start RSS {start['rss_kib']} KiB, "
            f"{start['fds']} descriptors, {start['threads']} threads; load for {args.seconds:g} s; at most "
            f"{peak_connections} connections at once, so the RSS allowance is {allowance_kib} KiB")
        loops = [ClientLoop(name, job_argv, stop, started) for name, job_argv, _ in jobs]
        for loop in loops:
            loop.start()
        peers = Peers(server, port, args.churn_rate)
        peers.start()
        last = 0.0
        while process.poll() is None and last < args.seconds:
            # The next sample at the next multiple of --sample-seconds, the last one when the load ends.
            due = min(last + args.sample_seconds, args.seconds)
            stop.wait(max(0.0, due - (time.monotonic() - started)))
            if process.poll() is not None:
                break
            now = time.monotonic() - started
            runs = [r for loop in loops for r in loop.runs]
            s = sample("load")
            window = window_stats(runs, last, now)
            s.update(client_runs=window["runs"], client_errors=window["errors"], p99_ms=window["p99_ms"],
                     peer_connections_open=peers.open)
            samples.append(s)
            log(f"{server}/{model} {s['t_s']:6.1f} s: RSS {s['rss_kib']} KiB, {s['fds']} fds, "
                f"{s['threads']} threads, p99 {s['p99_ms']} ms, {s['client_runs']} client runs, "
                f"{s['client_errors']} with errors, {peers.open} peer connections open")
            last = now
    finally:
        stop.set()
        for loop in loops:
            loop.join(timeout=90)
        if peers is not None:
            peers.stop()
    runs = sorted((r for loop in loops for r in loop.runs), key=lambda r: r["end_s"])
    alive = process.poll() is None
    settle_s = None
    if alive:
        # Settled: descriptors and threads back at their start, or --settle-seconds gone.
        load_end = time.monotonic()
        while True:
            end = sample("end")
            if (end["fds"] == start["fds"] and end["threads"] == start["threads"]) or \
                    time.monotonic() - load_end > args.settle_seconds:
                break
            time.sleep(0.25)
        settle_s = round(time.monotonic() - load_end, 2)
        end.update(client_runs=0, client_errors=0, p99_ms=None)
        samples.append(end)
        process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    reader.join(timeout=5)
    served = None  # the connections the server accepted, from its closing line
    for line in server_lines:
        if line.startswith("stopped by signal") and re.search(r"(\d+) connections", line):
            served = int(re.search(r"(\d+) connections", line).group(1))
    reasons = verdict(start, end, allowance_kib, runs, samples, alive)
    load = [s for s in samples if s["phase"] == "load"]
    p99s = [s["p99_ms"] for s in load if s["p99_ms"] is not None]
    result = {
        "schema": "netbench.soak/1",
        "git_commit": git_commit(), "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(wall_start)),
        "server": server, "model": model, "server_argv": argv,
        "seconds": args.seconds, "sample_seconds": args.sample_seconds, "settle_s": settle_s,
        "load": {"clients": [{"job": name, "argv": a, "connections": c} for name, a, c in jobs],
                 "churn_per_s": args.churn_rate, "slow_peers": SLOW_PEERS, "non_reading_peers": NON_READING_PEERS,
                 "oversize_per_s": OVERSIZE_PER_S, "malformed_per_s": MALFORMED_PER_S,
                 "peer_caps": {"churn": CHURN_IN_FLIGHT, "oversize": OVERSIZE_IN_FLIGHT,
                               "malformed": MALFORMED_IN_FLIGHT},
                 "peer_counts": dict(sorted(peers.counts.items())) if peers else {},
                 "peer_connections_peak": peers.peak_open if peers else 0},
        "allowance": {"peak_connections": peak_connections,
                      "max_pending_input_kib": args.max_pending_input_kib,
                      "max_pending_output_kib": args.max_pending_output_kib,
                      "rss_kib": allowance_kib, "fds": 0, "threads": 0},
        "summary": {
            "rss_kib": {"start": start["rss_kib"], "peak": max(s["rss_kib"] for s in samples),
                        "end": end["rss_kib"] if end else None},
            "fds": {"start": start["fds"], "peak": max(s["fds"] for s in samples), "end": end["fds"] if end else None},
            "threads": {"start": start["threads"], "peak": max(s["threads"] for s in samples),
                        "end": end["threads"] if end else None},
            "connections_served": served,
            # A leak of this many bytes per connection or more exceeds the allowance by the end of this run.
            "leak_caught_bytes_per_connection": round(allowance_kib * 1024 / served) if served else None,
            "client_runs": len(runs), "client_runs_with_errors": sum(1 for r in runs if r["errors"]),
            "p99_ms": {"first": p99s[0] if p99s else None, "last": p99s[-1] if p99s else None,
                       "median": sorted(p99s)[len(p99s) // 2] if p99s else None,
                       "max": max(p99s) if p99s else None},
        },
        "passed": not reasons, "reasons": reasons,
        "samples": samples, "client_runs": runs, "server_output_tail": server_lines[-5:],
    }
    return result


def git_commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                              cwd=os.path.dirname(os.path.abspath(__file__)), timeout=10).stdout.strip() or None
    except (OSError, subprocess.TimeoutExpired):
        return None


def chart(result, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    samples = result["samples"]
    t = [s["t_s"] for s in samples]
    fig, axes = plt.subplots(3, 1, figsize=(8, 7), sharex=True)
    start_rss = result["summary"]["rss_kib"]["start"] / 1024
    axes[0].plot(t, [s["rss_kib"] / 1024 for s in samples], marker=".")
    axes[0].axhline(start_rss + result["allowance"]["rss_kib"] / 1024, color="red", linestyle="--",
                    label="start + allowance")
    axes[0].set_ylabel("RSS (MiB)")
    axes[0].legend(loc="upper left", fontsize="small")
    axes[1].plot(t, [s["fds"] for s in samples], marker=".", color="tab:green")
    axes[1].axhline(result["summary"]["fds"]["start"], color="grey", linestyle=":", label="start")
    axes[1].set_ylabel("descriptors")
    axes[1].legend(loc="upper left", fontsize="small")
    p = [(s["t_s"], s["p99_ms"]) for s in samples if s["p99_ms"] is not None]
    axes[2].plot([x for x, _ in p], [y for _, y in p], marker=".", color="tab:orange")
    axes[2].set_ylabel("clients' p99 (ms)")
    axes[2].set_xlabel("seconds (last point: after the load stopped and the server settled)")
    verdict_text = "passed" if result["passed"] else "FAILED"
    fig.suptitle(f"soak: {result['server']} on {result['model']}, {result['seconds']:g} s: {verdict_text}")
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="soak", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True,
                        help="where the built programs are (echo/server, ...): bazel-bin, or a test's runfiles")
    parser.add_argument("--servers", default="echo,websocket,origin")
    parser.add_argument("--models", help="comma-separated; default: every model this build and machine run "
                                          "(each server's --check says)")
    parser.add_argument("--minutes", type=float, default=5.0, help="load time per server and model (default 5)")
    parser.add_argument("--seconds", type=float, help="load time in seconds (instead of --minutes)")
    parser.add_argument("--sample-seconds", type=float, default=10.0)
    parser.add_argument("--settle-seconds", type=float, default=30.0,
                        help="after the load, wait at most this long for descriptors and threads to return")
    parser.add_argument("--churn-rate", type=float, default=200.0, help="connect/close a second")
    parser.add_argument("--max-pending-input-kib", type=int, default=256)
    parser.add_argument("--max-pending-output-kib", type=int, default=1024)
    parser.add_argument("--out", help="write <server>-<model>.json and .svg here")
    parser.add_argument("--no-chart", action="store_true")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        raise SystemExit(2 if e.code else 0)
    if args.seconds is None:
        args.seconds = args.minutes * 60
    problems = []
    args.servers = args.servers.split(",")
    args.models = args.models.split(",") if args.models else None
    problems += [f"--servers: unknown server '{s}' (expected {', '.join(SERVERS)})"
                 for s in args.servers if s not in SERVERS]
    problems += [f"--models: unknown model '{m}' (expected {', '.join(MODELS)})"
                 for m in args.models or () if m not in MODELS]
    if not 1 <= args.seconds <= 6 * 3600:
        problems.append(f"load time {args.seconds:g} s: from 1 s to 6 hours")
    if not 0.5 <= args.sample_seconds <= 600:
        problems.append("--sample-seconds: from 0.5 to 600")
    if not 0 < args.churn_rate <= 2000:
        problems.append("--churn-rate: above 0, at most 2000 a second")
    if args.max_pending_input_kib < 64 or args.max_pending_output_kib < 1:
        problems.append("--max-pending-input-kib >= 64 and --max-pending-output-kib >= 1 (the servers' own limits)")
    if not 0 <= args.settle_seconds <= 600:
        problems.append("--settle-seconds: from 0 to 600")
    for s in args.servers:
        for path in (SERVERS.get(s), CLIENTS.get(s)):
            if path and not os.access(os.path.join(args.bin_dir, path), os.X_OK):
                problems.append(f"--bin-dir: no program {os.path.join(args.bin_dir, path)} (build it first)")
    if problems:
        raise UsageError("; ".join(problems))
    return args


def main(argv):
    try:
        args = parse_args(argv)
    except UsageError as e:
        print(f"soak: {e}\nRun 'tools/soak.py --help' for usage.", file=sys.stderr)
        return 2

    def log(line):
        print(f"soak: {line}", flush=True)

    if args.models is None:
        args.models = available_models(args.bin_dir)
        log(f"models: {', '.join(args.models)} (every one this build and machine run)")
    for model in args.models:
        why = model_refusal(args.bin_dir, model)
        if why is not None:
            print(f"soak: --models: {model} cannot run here: {why}", file=sys.stderr)
            return 2
    args.client_model = next(m for m in CLIENT_MODELS if model_refusal(args.bin_dir, m) is None)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    failures = []
    for server in args.servers:
        for model in args.models:
            result = soak_one(args, server, model, log)
            summary = result["summary"]
            log(f"{server}/{model}: {'passed' if result['passed'] else 'FAILED'}: RSS start/peak/end "
                f"{summary['rss_kib']['start']}/{summary['rss_kib']['peak']}/{summary['rss_kib']['end']} KiB "
                f"(allowance {result['allowance']['rss_kib']}), descriptors "
                f"{summary['fds']['start']}/{summary['fds']['peak']}/{summary['fds']['end']}, threads "
                f"{summary['threads']['start']}/{summary['threads']['peak']}/{summary['threads']['end']}, "
                f"{summary['client_runs']} client runs, {summary['client_runs_with_errors']} with errors, "
                f"p99 first/last {summary['p99_ms']['first']}/{summary['p99_ms']['last']} ms")
            for reason in result["reasons"]:
                log(f"{server}/{model}: failed: {reason}")
                failures.append(f"{server}/{model}: {reason}")
            if args.out:
                base = os.path.join(args.out, f"{server}-{model}")
                with open(base + ".json", "w") as f:
                    json.dump(result, f, indent=1)
                    f.write("\n")
                if not args.no_chart:
                    chart(result, base + ".svg")
    if failures:
        print(f"soak: FAILED: {len(failures)} problem(s): " + " | ".join(failures), file=sys.stderr)
        return 1
    log(f"passed: {len(args.servers) * len(args.models)} soak(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
