"""A python3-websockets echo server on ws://127.0.0.1:PORT/echo, for testing a WebSocket client.

Usage: /usr/bin/python3 py_server_peer.py
Prints "listening on 127.0.0.1:PORT" once it accepts connections (port chosen by the kernel), echoes every
message, and exits when its standard input closes. On exit it prints "messages N" (messages received).
"""
import asyncio
import sys

import websockets

received = 0


async def echo(ws, path=None):
    global received
    async for message in ws:
        received += 1
        try:
            await ws.send(message)
        except websockets.ConnectionClosed:
            # The client may close right after its last message (sink mode) while echoes are still
            # going out; keep draining what was received so that the count is complete.
            pass


async def main():
    loop = asyncio.get_running_loop()
    async with websockets.serve(echo, "127.0.0.1", 0, max_size=None, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"listening on 127.0.0.1:{port}", flush=True)
        stdin_closed = loop.create_future()
        loop.add_reader(sys.stdin.fileno(),
                        lambda: stdin_closed.done() or (sys.stdin.buffer.read1(4096) == b""
                                                        and stdin_closed.set_result(None)))
        await stdin_closed
    print(f"messages {received}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
