"""The microbenchmarks as a scenario: netbench's Google Benchmark binaries (the histogram, the kernel's prices, TLS,
the WebSocket frame, mask, UTF-8 and handshake code, the HTTP response parser and chunked decoder), one case per
benchmark, each run alone (no server) by the round loop like any other load, so that the rounds interleave them
and a slow minute of the machine falls on all alike. No claims: the section is the table of every benchmark's
CPU and real time per iteration and throughput, with the throughput chart of the ones run at several sizes.

    cases, fates = microbenchmarks.DEFINITION.cases([], {"shared": runner}, settings)
"""

import json
import re
import statistics
import subprocess

from bench.running import binaries
from bench.base import progress
from bench.design import scheduler
from bench.scenarios import section_parts
from bench.scenarios import definition
from bench.scenarios import detail_sections

# The binaries, in the order they run.
BINARIES = (
    "//common:histogram_benchmark",
    "//common:kernel_cost_benchmark",
    "//common:tls_benchmark",
    "//websocket:frame_benchmark",
    "//websocket:mask_benchmark",
    "//websocket:utf8_benchmark",
    "//websocket:handshake_benchmark",
    "//httpfanout:response_parser_benchmark",
    "//httpfanout:chunked_decoder_benchmark",
)
FIGURES = ("cpu_ns", "real_ns", "GB_per_s", "M_items_per_s")
# Google Benchmark's JSON: a run's CPU time per iteration (the row is "printed no cpu_ns" without one).
CPU_TIME = r'"cpu_time": (?P<value>[-+0-9.eE]+)'
NS_PER = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
# One benchmark runs for about its --benchmark_min_time (0.5 s by default) after a short estimate; a TLS
# handshake's setup adds a little. A run still going after this (plus the runner's margin) has hung.
BOUND_S = 60


def entry_of(label):
    """The client entry that runs one benchmark of binary `label` (its filter comes with the case)."""
    return {"name": label.rpartition(":")[2], "role": "client", "scenario": "micro", "system": "netbench",
            "about": f"Google Benchmark binary {label}", "packages": [], "env": {},
            "command": ["{" + label + "}", "--benchmark_format=json"], "result": {"cpu_ns": CPU_TIME}}


def benchmarks_of(label):
    """The benchmark names binary `label` runs (--benchmark_list_tests), built first where it must be;
    FileNotFoundError or subprocess.SubprocessError saying why it cannot run."""
    listed = subprocess.run([binaries.program_path(label), "--benchmark_list_tests"], capture_output=True,
                            text=True, timeout=60, check=True)
    return listed.stdout.split()


def figures(row, measured):
    """The row's figures from the run's JSON: per iteration, CPU and real time in ns, and its throughput."""
    if row["status"] != "ok":
        return
    try:
        runs = json.loads(measured.result.stdout).get("benchmarks", [])
    except (AttributeError, ValueError) as error:
        row.update(status="failed", error=f"its output is not Google Benchmark's JSON: {error}")
        return
    # With repetitions Google Benchmark adds aggregates: the median is the figure, else the one run.
    medians_ = [b for b in runs if b.get("aggregate_name") == "median"]
    run = (medians_ or [b for b in runs if b.get("run_type") != "aggregate"] or [{}])[0]
    per_ns = NS_PER.get(run.get("time_unit", "ns"))
    row["cpu_ns"] = run["cpu_time"] * per_ns if per_ns and "cpu_time" in run else None
    row["real_ns"] = run["real_time"] * per_ns if per_ns and "real_time" in run else None
    if "bytes_per_second" in run:
        row["GB_per_s"] = run["bytes_per_second"] / 1e9
    if "items_per_second" in run:
        row["M_items_per_s"] = run["items_per_second"] / 1e6


def _case(label, name, settings):
    min_time = settings.get("min_time_s")
    return scheduler.Case(
        fields={"binary": label, "benchmark": name}, server=None, client=entry_of(label),
        extra_args=(f"--benchmark_filter=^{re.escape(name)}$",)
        + ((f"--benchmark_min_time={min_time:g}",) if min_time else ()),
        bound_s=BOUND_S, figures=figures, shown=("cpu_ns", "ns of CPU an iteration"))


def _fate(label):
    entry = entry_of(label)
    return {k: entry[k] for k in ("name", "role", "system", "about", "env")} | {"command": label}


def cases(entries, runners, settings):
    """One case per benchmark of every binary, this machine's (the registry's `entries` and the `runners` name
    nothing here); a binary that cannot be built or listed is a failed fate, and the others still run."""
    found, fates = [], []
    for label in BINARIES:
        fate = _fate(label)
        try:
            names = benchmarks_of(label)
        except (OSError, subprocess.SubprocessError) as error:
            fate.update(status="failed", why=str(error))
            progress.log(f"  micro {label} failed: {error}")
        else:
            fate["status"] = "ran"
            found += [_case(label, name, settings) for name in names]
        fates.append(fate)
    return found, fates


def summary(rows):
    """One entry per benchmark, in the order they ran: its binary, name and the median of each figure over the
    rounds it ran (CPU and real time always, throughput where it counts bytes or items)."""
    entries = []
    for case in dict.fromkeys((r["binary"], r["benchmark"]) for r in rows):
        ran = [r for r in rows if (r["binary"], r["benchmark"]) == case and r["status"] == "ok"]
        entry = {"binary": case[0], "benchmark": case[1]}
        for figure in FIGURES:
            values = [r[figure] for r in ran if r.get(figure) is not None]
            if values or figure in ("cpu_ns", "real_ns"):
                entry[figure] = statistics.median(values) if values else None
        entries.append(entry)
    return entries


def _failures(rows):
    return [{"where": f"{r['binary']} {r['benchmark']}", "error": r.get("error"), "tail": r.get("tail")}
            for r in rows if r["status"] != "ok"]


def section(rows, fates, settings, stored=None):
    """The microbenchmarks' section: what ran and the table of every benchmark; no claims (`stored`, the
    verdicts a run kept, is always empty)."""
    quick = settings.get("min_time_s")
    notes = settings.get("notes") or (
        "Google Benchmark, default build flags (-c opt), each benchmark in a process of its own, "
        f"{section_parts.rounds_text(settings)}. Per iteration: CPU and real time in ns; throughput where the "
        "benchmark counts bytes or items" + (f" (quick: --benchmark_min_time={quick:g})." if quick else "."))
    entries = summary(rows)
    return {"id": "microbenchmarks", "kind": "bench", "title": "Microbenchmarks (Google Benchmark)",
            "notes": [notes], "tables": [detail_sections.as_table("Medians over samples", entries)] if entries else [],
            "verdicts": [], "claims": [], "charts": [], "contestants": fates, "failures": _failures(rows)}


DEFINITION = definition.Definition(
    name="micro", document="microbenchmarks", settings={"samples": 1}, quick={"min_time_s": 0.01}, flags={},
    cases=cases, section=section, placements=("shared",), case_s=lambda s: 0.1 if s.get("min_time_s") else 1.0)
