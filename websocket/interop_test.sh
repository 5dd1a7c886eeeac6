#!/bin/bash
# Interop with Debian's python3-websockets: see testdata/interop_test.py.
set -euo pipefail
PY=/usr/bin/python3
if [[ ! -x "$PY" ]]; then
  echo "FAIL: $PY is missing; install Debian's python3 and python3-websockets (tools/bootstrap.sh)" >&2
  exit 1
fi
if ! "$PY" -c "import websockets" 2>/dev/null; then
  echo "FAIL: $PY cannot import websockets; apt-get install python3-websockets (tools/bootstrap.sh)" >&2
  exit 1
fi
R="${TEST_SRCDIR}/${TEST_WORKSPACE}/websocket"
export PYTHONPATH="${TEST_SRCDIR}/${TEST_WORKSPACE}"  # the ready line's parser: common/server_lines.py
# The arguments: the server models this build has (BUILD.bazel).
exec "$PY" "$R/testdata/interop_test.py" "$R/server" "$R/client" "$@"
