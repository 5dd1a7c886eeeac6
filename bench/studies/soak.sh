#!/usr/bin/env bash
# Soak: every server in every model under a bounded mixed load, sampled every 10 s; passes when
# RSS and descriptors return to their start (within the bounds' allowance) and no well-behaved client saw an
# error. Builds the programs, then runs bench/studies/soak.py (see `bench/studies/soak.sh --help` for the load, the
# allowance and the output):
#
#   bench/studies/soak.sh                                   # 5 minutes of each server x model
#   bench/studies/soak.sh --servers=origin --models=epoll --minutes=60 --out=results/data/soak
set -euo pipefail
cd "$(dirname "$0")/../.."
for arg in "$@"; do
  case "$arg" in -h|--help) exec /usr/bin/python3 -m bench.studies.soak --help ;; esac
done
targets=(//echo:server //echo:client //websocket:server //websocket:client //httpfanout:origin //httpfanout:fanout)
bazel build "${targets[@]}" >&2
exec /usr/bin/python3 -m bench.studies.soak --bin-dir="$(bazel info bazel-bin)" "$@"
