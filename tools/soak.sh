#!/usr/bin/env bash
# Soak: every server in every model under a bounded mixed load, sampled every 10 s; passes when
# RSS and descriptors return to their start (within the bounds' allowance) and no well-behaved client saw an
# error. Builds the programs, then runs tools/soak.py (see `tools/soak.sh --help` for the load, the
# allowance and the output):
#
#   tools/soak.sh                                   # 5 minutes of each server x model
#   tools/soak.sh --servers=origin --models=epoll --minutes=60 --out=results/data/soak
set -euo pipefail
cd "$(dirname "$0")/.."
for arg in "$@"; do
  case "$arg" in -h|--help) exec /usr/bin/python3 tools/soak.py --help ;; esac
done
targets=(//echo:server //echo:client //websocket:server //websocket:client //httpfanout:origin //httpfanout:fanout)
bazel build "${targets[@]}" >&2
exec /usr/bin/python3 tools/soak.py --bin-dir="$(bazel info bazel-bin)" "$@"
