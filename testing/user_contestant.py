"""A contestant "written by a user", for the suite's tests: an asyncio echo server in Python and its registry entry,
started by the entry alone as any user's server is.

    entry = user_contestant.write(folder)    # the server's script written there; its registry entry
"""

import os
import textwrap

PYTHON = "/usr/bin/python3"
NAME = "python-asyncio"

SOURCE = textwrap.dedent("""
    import asyncio, sys

    async def echo(reader, writer):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.close()

    async def main():
        server = await asyncio.start_server(echo, "127.0.0.1", int(sys.argv[1]))
        print("python echo listening on", sys.argv[1], flush=True)
        await server.serve_forever()

    asyncio.run(main())
""")


def entry(script):
    """The registry entry of the server at `script` (an echo server)."""
    return {"name": NAME, "system": "mine", "scenario": "echo", "role": "server",
            "about": "a user's asyncio echo server", "command": [PYTHON, script, "{port}"], "ready": "listening on",
            "version": [PYTHON, "--version"], "packages": []}


def write(folder):
    """Writes the server's script to `folder`; returns its registry entry."""
    script = os.path.join(folder, "echo_server.py")
    with open(script, "w") as f:
        f.write(SOURCE)
    return entry(script)
