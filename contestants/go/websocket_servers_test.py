"""The Go WebSocket servers on the wire, driven by python3-websockets' client: gorilla and x/net with -echo send
every text and binary message back unchanged on 3 connections; x/net in its default (the write-up's) mode reads
and drops every message and still answers a ping after them.

    websocket_servers_test.py GORILLA_SERVER XNET_SERVER
"""

import asyncio
import os
import sys
import unittest

import started_program
import websockets

GORILLA = XNET = None
CONNECTIONS = 3


async def echo_round_trips(port):
    async def one(index):
        async with websockets.connect(f"ws://127.0.0.1:{port}/echo", max_size=None) as ws:
            sent = [f"hello, world! {index}.{i}" for i in range(200)] + [os.urandom(70000), "é" * 1000]
            for message in sent:
                await ws.send(message)
            received = [await asyncio.wait_for(ws.recv(), 30) for _ in sent]
            return sent, received

    return await asyncio.gather(*(one(i) for i in range(CONNECTIONS)))


async def sink_then_ping(port):
    async with websockets.connect(f"ws://127.0.0.1:{port}/echo") as ws:
        for i in range(5000):
            await ws.send("hello, world!")
        pong = await ws.ping()
        await asyncio.wait_for(pong, 30)
        return True


class WebSocketServersTest(unittest.TestCase):
    def check_echo(self, argv):
        with started_program.StartedProgram(argv) as server:
            results = asyncio.run(echo_round_trips(server.port))
            self.assertTrue(server.alive(), server.output)
        for sent, received in results:
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
            self.assertTrue(asyncio.run(sink_then_ping(server.port)))
            self.assertTrue(server.alive(), server.output)


if __name__ == "__main__":
    GORILLA, XNET = sys.argv.pop(1), sys.argv.pop(1)
    unittest.main()
