"""netbench's standard comparison: `bazel run //:bench` (or `/usr/bin/python3 -m bench` from the checkout).

Settles the three public write-ups netbench exists for. Every system compared is an entry of the contestant
registry (bench/registry/contestants.json): the write-ups' own programs (Racket, Go, Clojure on the JVM, curl,
nginx) and netbench's. The main job runs the microbenchmarks, then each write-up's load over every
contestant, interleaved in rounds, and writes results/data/<machine>/REPORT.md, which opens with one computed
verdict per claim and the table behind it, beside JSON with every sample.

    bazel run //:bench                                    # micro, echo, websocket, fanout (about 26 min)
    bazel run //:bench -- --quick                         # smoke check: tiny loads, one round (3 min)
    bazel run //:bench -- --only=echo                     # one write-up
    bazel run //:bench -- --only=racket,go,go-spammer     # chosen contestants (and their scenario)
    bazel run //:bench -- --skip=jvm --placement=shared   # leave one out; servers and loads share the CPUs
    bazel run //:bench -- --contestants=my.json           # your own registry (README: add your contestant)
    bazel run //:bench -- --only=echo-models              # the netbench-vs-Go detail scenarios
    bazel run //:bench -- --rerender                      # tables and charts again from the stored samples
    bazel run //:bench -- --server-host=bench@10.0.0.11 --client-hosts=10.0.0.12,10.0.0.13 --compare-loopback
                                                          # echo and websocket over a network (README)
"""

import argparse
import json
import os
import sys
import time

from bench.analysis import histogram_merge
from bench.registry import registry
from bench.reporting import charts
from bench.reporting import remote_report
from bench.reporting import result_files
from bench.reporting import result_schema
from bench.reporting import run_environment
from bench.reporting import tables
from bench.running import binaries
from bench.running import checkout
from bench.running import client_process
from bench.running import contest
from bench.running import placement as cpu_placement
from bench.running import progress
from bench.running import remote_placement
from bench.running import scheduler
from bench.running import ssh_host
from bench.scenarios import catalogue
from bench.scenarios import kernel_costs
from bench.scenarios import scenarios

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

def run_microbenchmarks(quick):
    rows = []
    for label in MICROBENCHMARKS:
        try:
            binary = binaries.bazel_binary(label)
        except Exception as error:  # noqa: BLE001 - a missing target is reported, the suite goes on
            progress.log(f"skip {label}: {error}")
            continue
        progress.log(f"== {label}")
        args = [binary, "--benchmark_format=json"]
        if quick:
            args.append("--benchmark_min_time=0.01")
        result = client_process.run_client(args, timeout_s=600)
        if result.returncode != 0:
            progress.log(f"{label} failed ({result.returncode}): {result.stderr[-1000:]}")
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
            progress.log(f"  {bench['name']}: {tables.format_number(row.get('cpu_ns'))} ns cpu"
                         + (f", {row['GB_per_s']:.2f} GB/s" if "GB_per_s" in row else ""))
    result_files.write_results("microbenchmarks", rows,
                               notes="Google Benchmark, default build flags (-c opt). CPU time per iteration.",
                               summary_rows=rows,
                               columns=["binary", "benchmark", "cpu_ns", "real_ns", "GB_per_s", "M_items_per_s"])


# Every scenario is a definition (bench/scenarios/catalogue.py) run by the one round loop: the write-ups, and the
# netbench-vs-Go detail scenarios, run when named.
WRITEUP_PARTS = [d.name for d in catalogue.WRITEUPS]
DETAIL_PARTS = [d.name for d in catalogue.DETAILS]
PARTS = ["micro"] + WRITEUP_PARTS + DETAIL_PARTS
DEFAULT_PARTS = ["micro"] + WRITEUP_PARTS
DEFAULT_REGISTRY = registry.DEFAULT_PATH


def split_words(text):
    return [w.strip() for w in text.split(",") if w.strip()]


def choose(args, entries):
    """(parts to run, contestants to use) from --only/--skip; exits 2 naming any word that matches nothing."""
    only, skip = split_words(args.only), split_words(args.skip)
    unknown = [w for w in registry.unknown_words(entries, only + skip) if w not in PARTS]
    if unknown:
        progress.log(f"bench: --only/--skip: {', '.join(unknown)} names no part ({', '.join(PARTS)}) and no "
                     f"contestant, system or scenario of {args.contestants}")
        sys.exit(2)
    contestant_only = [w for w in only if w not in PARTS or w in WRITEUP_PARTS]
    contestant_skip = [w for w in skip if w not in PARTS or w in WRITEUP_PARTS]
    chosen = registry.select(entries, contestant_only, contestant_skip)
    parts = [p for p in only if p in PARTS]
    if not parts:
        parts = DEFAULT_PARTS if not only else [s for s in WRITEUP_PARTS if any(e["scenario"] == s for e in chosen)]
    return [p for p in PARTS if p in parts and p not in skip], chosen


