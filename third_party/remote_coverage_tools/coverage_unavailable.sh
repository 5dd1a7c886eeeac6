#!/bin/sh
echo "netbench: bazel coverage is unavailable offline (remote_coverage_tools is a local stub)." >&2
echo "Use gcov/llvm-cov by hand if you need coverage." >&2
exit 1
