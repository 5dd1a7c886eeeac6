#!/bin/sh
# The curl contestant of the fan-out scenario (bench/registry/contestants.json): REPS repetitions, each a fresh
# `curl --parallel` process fetching URL REQUESTS times at once (curl 7.88 caps --parallel-max at 300), timed
# from outside, printed as the other fan-out clients print them: "rep K: N ok, F errors, B bytes, wall S s".
# Certificates are not verified (-k), as for every https client of the scenario. Exits 1 when a request failed.
#
#   contestants/curl/fanout.sh URL REQUESTS REPS
set -eu
[ $# -eq 3 ] || { echo "usage: fanout.sh URL REQUESTS REPS" >&2; exit 2; }
url=$1 requests=$2 reps=$3
config=$(mktemp)
trap 'rm -f "$config"' EXIT
i=0
while [ "$i" -lt "$requests" ]; do
  printf 'url = "%s"\noutput = "/dev/null"\n' "$url" >> "$config"
  i=$((i + 1))
done
parallel=$((requests < 300 ? requests : 300))
failed_any=0
rep=1
while [ "$rep" -le "$reps" ]; do
  start=$(date +%s%N)
  codes=$(curl -s --no-progress-meter -k --max-time 60 --parallel --parallel-max "$parallel" --parallel-immediate -K "$config" \
    -w '%{http_code} %{size_download}\n' || true)
  end=$(date +%s%N)
  ok=$(printf '%s\n' "$codes" | grep -c '^200 ' || true)
  bytes=$(printf '%s\n' "$codes" | awk '$1 == 200 { b += $2 } END { printf "%d", b }')
  errors=$((requests - ok))
  [ "$errors" -eq 0 ] || failed_any=1
  awk -v r="$rep" -v ok="$ok" -v e="$errors" -v b="$bytes" -v ns=$((end - start)) \
    'BEGIN { printf "rep %d: %d ok, %d errors, %d bytes, wall %.3f s\n", r, ok, e, b, ns / 1e9 }'
  rep=$((rep + 1))
done
exit "$failed_any"