# The parts that run on remote hosts (--server-host, --client-hosts): those whose definition names a case's
# fields over a link; the fan-out's figure is one client's wall time, which a fleet does not sum.
REMOTE_PARTS = [d.name for d in catalogue.WRITEUPS + catalogue.DETAILS if d.link_keys]


def open_placement(args, entries):
    """The remote hosts of --server-host/--client-hosts, connected, checked and given their binaries; None
    without them. Raises ssh_host.RemoteError naming the host when one cannot be used."""
    if not args.server_host:
        return None
    placement = remote_placement.RemotePlacement(
        args.server_host, split_words(args.client_hosts), ssh_config=args.ssh_config, remote_dir=args.remote_dir,
        server_address=args.server_address)
    try:
        placement.open()
        placement.prepare([e for e in entries if e["scenario"] in REMOTE_PARTS])
    except BaseException:
        placement.close()
        raise
    return placement


def _runners(args, placement, definition):
    """{name: Runner}: the placements of this machine the part runs under, or the remote hosts' runner (and,
    with --compare-loopback, the loopback one beside it: {link: runner})."""
    if placement is None:
        # On a single CPU there is nothing to split: a split runner there is not pinned, and is left out.
        made = {name: contest.Runner(pin=name == "split") for name in definition.placements or args.placements}
        return {name: runner for name, runner in made.items() if name == "shared" or runner.pin}
    # Programs started over SSH are not pinned, so neither is the loopback case they are compared with.
    remote = contest.Runner(pin=False, placement=placement, link="remote" if args.compare_loopback else None)
    if args.compare_loopback:
        return {"loopback": contest.Runner(pin=False, link="loopback"), "remote": remote}
    return {None: remote}


def _where(runners, placement, compare_loopback):
    """How the run placed its programs, for the Markdown's header."""
    if placement is not None:
        return (placement.describe() + ("; every case also on loopback on this machine, in the same rounds"
                                        if compare_loopback else "") + "; nothing pinned to CPUs")
    return "; ".join(
        f"{r.placement_name}: servers on CPUs {','.join(map(str, sorted(r.server_cpus)))}, loads on "
        f"{','.join(map(str, sorted(r.client_cpus)))}" if r.pin else
        f"{r.placement_name}: servers and loads free to use every CPU" for r in runners.values())


def _header(env, how, rows, quick, interrupted):
    return (f"{'QUICK SMOKE RUN: not a measurement. ' if quick else ''}"
            f"{f'INTERRUPTED (Ctrl-C): partial, the {len(rows)} run(s) that finished; the rest did not run. ' if interrupted else ''}"
            f"Run {env['timestamp_utc']}, commit {env['git_commit']}, {how}; servers run in a session of their own, "
            "as if started from a second terminal (with Linux's autogroup scheduling that decides how server and "
            "load share the cores). CPU figures are the scheduler's exact run time of each whole process (threads "
            "that exited included), not 10 ms ticks.\n\n")


def _stored_header(document):
    """What a re-rendered section says of the run it comes from."""
    env = document["environment"]
    converted = (f", converted from {document['converted_from']} on read" if document.get("converted_from")
                 else "")
    return (f"{'INTERRUPTED (Ctrl-C): partial, the runs that finished. ' if document.get('partial') else ''}"
            f"Run {env['timestamp_utc']}, commit {env['git_commit']}, {env['cpu_model']}, {env['cores']} cores, "
            f"{env['os']} {env['kernel']}; re-rendered from its stored samples{converted}.\n\n")


def _settings(definition, args, placement, runners):
    settings = definition.settings_for(vars(args), quick=args.quick)
    settings["placements"] = [r.placement_name for r in runners.values()]
    if placement is not None:
        settings["hosts"] = {"server": placement.server_target, "server_address": placement.server_address,
                             "clients": placement.client_targets, "compare_loopback": bool(args.compare_loopback)}
    return settings


