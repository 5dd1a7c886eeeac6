"""The command line: `bazel run //:bench` (suite.sh runs suite.py), which picks the parts and contestants from the
flags, runs them through scenarios/ and writes REPORT.md through reporting/."""
