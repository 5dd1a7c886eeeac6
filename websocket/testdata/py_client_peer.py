"""A python3-websockets client that exercises a WebSocket echo server (RFC 6455 interop).

Usage: /usr/bin/python3 py_client_peer.py ws://127.0.0.1:PORT/echo
Checks text, binary, empty, 125/126/65535/65536/1 MiB payloads, a fragmented message, ping/pong, and the
close handshake with a code and reason. Prints one line per check; exits non-zero on the first failure.
"""
import asyncio
import sys

import websockets


async def main(url):
    async with websockets.connect(url, max_size=None, compression=None) as ws:
        async def echo(message, name):
            await ws.send(message)
            reply = await asyncio.wait_for(ws.recv(), timeout=10)
            if reply != message:
                raise AssertionError(f"{name}: echo differs ({len(reply)} vs {len(message)} bytes, "
                                     f"{type(reply).__name__} vs {type(message).__name__})")
            print(f"ok {name}", flush=True)

        await echo("hello, world!", "text")
        await echo("κόσμε 😀", "text utf-8")
        await echo(b"\x00\xff binary", "binary")
        await echo("", "empty text")
        await echo(b"", "empty binary")
        for size in (125, 126, 65535, 65536, 1 << 20):
            await echo(bytes(i % 251 for i in range(size)), f"binary {size}")
            await echo("t" * size, f"text {size}")
        # A fragmented message: websockets sends an iterable as one message in several frames.
        await ws.send(["frag", "men", "ted ✓"])
        reply = await asyncio.wait_for(ws.recv(), timeout=10)
        if reply != "fragmented ✓":
            raise AssertionError(f"fragmented: got {reply!r}")
        print("ok fragmented", flush=True)
        pong = await ws.ping(b"netbench")
        await asyncio.wait_for(pong, timeout=10)
        print("ok ping", flush=True)
        await ws.close(code=4000, reason="bye now")
        if ws.close_code != 4000:
            raise AssertionError(f"close: server answered code {ws.close_code}, want 4000")
        print(f"ok close {ws.close_code}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