def run_part(definition, entries, args, env, placement=None):
    """Runs one scenario (a write-up or a detail scenario: its definition) over the chosen contestants through
    the round loop; writes <document>.json and .md. Interrupted (Ctrl-C), it writes every row that finished,
    the document marked `partial`, and raises KeyboardInterrupt."""
    runners = _runners(args, placement, definition)
    settings = _settings(definition, args, placement, runners)
    cases, fates = definition.cases(entries, runners, settings)
    outcome = scheduler.run(definition.focused(cases), runners,
                            scheduler.Plan(rounds=settings["samples"], name=definition.name))
    scenarios.note_failures(fates, outcome.failed_servers)
    rows = outcome.rows
    section = definition.section(_on_the_link(rows), fates, settings)
    document = {"schema": result_schema.current(result_schema.WRITEUP), "part": definition.name,
                "environment": env, "settings": settings,
                "registry": os.path.relpath(os.path.abspath(args.contestants), checkout.repo_root()),
                "contestants": fates, "verdicts": section["verdicts"], "rows": rows}
    if definition.merge_histograms:
        document["histograms"] = histogram_merge.merge_case_histograms(rows, definition.merge_histograms)
    if placement is not None and definition.link_keys:
        extra, document["links"] = remote_report.section(rows, definition.link_keys, placement.describe(),
                                                         max(len(placement.client_targets), 1))
        section["markdown"] += extra
        if document["links"] is None:
            del document["links"]
    if outcome.interrupted:
        document["partial"] = True
    header = _header(env, _where(runners, placement, args.compare_loopback), rows, args.quick, outcome.interrupted)
    _write_part(definition, document, section["markdown"].replace("\n\n", "\n\n" + header, 1))
    if outcome.interrupted:
        raise KeyboardInterrupt(f"{definition.name} interrupted after {len(rows)} run(s)")
    return 0 if all(r.get("status") == "ok" for r in rows) else 1


def _write_part(definition, document, markdown):
    directory = result_files.results_dir()
    errors = result_files.write_document(os.path.join(directory, f"{definition.document}.json"), document)
    result_files.write_text(os.path.join(directory, f"{definition.document}.md"), markdown)
    progress.log(f"wrote {directory}/{definition.document}.json and .md")
    if errors:
        raise result_schema.SchemaError(f"{definition.document}.json", errors)
    for line in document["verdicts"]:
        progress.log(f"  verdict: {line['claim']}: {line['verdict']}")


def _on_the_link(rows):
    """The rows the verdicts are computed from: with --compare-loopback, the remote link's."""
    return [r for r in rows if r.get("link") in (None, "remote")]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=10,
                        help="interleaved rounds of the echo and websocket write-ups and the detail benches "
                             "(default 10: the most that keeps the main job within 30 minutes with both "
                             "placements; every verdict says the smallest difference its rounds could detect and "
                             "the rounds that would resolve what it saw; a paired interval needs 2)")
    parser.add_argument("--quick", action="store_true", help="tiny loads, one round: a smoke check, not a measurement")
    parser.add_argument("--only", default="",
                        help="comma-separated parts (" + ",".join(PARTS) + ") and/or contestant, system or scenario "
                             "names of the registry (default: " + ",".join(DEFAULT_PARTS) + ")")
    parser.add_argument("--skip", default="", help="comma-separated parts or contestants to leave out")
    parser.add_argument("--contestants", default=DEFAULT_REGISTRY, metavar="FILE",
                        help="the contestant registry (default: bench/registry/contestants.json)")
    parser.add_argument("--placement", default=None, metavar="shared,split",
                        help="where server and load run on this machine's CPUs, either or both (default both): "
                             "shared = every CPU for both, as the write-ups ran them (the headline verdicts); "
                             "split = disjoint halves, each side's efficiency with a core of its own")
    parser.add_argument("--pin", action=argparse.BooleanOptionalAction, default=None,
                        help="the older spelling: --pin is --placement=split, --no-pin --placement=shared (given "
                             "with --placement, the two must agree)")
    parser.add_argument("--echo_seconds", type=float, default=1.0,
                        help="length of one echo run (default 1: the CPU clocks are exact, so more rounds of a "
                             "short run buy more than a few long ones)")
    parser.add_argument("--websocket_messages", type=int, default=20000,
                        help="messages per websocket client (default 20,000; the write-up sent 100,000)")
    parser.add_argument("--fanout_samples", type=int, default=3, help="rounds of the fan-out write-up (default 3)")
    parser.add_argument("--fanout_reps", type=int, default=3, help="timed fan-outs per client run (default 3)")
    parser.add_argument("--list", action="store_true", help="list the registry's contestants and exit")
    parser.add_argument("--rerender", action="store_true",
                        help="rewrite the detail benches' tables, REPORT.md and its charts from the stored samples "
                             "(JSON) of this machine, running nothing")
    remote = parser.add_argument_group("remote hosts, over OpenSSH (echo and websocket write-ups; README)")
    remote.add_argument("--server-host", metavar="[USER@]HOST",
                        help="run the servers there (ssh with BatchMode: a key the host accepts, no prompt)")
    remote.add_argument("--client-hosts", default="", metavar="H1,H2,...",
                        help="run each load on every one of these at once, started together, merged into one row")
    remote.add_argument("--server-address", metavar="ADDR",
                        help="the address the clients reach the server at (default: the HOST of --server-host)")
    remote.add_argument("--remote-dir", metavar="DIR",
                        help="the binaries are installed there on every host (<package>/<target>); "
                             "default: copy them to ~/.cache/netbench/bin there, when the host is this OS and CPU")
    remote.add_argument("--ssh-config", metavar="FILE", help="ssh's -F: the configuration for these connections")
    remote.add_argument("--compare-loopback", action="store_true",
                        help="also run every case on loopback, in the same rounds, and report them side by side")
    return _run(parser, parser.parse_args(argv))


