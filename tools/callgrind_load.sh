# One load with one side under callgrind, for tools/callgrind_per_message.sh (WebSocket) and
# tools/callgrind_echo_per_message.sh (echo); sourced by them, not run.
#
#   source "$(dirname "$0")/callgrind_load.sh"
#   total=$(callgrind_load client "$out" "client.epoll.n" \
#     "$server" --port=0 --model=epoll -- "$client" --port=@PORT@ --messages=1000)
#
# callgrind_load SIDE OUT NAME SERVER_COMMAND... -- CLIENT_COMMAND...
# Starts the server, which must print its ready line ("listening on 127.0.0.1:PORT", read by
# common/server_lines.py, the one parser of it), then runs the client with every
# "@PORT@" in its words replaced by that port; SIDE (server | client) runs under
# `valgrind --tool=callgrind`, writing OUT/callgrind.NAME (callgrind_annotate reads it), and the
# logs go to OUT/server.NAME.log and OUT/client.NAME.log. Prints the side's total instructions.
# Loopback only; the client's own --timeout bounds the run.
callgrind_load() {
  local side=$1 out=$2 name=$3
  shift 3
  local server_command=() client_command=()
  while [[ $1 != -- ]]; do
    server_command+=("$1")
    shift
  done
  shift
  client_command=("$@")
  local file="$out/callgrind.$name" log="$out/server.$name.log" client_log="$out/client.$name.log"
  local valgrind=(valgrind --tool=callgrind "--callgrind-out-file=$file")
  if [[ $side == server ]]; then
    server_command=("${valgrind[@]}" "${server_command[@]}")
  else
    client_command=("${valgrind[@]}" "${client_command[@]}")
  fi
  rm -f "$log"  # a port left in it by an earlier run must not be read
  "${server_command[@]}" >"$log" 2>&1 &
  local pid=$!
  local port=""
  for _ in $(seq 600); do
    port=$(/usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/../common/server_lines.py" port "$log" || true)
    [[ -n $port ]] && break
    sleep 0.1
  done
  if [[ -z $port ]]; then
    kill "$pid" 2>/dev/null || true
    echo "the server did not start: $(cat "$log")" >&2
    return 1
  fi
  "${client_command[@]//@PORT@/$port}" >"$client_log" 2>&1 || {
    kill -KILL "$pid" 2>/dev/null || true
    echo "the client failed: $(tail -3 "$client_log")" >&2
    return 1
  }
  kill -INT "$pid"
  wait "$pid" || true
  # The totals line of the output: "summary: <Ir>" (callgrind's own format).
  sed -n 's/^summary: \([0-9]*\)/\1/p' "$file"
}
