"""HTTP fan-out benchmark (issue 5): 500 concurrent GETs of a 25,600-byte page, timed per repetition, by
each netbench client model, the Go fan-out contestant and curl, against netbench's origin (latency 0 and 50 ms)
and nginx, over http and https, all in one run.

    /usr/bin/python3 -m bench.scenarios.httpfanout_bench            # 3 interleaved samples, 10 repetitions each
    /usr/bin/python3 -m bench.scenarios.httpfanout_bench --quick       # smoke check: 50 requests, 2 repetitions
    bazel run //:bench -- --only=httpfanout-models

Targets: //httpfanout:origin --latency=0 and --latency=50ms (epoll, one loop; https with its self-signed
certificate), and nginx (//contestants/nginx:serve on free ports, http and https).
Clients: //httpfanout:fanout --model=threads|poll|epoll, Go's fan-out (//contestants/go:fanout, a goroutine per request, a
fresh transport per repetition), curl --parallel (one process; curl 7.88 caps --parallel-max at 300) and
two curl processes of 250 each (the fair row). Every https client skips certificate verification here
(Go's -insecure, curl -k, netbench --insecure) so that all do the same work per handshake.

Per case: the median over repetitions of the wall time of one fan-out (netbench and Go time themselves;
curl's is the process's wall time, one process per repetition), the client's CPU per request (wait4
rusage of the whole client process over all its repetitions), the origin's CPU per request, and failures.
Medians over samples, then the issue's ratios: best netbench model vs Go (target <= 0.5 over http, <= 0.6
over https), vs the faster curl row (target < 1), and with 50 ms latency the total vs the latency
(target < 2).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from bench.scenarios import bench_arguments
from bench.running import binaries
from bench.reporting import case_ratios
from bench.running import client_process
from bench.analysis import medians
from bench.running import ports
from bench.running import process_cpu
from bench.running import progress
from bench.reporting import result_files
from bench.running import rounds
from bench.running import server_process
from bench.reporting import tables

NETBENCH_MODELS = ["threads", "poll", "epoll"]


def start_origins(tmp, servers):
    """Starts the four origins into `servers` (filled as they start, so that a failure stops the others)."""
    origin = binaries.bazel_binary("//httpfanout:origin")
    for latency in ("0", "50ms"):
        for scheme in ("http", "https"):
            cmd = [origin, "--port=0", "--model=epoll", f"--latency={latency}", "--body_size=25600"]
            if scheme == "https":
                cmd += ["--tls", f"--write_cert={tmp}/origin-{latency}.pem"]
            servers[(latency, scheme)] = server_process.start_server(cmd, ready=r"listening on",
                                                                     name=f"origin-{latency}-{scheme}")


def start_nginx(servers):
    """nginx (contestants/nginx/serve.sh) on free ports, http and https, added to `servers` as ("nginx", scheme);
    False, after saying why, when it cannot start."""
    serve = binaries.available("//contestants/nginx:serve")
    if serve is None:
        return False
    for scheme in ("http", "https"):
        port = ports.free_port()
        cmd = [serve, "--host=127.0.0.1", f"--port={port}"] + (["--tls"] if scheme == "https" else [])
        try:
            servers[("nginx", scheme)] = server_process.start_server(cmd, ready=r"listening on",
                                                                      name=f"nginx-{scheme}")
        except RuntimeError as error:
            progress.log(f"note: nginx did not start; nginx rows are skipped:\n{error}")
            return False
    return True


def target_cpu_seconds(target):
    """The server's CPU seconds so far, its children included (nginx's master and workers under serve.sh)."""
    return process_cpu.tree_cpu_seconds(target["server"].pid)


def run_netbench(model, url, requests, reps, cacert):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        json_path = f.name
    cmd = [binaries.bazel_binary("//httpfanout:fanout"), f"--url={url}", f"--requests={requests}",
           f"--model={model}", f"--repetitions={reps}", f"--json={json_path}", "--quiet"]
    if url.startswith("https"):
        cmd.append("--insecure")
    res = client_process.run_client(cmd, timeout_s=120 + reps * 30)
    wall = None
    failed = 0 if res.returncode == 0 else None
    try:
        with open(json_path) as f:
            doc = json.load(f)
        metrics = doc.get("metrics", {})
        value = metrics.get("wall_median")
        wall = value.get("value") if isinstance(value, dict) else value
        counts = doc.get("counts", {})
        failed = counts.get("requests_failed", failed)
    except (OSError, ValueError, AttributeError):
        match = re.search(r"median ([0-9.]+) s", res.stdout)
        wall = float(match.group(1)) if match else None
    finally:
        if os.path.exists(json_path):
            os.unlink(json_path)
    if res.returncode != 0:
        progress.log(f"netbench {model} {url}: exit {res.returncode}: {res.stderr[-500:]}")
    return wall, res.cpu_seconds, failed


def run_go(url, requests, reps):
    go = binaries.available("//contestants/go:fanout")
    if go is None:
        return None, None, None
    cmd = [go, "-url", url, "-n", str(requests), "-reps", str(reps)]
    if url.startswith("https"):
        cmd.append("-insecure")
    res = client_process.run_client(cmd, timeout_s=120 + reps * 30)
    walls = [float(w) for w in re.findall(r"(?m)^rep \d+: .*wall ([0-9.]+) s$", res.stdout)]
    wall = statistics.median(walls) if walls else None
    errors = sum(int(m) for m in re.findall(r"ok, (\d+) errors", res.stdout))
    if res.returncode != 0:
        progress.log(f"go fanout {url}: exit {res.returncode}: {res.stdout[-300:]}")
    return wall, res.cpu_seconds, errors


def curl_config(tmp, url, count):
    path = os.path.join(tmp, f"curl-{abs(hash((url, count)))}.cfg")
    with open(path, "w") as f:
        for _ in range(count):
            f.write(f'url = "{url}"\noutput = "/dev/null"\n')
    return path


def run_curl(url, requests, reps, processes, tmp):
    """One fan-out = `processes` curl processes started together, each --parallel over its share."""
    share = requests // processes
    cfg = curl_config(tmp, url, share)
    cmd = ["curl", "-s", "-k", "--parallel", "--parallel-max", str(min(share, 300)), "--parallel-immediate",
           "-K", cfg, "-w", "%{http_code}\n"]
    walls, cpu, failed = [], 0.0, 0
    for _ in range(reps):
        start = time.monotonic()
        procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                 for _ in range(processes)]
        for p in procs:
            out, _ = p.communicate(timeout=120)
            failed += sum(1 for line in out.split() if line != "200")
            failed += 0 if p.returncode == 0 else 1
        walls.append(time.monotonic() - start)
        try:
            usage = os.times()
            cpu = usage.children_user + usage.children_system
        except OSError:
            pass
    return medians.median(walls), cpu, failed


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


def main(argv=None):
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

    tmp = tempfile.mkdtemp(prefix="httpfanout-bench-")
    servers = {}
    try:
        start_origins(tmp, servers)
        nginx_ok = start_nginx(servers)
    except BaseException:
        for server in servers.values():
            server.stop()
        raise
    targets = []
    for (latency, scheme), server in servers.items():
        name, path = ("nginx", "index.html") if latency == "nginx" else (f"origin-{latency}", "")
        targets.append({"name": name, "scheme": scheme, "server": server,
                        "url": f"{scheme}://127.0.0.1:{server.port()}/{path}", "cacert": None})
    clients = [f"netbench-{m}" for m in NETBENCH_MODELS] + ["go"]
    if have_curl:
        clients += ["curl", "curl-2x250"]
    cases = [(t, c) for t in targets for c in clients]
    samples_by_case = {}
    try:
        for round_index, (target, client) in rounds.interleaved(cases, samples):
            key = (target["name"], target["scheme"], client)
            progress.log(f"round {round_index + 1}/{samples}: {client} -> {target['name']} {target['scheme']}")
            cpu_before = target_cpu_seconds(target)
            if client.startswith("netbench-"):
                wall, cpu, failed = run_netbench(client.split("-", 1)[1], target["url"], requests, reps,
                                                 target["cacert"])
            elif client == "go":
                wall, cpu, failed = run_go(target["url"], requests, reps)
            else:
                processes = 2 if client == "curl-2x250" else 1
                before = os.times()
                wall, _, failed = run_curl(target["url"], requests, reps, processes, tmp)
                after = os.times()
                cpu = (after.children_user + after.children_system) - (before.children_user +
                                                                      before.children_system)
            server_cpu = target_cpu_seconds(target) - cpu_before
            total = requests * reps
            samples_by_case.setdefault(key, []).append({
                "wall_s": wall,
                "client_cpu_us_per_request": cpu * 1e6 / total if cpu is not None else None,
                "server_cpu_us_per_request": server_cpu * 1e6 / total,
                "failed": failed,
            })
    finally:
        for server in servers.values():
            server.stop()

    case_docs = [{"target": name, "scheme": scheme, "client": client, "requests": requests, "repetitions": reps,
                  "samples": runs} for (name, scheme, client), runs in samples_by_case.items()]
    notes = (f"{requests} GETs of a 25,600-byte page per fan-out, {reps} repetitions per run, {samples} "
             f"interleaved samples; https without certificate verification for every client. "
             f"Targets: best netbench <= 0.5x Go (http), <= 0.6x Go (https), < best curl; origin-50ms total < 2x "
             f"latency (vs_latency < 2). " + PER_ROUND_NOTE)
    rows = write_report(case_docs, notes)
    print(tables.markdown_table(rows, COLUMNS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