def _run(parser, args):
    """Checks the flags (parser.error names a wrong one), then lists the registry or runs the chosen parts."""
    if args.rerender:
        return rerender()
    try:
        args.placements = cpu_placement.parse(args.placement or ",".join(cpu_placement.NAMES))
    except ValueError as error:
        parser.error(str(error))
    if args.pin is not None:
        implied = ["split" if args.pin else "shared"]
        if args.placement is not None and args.placements != implied:
            parser.error(f"--{'' if args.pin else 'no-'}pin means --placement={implied[0]}, but --placement="
                         f"{args.placement} was given too: name one")
        args.placements = implied
    if args.samples < 1 or args.fanout_samples < 1 or args.fanout_reps < 1:
        parser.error("--samples, --fanout_samples and --fanout_reps must be at least 1")
    remote_flags = [f for f in ("client_hosts", "server_address", "remote_dir", "ssh_config", "compare_loopback")
                    if getattr(args, f)]
    if remote_flags and not args.server_host:
        parser.error(f"--{remote_flags[0].replace('_', '-')} needs --server-host (the server's machine; "
                     "it may be this one's address)")
    try:
        entries = registry.load(args.contestants)
    except registry.RegistryError as error:
        progress.log(f"bench: the contestant registry is not usable; nothing ran:\n{error}")
        return 2
    if args.list:
        for e in entries:
            print(f"{e['scenario']:9} {e['role']:6} {e['name']:22} {e['about']}")
        return 0
    parts, chosen = choose(args, entries)
    if args.server_host:
        named = [p for p in split_words(args.only) if p in PARTS and p not in REMOTE_PARTS]
        if named:
            parser.error(f"--server-host runs {', '.join(REMOTE_PARTS)}; {', '.join(named)} "
                         "runs on this machine only")
        parts = [p for p in parts if p in REMOTE_PARTS]
    progress.log(f"bench: parts {', '.join(parts) or '(none)'}; {len(chosen)} contestant(s) from {args.contestants}")
    if args.server_host and not (os.environ.get("NETBENCH_RESULTS_LABEL") or os.environ.get("NETBENCH_RESULTS_DIR")):
        # Beside this machine's loopback results, not over them.
        os.environ["NETBENCH_RESULTS_LABEL"] = run_environment.machine_label() + "-over-ssh"
    try:
        placement = open_placement(args, chosen)
    except ssh_host.RemoteError as error:
        progress.log(f"bench: {error}; nothing ran")
        return 1
    try:
        return _run_parts(args, parts, chosen, placement)
    finally:
        if placement is not None:
            placement.close()


