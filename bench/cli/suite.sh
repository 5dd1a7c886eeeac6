#!/usr/bin/env bash
# `bazel run //:bench`: runs the standard comparison (bench/cli/suite.py) with Debian's Python, the runfiles'
# workspace folder on the module path so that `bench.<concern>` imports resolve.
set -euo pipefail
export RUNFILES_DIR="${RUNFILES_DIR:-$0.runfiles}"
root="$RUNFILES_DIR/netbench"
[ -f "$root/bench/cli/suite.py" ] || root="$(cd "$(dirname "$0")/../.." && pwd)"
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
exec /usr/bin/python3 -m bench.cli.suite "$@"
