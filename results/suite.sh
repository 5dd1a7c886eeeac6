#!/usr/bin/env bash
# `bazel run //:bench`: runs the standard comparison with Debian's Python (standard library only).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export RUNFILES_DIR="${RUNFILES_DIR:-$0.runfiles}"
script="$RUNFILES_DIR/netbench/results/suite.py"
[ -f "$script" ] || script="$here/suite.py"
exec /usr/bin/python3 "$script" "$@"
