#!/usr/bin/python3
"""20 clients pipeline GETs to a running origin and never read; prints the server's VmRSS before and
after (issue 13's reproduction). Each client sends until it has sent the MiB given (16 by default) or
no client could send for 3 s (the server stopped reading from all of them).

  bazel-bin/httpfanout/origin --port=9080 --model=epoll & tools/pipeline_flood.py $! 9080 16
"""
import select, socket, sys, time
pid, port = int(sys.argv[1]), int(sys.argv[2])
limit = int(sys.argv[3]) * (1 << 20) if len(sys.argv) > 3 else 16 << 20
def rss():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"): return int(line.split()[1]) // 1024
req = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 2000
before = rss()
socks = []
for _ in range(20):
    s = socket.create_connection(("127.0.0.1", port)); s.setblocking(False); socks.append(s)
sent = {s: 0 for s in socks}
closed = []
while True:
    live = [s for s in socks if sent[s] < limit]
    if not live: break
    _, w, _ = select.select([], live, [], 3)
    if not w: break  # every socket blocked for 3 s: the server stopped reading
    for s in w:
        try: sent[s] += s.send(req)
        except BlockingIOError: pass
        except OSError: sent[s] = limit; closed.append(s)
time.sleep(1)
print(f"rss before {before} MB after {rss()} MB; sent {sum(sent.values())>>20} MiB; {len(closed)} closed by the server")
