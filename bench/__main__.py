"""`/usr/bin/python3 -m bench [flags]` from the checkout: the same as `bazel run //:bench -- [flags]`, with the
programs built by bazel beforehand (bench/running/binaries.py finds or builds them)."""

import sys

from bench.cli import suite

sys.exit(suite.main(sys.argv[1:]))
