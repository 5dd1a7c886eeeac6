"""netbench's standard comparison: `bazel run //:bench` (or `/usr/bin/python3 results/suite.py`).

Runs, in order, the microbenchmarks (Google Benchmark binaries) and each whole-program benchmark
(results/*_bench.py: echo, websocket, httpfanout, each against the Go reference peers when Go is
installed), then writes results/data/<machine>/REPORT.md with every table, beside the JSON of each part.

    bazel run //:bench                                # everything, 3 interleaved samples per case
    bazel run //:bench -- --only=echo --samples=5     # one part
    bazel run //:bench -- --quick                     # smoke check: tiny loads, minutes not tens of minutes
"""

import argparse
import importlib
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import benchlib  # noqa: E402

# Google Benchmark binaries, in the order they run. Missing ones are reported, not fatal.
MICROBENCHMARKS = [
    "//common:histogram_benchmark",
    "//common:kernel_cost_benchmark",
    "//common:tls_benchmark",
    "//websocket:frame_benchmark",
    "//websocket:mask_benchmark",
    "//websocket:utf8_benchmark",
    "//websocket:handshake_benchmark",
    "//httpfanout:response_parser_benchmark",
    "//httpfanout:chunked_decoder_benchmark",
]

# Whole-program benchmarks: results/<name>_bench.py, each with main(argv) -> exit code.
PROGRAM_BENCHMARKS = ["echo", "websocket", "httpfanout"]


def run_microbenchmarks(quick):
    rows = []
    for label in MICROBENCHMARKS:
        try:
            binary = benchlib.bazel_binary(label)
        except Exception as error:  # noqa: BLE001 - a missing target is reported, the suite goes on
            benchlib.log(f"skip {label}: {error}")
            continue
        benchlib.log(f"== {label}")
        args = [binary, "--benchmark_format=json"]
        if quick:
            args.append("--benchmark_min_time=0.01")
        result = benchlib.run_client(args, timeout_s=600)
        if result.returncode != 0:
            benchlib.log(f"{label} failed ({result.returncode}): {result.stderr[-1000:]}")
            continue
        document = json.loads(result.stdout)
        for bench in document.get("benchmarks", []):
            if bench.get("run_type") == "aggregate" and bench.get("aggregate_name") != "median":
                continue
            row = {"binary": label, "benchmark": bench["name"],
                   "cpu_ns": bench.get("cpu_time") if bench.get("time_unit") == "ns" else None,
                   "real_ns": bench.get("real_time") if bench.get("time_unit") == "ns" else None}
            if "bytes_per_second" in bench:
                row["GB_per_s"] = bench["bytes_per_second"] / 1e9
            if "items_per_second" in bench:
                row["M_items_per_s"] = bench["items_per_second"] / 1e6
            rows.append(row)
            benchlib.log(f"  {bench['name']}: {benchlib._format(row.get('cpu_ns'))} ns cpu"
                         + (f", {row['GB_per_s']:.2f} GB/s" if "GB_per_s" in row else ""))
    benchlib.write_results("microbenchmarks", rows,
                           notes="Google Benchmark, default build flags (-c opt). CPU time per iteration.",
                           summary_rows=rows,
                           columns=["binary", "benchmark", "cpu_ns", "real_ns", "GB_per_s", "M_items_per_s"])


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    benchlib.common_arguments(parser)
    parser.add_argument("--only", default="", help="comma-separated parts: micro," + ",".join(PROGRAM_BENCHMARKS))
    args = parser.parse_args(argv)
    parts = [p for p in args.only.split(",") if p] or ["micro"] + PROGRAM_BENCHMARKS
    unknown = [p for p in parts if p not in ["micro"] + PROGRAM_BENCHMARKS]
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; choose from micro,{','.join(PROGRAM_BENCHMARKS)}")
    if args.samples < 1:
        parser.error("--samples must be at least 1")

    started = time.monotonic()
    failures = []
    if "micro" in parts:
        run_microbenchmarks(args.quick)
    for name in PROGRAM_BENCHMARKS:
        if name not in parts:
            continue
        try:
            module = importlib.import_module(f"{name}_bench")
        except ImportError as error:
            benchlib.log(f"skip {name}: {error}")
            continue
        benchlib.log(f"==== {name} benchmark")
        forwarded = [f"--samples={args.samples}"] + (["--quick"] if args.quick else [])
        try:
            code = module.main(forwarded)
        except Exception as error:  # noqa: BLE001 - one failing part must not hide the others
            benchlib.log(f"{name} benchmark failed: {error!r}")
            code = 1
        if code:
            failures.append(name)

    write_report()
    benchlib.log(f"suite finished in {time.monotonic() - started:.0f} s"
                 + (f"; failed parts: {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


def write_report():
    """Concatenates every part's table into REPORT.md, the page to read first."""
    directory = benchlib.results_dir()
    sections = []
    for name in ["echo_bench", "websocket_bench", "httpfanout_bench", "microbenchmarks"]:
        path = os.path.join(directory, f"{name}.md")
        if os.path.exists(path):
            with open(path) as f:
                sections.append(f.read())
    env = benchlib.environment()
    header = (f"# netbench report: {benchlib.machine_label()}\n\n"
              f"{env['cpu_model']}, {env['cores']} cores, {env['os']} {env['kernel']}, commit "
              f"{env['git_commit']}, {env['timestamp_utc']}.\n\n"
              "Every figure is a median over interleaved samples taken in one run; ratios compare cases of "
              "the same run. JSON with every sample sits beside this file.\n\n")
    with open(os.path.join(directory, "REPORT.md"), "w") as f:
        f.write(header + "\n".join(sections))
    benchlib.log(f"wrote {os.path.join(directory, 'REPORT.md')}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
