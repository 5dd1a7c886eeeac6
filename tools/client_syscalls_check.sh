#!/usr/bin/env bash
# The client driver's own count of its system calls (//echo:client --json: counts.system_calls)
# against the kernel's (perf stat -e raw_syscalls:sys_enter over the whole client process), per
# model and load, with N and 2N messages: the differences of the two runs must agree (the per-
# message cost); the totals differ by what the driver does not count, the same in both runs (the
# process's start and exit, its threads' creation, the orchestrating thread's waits, the report).
#
#   tools/client_syscalls_check.sh bazel-bin/echo/server bazel-bin/echo/client 20000
#   -> "pingpong 1 epoll: perf 60582 -> 120584 (+60002), own 60011 -> 120011 (+60000)"
#
# Loopback only; the server runs epoll; each client run is bounded by its --timeout.
set -euo pipefail

server=$1 client=$2 messages=$3
out=$(mktemp -d)
trap 'kill -INT "$pid" 2>/dev/null || true; rm -rf "$out"' EXIT

"$server" --port=0 --model=epoll >"$out/server.log" 2>&1 &
pid=$!
port=""
for _ in $(seq 600); do
  port=$(/usr/bin/python3 "$(dirname "$0")/../common/server_lines.py" port "$out/server.log" || true)
  [[ -n $port ]] && break
  sleep 0.1
done
[[ -n $port ]] || { echo "the server did not start: $(cat "$out/server.log")" >&2; exit 1; }

# Prints "<perf count> <own count>" of one client run of `count` messages.
run() {
  local mode=$1 clients=$2 model=$3 count=$4
  perf stat -x, -e raw_syscalls:sys_enter -o "$out/perf.txt" -- "$client" "--port=$port" \
    "--model=$model" "--mode=$mode" "--clients=$clients" "--messages=$count" --timeout=120s \
    "--json=$out/client.json" >"$out/client.log" 2>&1
  echo "$(grep raw_syscalls "$out/perf.txt" | cut -d, -f1)" \
    "$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['counts']['system_calls'])" \
      "$out/client.json")"
}

for load in "pingpong 1" "stream 3"; do
  for model in threads poll epoll; do
    read -r perf_n own_n < <(run $load "$model" "$messages")
    read -r perf_2n own_2n < <(run $load "$model" $((2 * messages)))
    echo "$load $model: perf $perf_n -> $perf_2n (+$((perf_2n - perf_n)))," \
      "own $own_n -> $own_2n (+$((own_2n - own_n)))"
  done
done
