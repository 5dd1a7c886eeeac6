#!/usr/bin/python3
"""20 clients write to a running netbench server and never read; prints the server's VmRSS before and
after (the reproduction of a client flooding the server with pipelined messages). Each client sends until it has sent the MiB given (16 by default) or
no client could send for 3 s (the server stopped reading from all of them).

  bazel-bin/httpfanout/origin --port=9080 --model=epoll & tools/pipeline_flood.py $! 9080 16
  bazel-bin/echo/server --port=7000 --model=threads & tools/pipeline_flood.py $! 7000 16 --kind=echo
  bazel-bin/websocket/server --port=8080 & tools/pipeline_flood.py $! 8080 16 --kind=websocket

--kind says what the clients send: pipelined GETs (origin), raw bytes (echo), or a WebSocket
handshake then masked 1000-byte binary frames (websocket).
"""
import argparse, base64, os, select, socket, struct, sys, time

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("pid", type=int, help="the server's process id (its VmRSS is read)")
parser.add_argument("port", type=int)
parser.add_argument("mib", type=int, nargs="?", default=16, help="MiB each client sends at most")
parser.add_argument("--kind", choices=["origin", "echo", "websocket"], default="origin")
args = parser.parse_args()
limit = args.mib << 20

def rss():
    for line in open(f"/proc/{args.pid}/status"):
        if line.startswith("VmRSS"): return int(line.split()[1]) // 1024

prefix = b""
if args.kind == "origin":
    unit = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
elif args.kind == "echo":
    unit = b"echo me "
else:
    key = base64.b64encode(os.urandom(16))
    prefix = (b"GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              b"Sec-WebSocket-Key: " + key + b"\r\nSec-WebSocket-Version: 13\r\n\r\n")
    # A zero mask key leaves the payload as it is.
    unit = b"\x82\xfe" + struct.pack("!H", 1000) + b"\0\0\0\0" + b"f" * 1000
chunk = unit * max(1, (64 << 10) // len(unit))

before = rss()
socks = []
for _ in range(20):
    s = socket.create_connection(("127.0.0.1", args.port)); s.setblocking(False); socks.append(s)
pending = {s: prefix for s in socks}
sent = {s: 0 for s in socks}
closed = []
while True:
    live = [s for s in socks if sent[s] < limit]
    if not live: break
    _, w, _ = select.select([], live, [], 3)
    if not w: break  # every socket blocked for 3 s: the server stopped reading
    for s in w:
        if not pending[s]: pending[s] = chunk
        try:
            n = s.send(pending[s])
            pending[s] = pending[s][n:]; sent[s] += n
        except BlockingIOError: pass
        except OSError: sent[s] = limit; closed.append(s)
time.sleep(1)
print(f"rss before {before} MB after {rss()} MB; sent {sum(sent.values())>>20} MiB; "
      f"{len(closed)} closed by the server")
