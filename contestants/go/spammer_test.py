"""The spammer on the wire: against a server that reads and checks every byte, each of its 3 connections carries
nothing but the write-up's 22-byte message (uint32 LE 14, uint32 LE 1, "hello, friend\\n"), whole, and the
messages the spammer says it wrote are exactly the messages the server received, per connection, and what its
series says it wrote per interval. Against a server that echoes every byte, its echo count is the bytes the server
wrote back / 22, and counting them changes nothing of what it writes or counts as written.

    spammer_test.py SPAMMER
"""

import json
import re
import socket
import struct
import sys
import threading
import unittest

import started_program

SPAMMER = None
MESSAGE = struct.pack("<II", 14, 1) + b"hello, friend\n"
CLIENTS = 3


class CheckingServer:
    """Accepts CLIENTS connections and keeps every byte each one sends until it closes; with `echo`, it also writes
    every byte back as it reads it, and closes its side at the end of what the client sent."""

    def __init__(self, echo=False):
        self.echo = echo
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.received = []
        self.echoed = []  # bytes written back, per connection
        self.threads = []
        self.acceptor = threading.Thread(target=self._accept)
        self.acceptor.start()

    def _accept(self):
        self.listener.settimeout(60)
        for _ in range(CLIENTS):
            conn, _ = self.listener.accept()
            data = bytearray()
            self.received.append(data)
            self.echoed.append(0)
            thread = threading.Thread(target=self._read, args=(conn, data, len(self.echoed) - 1))
            thread.start()
            self.threads.append(thread)

    def _read(self, conn, data, index):
        with conn:
            conn.settimeout(60)
            while True:
                chunk = conn.recv(1 << 20)
                if not chunk:
                    return
                data.extend(chunk)
                if self.echo:
                    conn.sendall(chunk)
                    self.echoed[index] += len(chunk)

    def join(self):
        self.acceptor.join(timeout=60)
        for thread in self.threads:
            thread.join(timeout=60)
        self.listener.close()


def run_spammer(server, *flags):
    return started_program.run([SPAMMER, "-addr", f"127.0.0.1:{server.port}", "-clients", str(CLIENTS),
                                "-duration", "1s", *flags])


def series(output):
    """The series line's JSON object."""
    match = re.search(r"(?m)^series: (.*)$", output)
    if match is None:
        raise AssertionError("no series line:\n" + output)
    return json.loads(match.group(1))


class SpammerTest(unittest.TestCase):
    def check_written(self, server, output):
        """Every connection carried whole messages only, as many as the spammer says it wrote; returns the total."""
        self.assertRegex(output, r"(?m)^sent: \d+ msgs in [0-9.]+ s \(22 bytes each, 0 writes timed out\)$")
        self.assertRegex(output, r"(?m)^rate: [0-9.]+ msgs/s$")
        reported = sorted(int(n) for n in re.findall(r"(?m)^connection \d+: (\d+) msgs", output))
        self.assertEqual(len(server.received), CLIENTS)
        received = []
        for data in server.received:
            self.assertEqual(len(data) % len(MESSAGE), 0, "a message arrived cut short")
            count = len(data) // len(MESSAGE)
            self.assertTrue(data == MESSAGE * count, "bytes other than the 22-byte message arrived")
            received.append(count)
        self.assertEqual(sorted(received), reported, output)
        total = int(re.search(r"(?m)^sent: (\d+) msgs", output).group(1))
        self.assertEqual(sum(received), total)
        self.assertGreater(total, 0)
        return total

    def check_series(self, output):
        """The series covers the run, interval by interval; returns it."""
        found = series(output)
        self.assertEqual(list(found), ["interval_s", "last_s", "sent", "received"])
        self.assertEqual(found["interval_s"], 0.1)
        self.assertGreaterEqual(found["last_s"], 0)
        self.assertLessEqual(found["last_s"], 0.1)
        self.assertEqual(len(found["sent"]), len(found["received"]))
        self.assertTrue(all(n >= 0 for n in found["sent"] + found["received"]), found)
        # Whole intervals and the last one make up the run's own seconds (printed to the millisecond).
        elapsed = float(re.search(r"(?m)^sent: \d+ msgs in ([0-9.]+) s", output).group(1))
        self.assertAlmostEqual((len(found["sent"]) - 1) * 0.1 + found["last_s"], elapsed, delta=0.002)
        self.assertLess(output.index("series: "), output.index("sent: "))
        return found

    def test_every_write_is_the_message_and_every_message_is_counted(self):
        server = CheckingServer()
        status, output = run_spammer(server)
        server.join()
        self.assertEqual(status, 0, output)
        self.assertRegex(output, r"gomaxprocs \d+ numcpu \d+")
        total = self.check_written(server, output)
        found = self.check_series(output)
        self.assertEqual(sum(found["sent"]), total)
        self.assertEqual(sum(found["received"]), 0)
        self.assertRegex(output, r"(?m)^echoed: 0 msgs$")

    def test_echoes_counted_are_what_the_server_wrote_back(self):
        server = CheckingServer(echo=True)
        # -echo_drain reads the echoes still on their way when the writers stop, so that all of them are counted.
        status, output = run_spammer(server, "-echo_drain", "30s")
        server.join()
        self.assertEqual(status, 0, output)
        total = self.check_written(server, output)
        echoed = int(re.search(r"(?m)^echoed: (\d+) msgs$", output).group(1))
        self.assertEqual(echoed, sum(server.echoed) // len(MESSAGE))
        self.assertEqual(echoed, total)  # the server echoed every message
        found = self.check_series(output)
        self.assertEqual(sum(found["sent"]), total)
        self.assertEqual(sum(found["received"]), echoed)
        self.assertGreater(sum(1 for n in found["received"] if n > 0), 1, "echoes counted only at the end")

    def test_series_interval(self):
        server = CheckingServer()
        status, output = run_spammer(server, "-series_interval", "0")
        server.join()
        self.assertEqual(status, 0, output)
        self.assertNotIn("series:", output)
        self.check_written(server, output)
        status, output = started_program.run([SPAMMER, "-series_interval", "9ms"])
        self.assertEqual(status, 2, output)
        self.assertIn("-series_interval must be 0 or at least 10ms", output)


if __name__ == "__main__":
    SPAMMER = sys.argv.pop(1)
    unittest.main()
