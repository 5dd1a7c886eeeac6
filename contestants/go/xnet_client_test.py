"""The x/net client on the wire, against python3-websockets' server (which refuses an unmasked client frame, as
RFC 6455 requires): 3 connections to /echo with origin http://localhost/, each carrying exactly 2,000 text
messages "hello, world!", and the client's "Sent N in T for a rate of R/second" line saying N = 6,000, its series
line before it summing to the same.

    xnet_client_test.py XNET_CLIENT
"""

import asyncio
import json
import re
import sys
import threading
import unittest

import started_program
import websockets

CLIENT = None
CLIENTS = 3
MESSAGES = 2000


class RecordingServer:
    """A websockets server in a thread of its own, recording each connection's path, origin and messages."""

    def __init__(self):
        self.connections = []
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run)
        self.thread.start()
        if not self.ready.wait(timeout=30):
            raise AssertionError("the websockets server did not start")

    async def _handle(self, ws, path):
        record = {"path": path, "origin": ws.request_headers.get("Origin"), "messages": [], "error": None}
        self.connections.append(record)
        try:
            async for message in ws:
                record["messages"].append(message)
        except websockets.exceptions.ConnectionClosedError as error:
            # x/net's Close sends its close frame (1000) and closes the socket without waiting for the server's:
            # that much is the client's way, anything else is an error.
            if error.rcvd is None or error.rcvd.code != 1000:
                record["error"] = f"{error}"

    def _run(self):
        asyncio.set_event_loop(self.loop)

        async def main():
            self.stop_event = asyncio.Event()
            async with websockets.serve(self._handle, "127.0.0.1", 0) as server:
                self.port = server.sockets[0].getsockname()[1]
                self.ready.set()
                await self.stop_event.wait()

        self.loop.run_until_complete(main())

    def stop(self):
        self.loop.call_soon_threadsafe(self.stop_event.set)
        self.thread.join(timeout=30)


class XnetClientTest(unittest.TestCase):
    def test_masked_text_frames_hello_world_counted(self):
        server = RecordingServer()
        try:
            status, output = started_program.run([CLIENT, "-url", f"ws://127.0.0.1:{server.port}/echo",
                                                  "-timeout", "60s", str(CLIENTS), str(MESSAGES)])
        finally:
            server.stop()
        self.assertEqual(status, 0, output)
        sent = re.search(r"Sent (\d+) in \S+ for a rate of [0-9.]+/second", output)
        self.assertIsNotNone(sent, output)
        self.assertEqual(int(sent.group(1)), CLIENTS * MESSAGES)
        series = re.search(r"(?m)^series: (.*)$", output)
        self.assertIsNotNone(series, output)
        self.assertLess(series.start(), sent.start())
        found = json.loads(series.group(1))
        # No "received": -drain reads what comes back as bytes, not messages.
        self.assertEqual(list(found), ["interval_s", "last_s", "sent"])
        self.assertEqual(found["interval_s"], 0.1)
        self.assertGreaterEqual(found["last_s"], 0)
        self.assertLessEqual(found["last_s"], 0.1)
        self.assertTrue(all(n >= 0 for n in found["sent"]), found)
        self.assertEqual(sum(found["sent"]), CLIENTS * MESSAGES)
        self.assertEqual(len(server.connections), CLIENTS)
        for record in server.connections:
            self.assertIsNone(record["error"], "the server refused a frame (unmasked, or not text)")
            self.assertEqual(record["path"], "/echo")
            self.assertEqual(record["origin"], "http://localhost/")
            self.assertEqual(len(record["messages"]), MESSAGES)
            # websockets hands a text frame over as str and a binary one as bytes.
            self.assertEqual(set(map(type, record["messages"])), {str})
            self.assertEqual(set(record["messages"]), {"hello, world!"})

    def test_series_interval_below_10ms_is_a_usage_error(self):
        status, output = started_program.run([CLIENT, "-series_interval", "9ms", "1", "1"])
        self.assertEqual(status, 2, output)
        self.assertIn("-series_interval must be 0 or at least 10ms", output)


if __name__ == "__main__":
    CLIENT = sys.argv.pop(1)
    unittest.main()
