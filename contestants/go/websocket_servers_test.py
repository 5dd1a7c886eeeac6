"""The Go WebSocket servers on the wire, driven by python3-websockets' client: gorilla and x/net with -echo send
every text and binary message back unchanged on 3 connections; x/net in its default (the write-up's) mode reads
and drops every message and still answers a ping after them. Both answer the client's close frame with their own
(RFC 6455 5.5.1), which //websocket:client waits for: it then exits 0 against each of them, in each mode.

    websocket_servers_test.py GORILLA_SERVER XNET_SERVER NETBENCH_WEBSOCKET_CLIENT
"""

import asyncio
import os
import subprocess
import sys
import unittest

import started_program
import websockets

GORILLA = XNET = NETBENCH_CLIENT = None
CONNECTIONS = 3


async def echo_round_trips(port):
    async def one(index):
        async with websockets.connect(f"ws://127.0.0.1:{port}/echo", max_size=None) as ws:
            sent = [f"hello, world! {index}.{i}" for i in range(200)] + [os.urandom(70000), "é" * 1000]
            for message in sent:
                await ws.send(message)
            received = [await asyncio.wait_for(ws.recv(), 30) for _ in sent]
            await ws.close()
            # 1000 is the server's own close frame; 1006 would be a connection dropped without one.
            return sent, received, ws.close_code

    return await asyncio.gather(*(one(i) for i in range(CONNECTIONS)))


async def sink_then_ping(port):
    async with websockets.connect(f"ws://127.0.0.1:{port}/echo") as ws:
        for i in range(5000):
            await ws.send("hello, world!")
        pong = await ws.ping()
        await asyncio.wait_for(pong, 30)
        await ws.close()
        return ws.close_code


class WebSocketServersTest(unittest.TestCase):
    def check_echo(self, argv):
        with started_program.StartedProgram(argv) as server:
            results = asyncio.run(echo_round_trips(server.port))
            self.assertTrue(server.alive(), server.output)
        for sent, received, close_code in results:
            self.assertEqual(close_code, 1000, "the server did not answer the close frame with its own")
            self.assertEqual(len(received), len(sent))
            for a, b in zip(sent, received):
                self.assertEqual(type(a), type(b), "a text message came back binary, or the other way")
                self.assertTrue(a == b, "a message came back changed")

    def test_gorilla_echoes_text_and_binary(self):
        self.check_echo([GORILLA, "-addr", "127.0.0.1:0"])

    def test_xnet_echo_mode_echoes(self):
        self.check_echo([XNET, "-addr", "127.0.0.1:0", "-echo"])

    def test_xnet_default_reads_and_drops(self):
        with started_program.StartedProgram([XNET, "-addr", "127.0.0.1:0"]) as server:
            self.assertEqual(asyncio.run(sink_then_ping(server.port)), 1000,
                             "the server did not answer the close frame with its own")
            self.assertTrue(server.alive(), server.output)

    def check_netbench_client(self, server_argv, mode):
        """//websocket:client exits 0 only after every connection's close handshake; 2 connections, 300 each."""
        with started_program.StartedProgram(server_argv) as server:
            client = subprocess.run([NETBENCH_CLIENT, f"--url=ws://127.0.0.1:{server.port}/echo", "--clients=2",
                                     "--messages=300", f"--mode={mode}", "--progress=false", "--timeout=30s"],
                                    capture_output=True, text=True, timeout=60)
            self.assertEqual(client.returncode, 0, client.stdout + client.stderr)
            self.assertIn("Sent 600 in", client.stdout)
            self.assertTrue(server.alive(), server.output)

    def test_netbench_client_completes_against_xnet_sink(self):
        self.check_netbench_client([XNET, "-addr", "127.0.0.1:0"], "sink")

    def test_netbench_client_completes_against_xnet_echo(self):
        self.check_netbench_client([XNET, "-addr", "127.0.0.1:0", "-echo"], "echo")

    def test_netbench_client_completes_against_gorilla(self):
        self.check_netbench_client([GORILLA, "-addr", "127.0.0.1:0"], "echo")


if __name__ == "__main__":
    GORILLA, XNET, NETBENCH_CLIENT = sys.argv.pop(1), sys.argv.pop(1), sys.argv.pop(1)
    unittest.main()
