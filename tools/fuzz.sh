#!/bin/bash
# Runs every fuzz target (common/fuzz.bzl) for a bounded time and fails on a crash, a leak, a timeout
# or a broken invariant (the differential targets' mismatches included).
#
#   tools/fuzz.sh             # 60 s per target
#   tools/fuzz.sh 10          # 10 s per target (CI's short pass)
#   tools/fuzz.sh 600 //websocket:utf8_fuzzer //common:url_fuzzer
#
# Builds with --config=fuzz (clang 14, libFuzzer, ASan, UBSan), then runs each target on a copy of its
# seed corpus (testdata/fuzz/<target> beside it), so what it finds stays out of the tree: new inputs
# go to $FUZZ_WORK/corpus/<target> (kept between runs, so later runs start where earlier ones ended),
# a failing input to $FUZZ_WORK/findings/<target>/ (crash-*, leak-*, timeout-*). A finding becomes a
# seed file and a fix; the seed's replay test (<target>_corpus_test) then guards it.
#
# Prints, per target, the executions run and the coverage libFuzzer reached (cov: edges, ft: features).
set -euo pipefail

cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=(
    //websocket:message_reader_fuzzer
    //websocket:close_frame_fuzzer
    //websocket:utf8_fuzzer
    //websocket:mask_fuzzer
    //websocket:handshake_request_fuzzer
    //websocket:handshake_response_fuzzer
    //httpfanout:response_parser_fuzzer
    //httpfanout:request_parser_fuzzer
    //httpfanout:chunked_decoder_fuzzer
    //common:url_fuzzer
  )
fi
work="${FUZZ_WORK:-${TMPDIR:-/tmp}/netbench-fuzz}"
mkdir -p "$work/bin"

bazel build --config=fuzz "${targets[@]}"
bin_dir="$(bazel info --config=fuzz bazel-bin 2>/dev/null)"
# Copies: a later default build writes its own binaries to the same paths.
for target in "${targets[@]}"; do
  package="${target#//}"; package="${package%%:*}"; name="${target##*:}"
  cp -f "$bin_dir/$package/$name" "$work/bin/$name"
done

# One target: its run, then its summary line in $work/<target>.summary ("FAILED" in it when it failed).
fuzz_one() {
  local target=$1 package name corpus findings log status=0 execs cov
  package="${target#//}"; package="${package%%:*}"; name="${target##*:}"
  corpus="$work/corpus/$name"
  findings="$work/findings/$name"
  log="$work/$name.log"
  mkdir -p "$corpus" "$findings"
  echo "== $name: ${seconds} s"
  # -timeout: one input taking over 10 s is a finding; ASan's leak check is on by default.
  "$work/bin/$name" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$findings/" "$corpus" "$package/testdata/fuzz/$name" >"$log" 2>&1 || status=$?
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  cov="$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)"
  if [[ $status -ne 0 ]]; then
    printf '%-28s FAILED (exit %d): see %s and %s\n' "$name" "$status" "$log" "$findings" >"$work/$name.summary"
    grep -m5 -E 'ERROR|fuzz invariant|SUMMARY|Test unit written' "$log" || tail -20 "$log"
  else
    printf '%-28s %12s execs  %s\n' "$name" "${execs:-?}" "${cov:-cov: ?}" >"$work/$name.summary"
  fi
}

# As many targets at once as there are CPUs: each fuzzer is one process on one core, so the pass takes
# targets / CPUs times its seconds.
running=0
for target in "${targets[@]}"; do
  if (( running >= $(nproc) )); then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
wait

failed=0
summary=()
for target in "${targets[@]}"; do
  summary+=("$(cat "$work/${target##*:}.summary")")
  [[ ${summary[-1]} == *FAILED* ]] && failed=1
done

echo
echo "== fuzz.sh ${seconds} s per target"
printf '%s\n' "${summary[@]}"
exit "$failed"
