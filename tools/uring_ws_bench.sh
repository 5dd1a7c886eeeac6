#!/bin/bash
# bazel build -c opt //websocket:server //websocket:client first. CPU from /proc ticks (10 ms: 0.05 us/msg at this count).
# WebSocket echo, 4 clients x 16 in flight: server CPU and system calls per message, models interleaved.
cd "$(dirname "$0")/.."
for r in 1 2 3; do
for model in epoll uring poll; do
  bazel-bin/websocket/server --port=0 --model=$model --mode=echo > /tmp/ws_s.out 2>&1 &
  SP=$!; sleep 0.3; P=$(grep -o ':[0-9]* ' /tmp/ws_s.out | head -1 | tr -d ': ')
  c0=$(awk '{print $14+$15}' /proc/$SP/stat)
  bazel-bin/websocket/client --url=ws://127.0.0.1:$P/echo --clients=4 --mode=echo --pipeline=16 --messages=50000 --model=epoll --progress=false > /tmp/ws_c.out 2>&1
  c1=$(awk '{print $14+$15}' /proc/$SP/stat)
  kill -TERM $SP; wait $SP
  calls=$(grep -o '[0-9]* system calls' /tmp/ws_s.out | cut -d' ' -f1)
  python3 -c "
m=4*50000; print('$model round $r: cpu %.2f us/msg, %.3f calls/msg' % (($c1-$c0)*1e4/m, $calls/m))"
done; done
