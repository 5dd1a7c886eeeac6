#!/usr/bin/env bash
# Instructions per message of the echo server or of //echo:client, counted by callgrind the way
# tools/callgrind_per_message.sh counts the WebSocket side's: the side under test runs under
# `valgrind --tool=callgrind` twice, with N and 2N messages in all, and the difference of the two
# totals over the N messages more is the cost of one message (start-up, connecting and exit cancel).
#
#   tools/callgrind_echo_per_message.sh client bazel-bin/echo/server bazel-bin/echo/client \
#       epoll pingpong 1 20000 /tmp/cg
#   -> "client epoll pingpong: 1 clients, 20000 more messages: 123.4 instructions per message"
#
# Arguments: the side (server | client), the server and client binaries, the model of the side
# measured (the other side runs epoll), the client's --mode (pingpong | stream), --clients, N, and a
# folder for the callgrind files (callgrind_annotate reads them). Loopback only; each run is
# bounded by the client's --timeout.
set -euo pipefail
source "$(dirname "$0")/callgrind_load.sh"

side=$1 server=$2 client=$3 model=$4 mode=$5 clients=$6 messages=$7 out=$8
mkdir -p "$out"

# Runs one load of `count` messages in all; prints the side's total instructions.
run() {
  local count=$1 tag=$2 server_model=epoll client_model=epoll
  if [[ $side == server ]]; then server_model=$model; else client_model=$model; fi
  callgrind_load "$side" "$out" "$side.$model.$mode.$tag" \
    "$server" --port=0 "--model=$server_model" -- \
    "$client" --port=@PORT@ "--clients=$clients" "--mode=$mode" "--messages=$count" \
    "--model=$client_model" --progress=false --timeout=600s
}

small=$(run "$messages" n)
large=$(run $((2 * messages)) 2n)
awk -v s="$small" -v l="$large" -v n="$messages" -v side="$side" -v model="$model" \
  -v mode="$mode" -v c="$clients" 'BEGIN {
    printf "%s %s %s: %d clients, %d more messages: %.1f instructions per message\n",
           side, model, mode, c, n, (l - s) / n }'
