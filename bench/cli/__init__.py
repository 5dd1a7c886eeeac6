"""The command line: `bazel run //:bench` (suite.sh runs suite.py), which parses the flags into a Plan (plan.py) and
runs it (pipeline.py): the parts through scenarios/ and running/'s round loop, the report through reporting/."""
