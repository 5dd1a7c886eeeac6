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
source "$(dirname "$0")/callgrind_load.sh"

side=$1 server=$2 client=$3 model=$4 messages=$5 out=$6
clients=${CLIENTS:-4}
pipeline=${PIPELINE:-16}
mkdir -p "$out"

# Runs one load of `count` messages per connection; prints the side's total instructions.
run() {
  local count=$1 tag=$2 server_model=epoll client_model=epoll
  if [[ $side == server ]]; then server_model=$model; else client_model=$model; fi
  callgrind_load "$side" "$out" "$side.$model.$tag" \
    "$server" --port=0 --mode=echo "--model=$server_model" -- \
    "$client" --url=ws://127.0.0.1:@PORT@/echo "--clients=$clients" --mode=echo \
    "--pipeline=$pipeline" "--messages=$count" "--model=$client_model" --progress=false \
    --timeout=600s
}

small=$(run "$messages" n)
large=$(run $((2 * messages)) 2n)
awk -v s="$small" -v l="$large" -v n=$((clients * messages)) -v side="$side" -v model="$model" \
  -v c="$clients" -v m="$messages" 'BEGIN {
    printf "%s %s: %d clients x %d more messages: %.1f instructions per message\n",
           side, model, c, m, (l - s) / n }'
