#!/bin/sh
# The fan-out detail scenario's "curl-2x250" client: each repetition starts two curl fan-outs
# (contestants/curl/fanout.sh, one repetition of REQUESTS/2 each) at once and times the pair from outside,
# printed as every fan-out client prints a repetition: "rep K: N ok, F errors, B bytes, wall S s".
#
#   bench/scenarios/curl_pair.sh FANOUT_SH URL REQUESTS REPS
set -eu
[ $# -eq 4 ] || { echo "usage: curl_pair.sh FANOUT_SH URL REQUESTS REPS" >&2; exit 2; }
fanout=$1 url=$2 half=$(($3 / 2)) reps=$4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed_any=0
rep=1
while [ "$rep" -le "$reps" ]; do
  start=$(date +%s%N)
  "$fanout" "$url" "$half" 1 >"$out/a" 2>&1 &
  first=$!
  "$fanout" "$url" "$half" 1 >"$out/b" 2>&1 || failed_any=1
  wait "$first" || failed_any=1
  end=$(date +%s%N)
  cat "$out/a" "$out/b" | awk -v r="$rep" -v ns=$((end - start)) '
    /^rep / { ok += $3; e += $5; b += $7 }
    END { printf "rep %d: %d ok, %d errors, %d bytes, wall %.3f s\n", r, ok, e, b, ns / 1e9 }'
  rep=$((rep + 1))
done
exit "$failed_any"
