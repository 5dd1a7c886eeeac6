#!/usr/bin/env bash
# Instructions per message of the WebSocket server or client, counted by callgrind: the side under
# test runs under `valgrind --tool=callgrind` twice, with N and 2N messages per connection, and the
# difference of the two totals divided by the N messages more is the cost of one message, with the
# start-up, the handshakes and the exit (the same in both runs) taken out.
#
#   tools/callgrind_per_message.sh server bazel-bin/websocket/server bazel-bin/websocket/client \
#       epoll 20000 /tmp/cg
#   -> "server epoll: 4 clients x 20000 more messages: 2345.6 instructions per message"
#
# Arguments: the side (server | client), the server and client binaries, the model (threads | poll
# | epoll, for the side measured; the other side runs epoll), messages per connection N, and a
# folder for the callgrind files (callgrind_annotate reads them: compare the 2N runs of two builds
# to see which functions grew). The load is `--clients=4 --mode=echo --pipeline=16`, CLIENTS and
# PIPELINE in the environment change it. Loopback only; each run is bounded by the client's
# --timeout.
set -euo pipefail

side=$1 server=$2 client=$3 model=$4 messages=$5 out=$6
clients=${CLIENTS:-4}
pipeline=${PIPELINE:-16}
mkdir -p "$out"

# Runs one load of `count` messages per connection; prints the side's total instructions.
run() {
  local count=$1 tag=$2
  local server_prefix=() client_prefix=() server_model=epoll client_model=epoll
  local file="$out/callgrind.$side.$model.$tag"
  if [[ $side == server ]]; then
    server_prefix=(valgrind --tool=callgrind "--callgrind-out-file=$file")
    server_model=$model
  else
    client_prefix=(valgrind --tool=callgrind "--callgrind-out-file=$file")
    client_model=$model
  fi
  local log="$out/server.$side.$model.$tag.log"
  rm -f "$log"  # a port left in it by an earlier run must not be read
  "${server_prefix[@]}" "$server" --port=0 --mode=echo "--model=$server_model" >"$log" 2>&1 &
  local pid=$!
  local port=""
  for _ in $(seq 600); do
    port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$log" 2>/dev/null)
    [[ -n $port ]] && break
    sleep 0.1
  done
  if [[ -z $port ]]; then
    kill "$pid" 2>/dev/null || true
    echo "the server did not start: $(cat "$log")" >&2
    return 1
  fi
  "${client_prefix[@]}" "$client" "--url=ws://127.0.0.1:$port/echo" "--clients=$clients" \
    --mode=echo "--pipeline=$pipeline" "--messages=$count" "--model=$client_model" \
    --progress=false --timeout=600s >"$out/client.$side.$model.$tag.log" 2>&1 || {
    kill -KILL "$pid" 2>/dev/null || true
    echo "the client failed: $(tail -3 "$out/client.$side.$model.$tag.log")" >&2
    return 1
  }
  kill -INT "$pid"
  wait "$pid" || true
  # The totals line of the output: "summary: <Ir>" (callgrind's own format).
  sed -n 's/^summary: \([0-9]*\)/\1/p' "$file"
}

small=$(run "$messages" n)
large=$(run $((2 * messages)) 2n)
awk -v s="$small" -v l="$large" -v n=$((clients * messages)) -v side="$side" -v model="$model" \
  -v c="$clients" -v m="$messages" 'BEGIN {
    printf "%s %s: %d clients x %d more messages: %.1f instructions per message\n",
           side, model, c, m, (l - s) / n }'
