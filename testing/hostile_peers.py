"""Hostile peers for a server under a soak (bench/studies/soak.py): connection churn, slow, non-reading, oversize and
malformed peers of the echo, websocket and origin servers, on one asyncio loop in a thread of their own, each
kind capped in the connections it holds open at once (Peers.cap(): what a soak's RSS allowance counts). What the
server does to them (reset, close, refuse) is its right: counted, never failed.

    peers = hostile_peers.Peers("websocket", port, churn_rate=200)
    peers.start(); ...; peers.stop()
    peers.counts        # {"churn.done": 4000, "oversize.closed_1009": 40, ...}
    peers.open, peers.peak_open
"""

import asyncio
import base64
import os
import random
import socket
import struct
import threading

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

    def described(self):
        """What the peers were (rates and caps) and what they did (counts, the most connections open at once)."""
        return {"churn_per_s": self.churn_rate, "slow_peers": SLOW_PEERS, "non_reading_peers": NON_READING_PEERS,
                "oversize_per_s": OVERSIZE_PER_S, "malformed_per_s": MALFORMED_PER_S,
                "peer_caps": {"churn": CHURN_IN_FLIGHT, "oversize": OVERSIZE_IN_FLIGHT,
                              "malformed": MALFORMED_IN_FLIGHT},
                "peer_counts": dict(sorted(self.counts.items())), "peer_connections_peak": self.peak_open}

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
