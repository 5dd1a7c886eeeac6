"""An echo contestant echoes every byte back across 3 connections at once: each connection writes 1 MiB of its
own random bytes in uneven pieces while a thread of its own reads, and must read back exactly what it wrote.

    echo_server_test.py -- SERVER_ARGV...      (the argv listens on port 0 and prints "listening on HOST:PORT")
"""

import os
import socket
import sys
import threading
import unittest

import started_program

SERVER_ARGV = []
CONNECTIONS = 3
BYTES_PER_CONNECTION = 1 << 20


def exchange(port, payload, received, index):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        got = bytearray()

        def read():
            while len(got) < len(payload):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                got.extend(chunk)

        reader = threading.Thread(target=read)
        reader.start()
        offset, step = 0, 1
        while offset < len(payload):
            sock.sendall(payload[offset:offset + step])
            offset += step
            step = step * 3 % 40000 + 1  # 1, 4, 13, ... bytes: writes of every size, not one block
        reader.join(timeout=60)
        received[index] = bytes(got)


class EchoServerTest(unittest.TestCase):
    def test_echoes_every_byte_on_three_connections_at_once(self):
        with started_program.StartedProgram(SERVER_ARGV) as server:
            payloads = [os.urandom(BYTES_PER_CONNECTION) for _ in range(CONNECTIONS)]
            received = [None] * CONNECTIONS
            threads = [threading.Thread(target=exchange, args=(server.port, p, received, i))
                       for i, p in enumerate(payloads)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=120)
            self.assertTrue(server.alive(), server.output)
        for i, (sent, got) in enumerate(zip(payloads, received)):
            self.assertIsNotNone(got, f"connection {i + 1} did not finish")
            self.assertEqual(len(got), len(sent), f"connection {i + 1}: {len(got)} of {len(sent)} bytes came back")
            self.assertTrue(got == sent, f"connection {i + 1}: the echo differs from what was written")


if __name__ == "__main__":
    separator = sys.argv.index("--")
    SERVER_ARGV = sys.argv[separator + 1:]
    unittest.main(argv=sys.argv[:separator])
