"""HTTP fan-out benchmark (issue 5): 500 concurrent GETs of a 25,600-byte page, timed per repetition, by
each netbench client model, the Go fan-out contestant and curl, against netbench's origin (latency 0 and 50 ms)
and nginx, over http and https, all in one run.

    /usr/bin/python3 -m bench.scenarios.httpfanout_bench            # 3 interleaved samples, 10 repetitions each
    /usr/bin/python3 -m bench.scenarios.httpfanout_bench --quick       # smoke check: 50 requests, 2 repetitions
    bazel run //:bench -- --only=httpfanout-models

Targets: the registry's origin-0ms and origin-50ms (//httpfanout:origin, epoll, one loop; https with its
self-signed certificate) and nginx (//contestants/nginx:serve), http and https. Clients: the registry's
netbench-threads|poll|epoll (//httpfanout:fanout), go (//contestants/go:fanout, a goroutine per request, a
fresh transport per repetition) and curl (contestants/curl/fanout.sh: curl --parallel, one process; curl 7.88
caps --parallel-max at 300), each in its "fresh" condition, and two curl processes of 250 each (the fair row,
curl_pair.sh). Every https client skips certificate verification here (Go's -insecure, curl -k, netbench
--insecure) so that all do the same work per handshake. Targets and clients are started and measured by the
write-ups' runner (contest.Runner: the scheduler's CPU clock, the same placement).

Per case: the median over repetitions of the wall time of one fan-out (netbench and Go time themselves;
curl's is timed around its process, or the pair's), the client's CPU per request (wait4
rusage of the whole client process over all its repetitions), the origin's CPU per request, and failures.
Medians over samples, then the issue's ratios: best netbench model vs Go (target <= 0.5 over http, <= 0.6
over https), vs the faster curl row (target < 1), and with 50 ms latency the total vs the latency
(target < 2).
"""

import argparse
import os
import re
import subprocess
import sys

from bench.scenarios import bench_arguments
from bench.reporting import case_ratios
from bench.analysis import medians
from bench.registry import registry
from bench.running import contest
from bench.running import progress
from bench.reporting import result_files
from bench.running import rounds
from bench.reporting import tables

NETBENCH_MODELS = ["threads", "poll", "epoll"]
TARGETS = ["origin-0ms", "origin-50ms", "nginx"]
# Each client of the detail loads: the registry's entry, run in its "fresh" condition (no warm-up), or here the
# pair of curl processes, an entry of the same shape.
CLIENTS = {f"netbench-{m}": f"netbench-{m}" for m in NETBENCH_MODELS} | {"go": "go", "curl": "curl"}
CURL_PAIR = {"name": "curl-2x250", "command": [os.path.join(os.path.dirname(os.path.realpath(__file__)), "curl_pair.sh"),
                                               "{//contestants/curl:fanout}", "{url}", "{requests}", "{reps}"],
             "result": {"wall_s": "^rep \\d+: .*wall (?P<value>[0-9.]+) s"}, "conditions": {"fresh": []},
             "https_args": []}
FAILED = re.compile(r"^rep \d+: \d+ ok, (\d+) (?:failed|errors)", re.MULTILINE)


def detail_entries(path=None):
    """{entry name: entry} of the fan-out scenario's targets and clients in the registry."""
    wanted = set(TARGETS) | set(CLIENTS.values())
    return {e["name"]: e for e in registry.load(path or registry.DEFAULT_PATH)
            if e["scenario"] == "fanout" and e["name"] in wanted}


def start_targets(runner, entries):
    """[target]: each server of TARGETS in each of its schemes, started once by the one runner; a target that
    cannot start is left out after saying why (nginx where it is not installed)."""
    targets = []
    for name in TARGETS:
        entry = entries.get(name)
        why = runner.unavailable(entry) if entry else "not in the registry"
        if why:
            progress.log(f"note: {name} cannot run; its rows are skipped: {why}")
            continue
        for scheme, spec in entry["schemes"].items():
            try:
                server = runner.start_server(entry, extra_args=spec.get("args", []), url_template=spec["url"])
            except contest.Failure as failure:
                progress.log(f"note: {name} {scheme} did not start; its rows are skipped: {failure}\n{failure.tail}")
                continue
            targets.append({"name": name, "scheme": scheme, "server": server, "url": server.url})
    return targets


def run_client(runner, entry, target, requests, reps):
    """(median wall s per fan-out, client CPU s, failed requests) of one run of `entry` against `target`."""
    ran = {}
    extra = list(entry.get("https_args", [])) if target["scheme"] == "https" else []
    row = runner.run_client(entry, target["server"], {"url": target["url"], "requests": requests, "reps": reps,
                                                      "warmup": 0},
                            extra_args=extra, timeout_s=120 + reps * 30, on_result=lambda r: ran.update(result=r))
    result = ran.get("result")
    failures = [int(n) for n in FAILED.findall(result.stdout)] if result else []
    failed = sum(failures) if failures else (0 if row["status"] == "ok" else None)
    if row["status"] != "ok":
        progress.log(f"{entry['name']} {target['url']}: {row.get('error')}: {row.get('tail', '')[-300:]}")
    return medians.median(row.get("found", {}).get("wall_s") or []), row.get("client_cpu_s"), failed, row


PER_ROUND_NOTE = "vs_go_per_round: the best model's time over Go's within single rounds, lowest .. highest."
COLUMNS = ["target", "scheme", "client", "wall_s", "client_cpu_us_per_req", "server_cpu_us_per_req", "failed",
           "vs_go", "vs_go_per_round", "go_target", "vs_best_curl", "vs_latency"]


