"""The spammer on the wire: against a server that reads and checks every byte, each of its 3 connections carries
nothing but the write-up's 22-byte message (uint32 LE 14, uint32 LE 1, "hello, friend\\n"), whole, and the
messages the spammer says it wrote are exactly the messages the server received, per connection.

    spammer_test.py SPAMMER
"""

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
    """Accepts CLIENTS connections and keeps every byte each one sends until it closes."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.received = []
        self.threads = []
        self.acceptor = threading.Thread(target=self._accept)
        self.acceptor.start()

    def _accept(self):
        self.listener.settimeout(60)
        for _ in range(CLIENTS):
            conn, _ = self.listener.accept()
            data = bytearray()
            self.received.append(data)
            thread = threading.Thread(target=self._read, args=(conn, data))
            thread.start()
            self.threads.append(thread)

    @staticmethod
    def _read(conn, data):
        with conn:
            conn.settimeout(60)
            while True:
                chunk = conn.recv(1 << 20)
                if not chunk:
                    return
                data.extend(chunk)

    def join(self):
        self.acceptor.join(timeout=60)
        for thread in self.threads:
            thread.join(timeout=60)
        self.listener.close()


class SpammerTest(unittest.TestCase):
    def test_every_write_is_the_message_and_every_message_is_counted(self):
        server = CheckingServer()
        status, output = started_program.run([SPAMMER, "-addr", f"127.0.0.1:{server.port}", "-clients",
                                              str(CLIENTS), "-duration", "1s"])
        server.join()
        self.assertEqual(status, 0, output)
        self.assertRegex(output, r"gomaxprocs \d+ numcpu \d+")
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


if __name__ == "__main__":
    SPAMMER = sys.argv.pop(1)
    unittest.main()