def _run_parts(args, parts, chosen, placement):
    started = time.monotonic()
    # The kernel's prices of this run, beside every scenario's rows; the microbenchmarks run the same
    # benchmark in full.
    costs = kernel_costs.measure_kernel_costs() if set(parts) - {"micro"} else None
    env = run_environment.environment(costs)
    if "micro" in parts:
        run_microbenchmarks(args.quick)
    failures = []
    for part in [p for p in parts if p in catalogue.BY_PART]:
        definition = catalogue.BY_PART[part]
        progress.log(f"==== {part}")
        try:
            code = run_part(definition, chosen, args, env, placement)
        except KeyboardInterrupt:
            # The part wrote what finished, marked partial; the report links it, and nothing more runs.
            return _interrupted(env, part, f"{definition.document}.json")
        except result_files.ResultWriteError as error:
            progress.log(f"{part}: its results could not be stored: {error}")
            code = 1
        except Exception as error:  # noqa: BLE001 - one failing part must not hide the others
            progress.log(f"{part} failed: {error!r}")
            code = 1
        if code:
            failures.append(part)
    try:
        write_report(env)
    except OSError as error:  # its charts' files too (a full disk)
        progress.log(f"bench: REPORT.md could not be written: {error}")
        failures.append("REPORT.md")
    progress.log(f"suite finished in {time.monotonic() - started:.0f} s"
                 + (f"; parts with failed runs: {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


def _interrupted(env, what, document):
    """Ctrl-C during `what`, which wrote what finished to `document`, marked partial: the report links it,
    nothing more runs, and the suite exits 130 (128 + SIGINT), as the shell reports an interrupted program."""
    try:
        write_report(env)
    except OSError as error:
        progress.log(f"bench: REPORT.md could not be written: {error}")
    progress.log(f"bench: interrupted during {what}; its finished runs are kept, marked partial, in "
                 f"{result_files.results_dir()}/{document}; later parts did not run")
    return 130


def rerender():
    """Tables and charts again from the stored samples, running nothing: each detail scenario's section from its
    stored rows (an older document converted on read), then REPORT.md and its charts, with the environment of
    the run that wrote the report."""
    directory = result_files.results_dir()
    for definition in catalogue.DETAILS:
        path = os.path.join(directory, f"{definition.document}.json")
        if os.path.exists(path):
            document = result_schema.load(path)
            section = definition.section(document["rows"], document["contestants"], document["settings"])
            result_files.write_text(os.path.join(directory, f"{definition.document}.md"),
                                    section["markdown"].replace("\n\n", "\n\n" + _stored_header(document), 1))
    stored = [os.path.join(directory, f"{name}.json") for name in
              [d.document for d in catalogue.WRITEUPS] + ["microbenchmarks"]]
    stored = [path for path in stored if os.path.exists(path)]
    if not stored:
        progress.log(f"bench --rerender: no stored write-up or microbenchmark results in {directory}")
        return 1
    with open(stored[0]) as f:
        write_report(json.load(f)["environment"])
    return 0


def write_report(env):
    """REPORT.md, the page to read first: a verdict section per write-up, then the microbenchmarks and the
    detail benches, each section from the newest run of its part on this machine, with its charts
    (bench/reporting/charts.py) beside its tables."""
    directory = result_files.results_dir()
    drawn = charts.draw_report_charts(directory)
    sections = []
    for name in ([d.document for d in catalogue.WRITEUPS] + ["microbenchmarks"]
                 + [d.document for d in catalogue.DETAILS]):
        path = os.path.join(directory, f"{name}.md")
        if os.path.exists(path):
            with open(path) as f:
                text = f.read()
            if name not in [d.document for d in catalogue.WRITEUPS]:
                text = text.replace("# ", "## ", 1)
            sections.append(charts.link_charts(text, drawn.get(name, [])))
    costs = env.get("kernel_costs_us") or {}
    header = (f"# netbench report: {run_environment.machine_label()}\n\n"
              f"{env['cpu_model']}, {env['cores']} cores, {env['os']} {env['kernel']}, commit "
              f"{env['git_commit']}, {env['timestamp_utc']}.\n\n"
              + ("Kernel prices in this run (us of CPU, //common:kernel_cost_benchmark): "
                 + ", ".join(f"{k} {tables.format_number(v)}" for k, v in costs.items()) + ".\n\n" if costs else "")
              + "Each section below comes from one run and names it; every figure is a median over interleaved "
              "rounds of that run, and every verdict is computed from its samples (bench/analysis/verdict.py), "
              "pairing the rounds: the 95% interval of the per-round ratio A/B (a t interval on its logs) "
              "decides **holds** or **reversed** when it excludes 1, **equivalent within ±2%** when it lies "
              "inside 0.98 .. 1.02, otherwise **not separable on this machine**, beside the smallest "
              "difference the run could have detected. JSON with every sample sits beside this file.\n\n")
    result_files.write_text(os.path.join(directory, "REPORT.md"), header + "\n".join(sections))
    progress.log(f"wrote {os.path.join(directory, 'REPORT.md')}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