def summarize(case_docs):
    """One row per (target, scheme, client) with medians over its samples, then per target and scheme the
    issue's ratios for the best netbench model, with the range of its ratio to Go within single rounds."""
    rows = []
    for doc in case_docs:
        runs = doc["samples"]
        row = {"target": doc["target"], "scheme": doc["scheme"], "client": doc["client"],
               "wall_s": medians.median([r["wall_s"] for r in runs]),
               "client_cpu_us_per_req": medians.median([r["client_cpu_us_per_request"] for r in runs]),
               "server_cpu_us_per_req": medians.median([r["server_cpu_us_per_request"] for r in runs]),
               "failed": sum(r["failed"] or 0 for r in runs)}
        doc["summary"] = row
        rows.append(row)
    walls_by_case = {(d["target"], d["scheme"], d["client"]): [r["wall_s"] for r in d["samples"]]
                     for d in case_docs}
    for name, scheme in sorted({(r["target"], r["scheme"]) for r in rows}):
        group = {r["client"]: r for r in rows if r["target"] == name and r["scheme"] == scheme}
        netbench = [group[c] for c in group if c.startswith("netbench-") and group[c]["wall_s"] is not None]
        if not netbench:
            continue
        best = min(netbench, key=lambda r: r["wall_s"])
        go = group.get("go", {}).get("wall_s")
        curls = [group[c]["wall_s"] for c in ("curl", "curl-2x250") if c in group and group[c]["wall_s"]]
        # Samples are stored in round order, so the i-th of each case ran in the same round.
        go_walls = walls_by_case.get((name, scheme, "go"), [])
        per_round = [case_ratios.ratio(mine, theirs)
                     for mine, theirs in zip(walls_by_case[(name, scheme, best["client"])], go_walls)]
        per_round = [r for r in per_round if r is not None]
        summary = {"target": name, "scheme": scheme, "client": f"best: {best['client']}", "wall_s": best["wall_s"],
                   "vs_go": case_ratios.ratio(best["wall_s"], go),
                   "vs_go_per_round": case_ratios.value_range(per_round),
                   "go_target": 0.5 if scheme == "http" else 0.6,
                   "vs_best_curl": case_ratios.ratio(best["wall_s"], min(curls) if curls else None)}
        if name == "origin-50ms":
            summary["vs_latency"] = case_ratios.ratio(best["wall_s"], 0.050)
        rows.append(summary)
    return rows


def write_report(case_docs, notes, env=None, schema=None):
    rows = summarize(case_docs)
    result_files.write_results("httpfanout_bench", case_docs, notes=notes, summary_rows=rows, columns=COLUMNS,
                               env=env, schema=schema)
    return rows


def rerender():
    """Rewrites the stored tables from the stored samples, running nothing."""
    document = result_files.load_results("httpfanout_bench")
    notes = document["notes"]
    if PER_ROUND_NOTE not in notes:  # stored before the column existed
        notes += " " + PER_ROUND_NOTE
    write_report(document["cases"], notes, env=document["environment"], schema=document["schema"])
    return 0


def main(argv=None, runner=None):
    """`runner`: the contest.Runner that starts the targets and runs the clients; by default one on this
    machine, both sides sharing the CPUs, as the write-ups run."""
    parser = bench_arguments.common_arguments(argparse.ArgumentParser(description=__doc__.split("\n")[0]))
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--repetitions", type=int, default=10)
    bench_arguments.add_rerender_argument(parser)
    args = parser.parse_args(argv)
    if args.rerender:
        return rerender()
    requests = 50 if args.quick else args.requests
    reps = 2 if args.quick else args.repetitions
    samples = 1 if args.quick else args.samples
    have_curl = subprocess.run(["sh", "-c", "command -v curl"], capture_output=True).returncode == 0

    runner = runner or contest.Runner(pin=False)
    entries = detail_entries()
    clients = {name: entries[entry] for name, entry in CLIENTS.items()
               if entry in entries and (have_curl or not name.startswith("curl"))}
    if have_curl:
        clients["curl-2x250"] = CURL_PAIR
    samples_by_case = {}
    try:
        targets = start_targets(runner, entries)
        cases = [(t, c) for t in targets for c in clients]
        for round_index, (target, client) in rounds.interleaved(cases, samples):
            key = (target["name"], target["scheme"], client)
            progress.log(f"round {round_index + 1}/{samples}: {client} -> {target['name']} {target['scheme']}")
            wall, cpu, failed, row = run_client(runner, clients[client], target, requests, reps)
            total = requests * reps
            server_cpu = row.get("server_cpu_s")
            samples_by_case.setdefault(key, []).append({
                "wall_s": wall,
                "client_cpu_us_per_request": cpu * 1e6 / total if cpu is not None else None,
                "server_cpu_us_per_request": server_cpu * 1e6 / total if server_cpu is not None else None,
                "failed": failed,
            })
    finally:
        runner.stop_all()

    case_docs = [{"target": name, "scheme": scheme, "client": client, "requests": requests, "repetitions": reps,
                  "samples": runs} for (name, scheme, client), runs in samples_by_case.items()]
    notes = (f"{requests} GETs of a 25,600-byte page per fan-out, {reps} repetitions per run, {samples} "
             f"interleaved samples; https without certificate verification for every client. Targets and clients "
             f"started and measured by the write-ups' runner (bench/running/contest.py): server CPU from the "
             f"scheduler's exact clock over the server's process tree, client CPU from wait4 rusage. "
             f"Targets: best netbench <= 0.5x Go (http), <= 0.6x Go (https), < best curl; origin-50ms total < 2x "
             f"latency (vs_latency < 2). " + PER_ROUND_NOTE)
    rows = write_report(case_docs, notes)
    print(tables.markdown_table(rows, COLUMNS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
