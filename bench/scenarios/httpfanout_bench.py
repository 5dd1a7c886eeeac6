"""HTTP fan-out detail scenario (`--only=httpfanout-models`): 500 concurrent GETs of a 25,600-byte page, timed per
repetition, by each netbench client model, the Go fan-out contestant and curl, against netbench's origin
(latency 0 and 50 ms) and nginx, over http and https, all in one run.

    bazel run //:bench -- --only=httpfanout-models
    bazel run //:bench -- --only=httpfanout-models --quick    # smoke check: 50 requests, 2 repetitions

Targets (a row's `server`): the registry's origin-0ms and origin-50ms (//httpfanout:origin, epoll, one loop;
https with its self-signed certificate) and nginx (//contestants/nginx:serve), http and https. Clients: the
registry's netbench-threads|poll|epoll (//httpfanout:fanout), go (//contestants/go:fanout, a goroutine per
request, a fresh transport per repetition) and curl (contestants/curl/fanout.sh: curl --parallel, one process;
curl 7.88 caps --parallel-max at 300), each in its "fresh" condition, and two curl processes of 250 each (the
fair row, curl_pair.sh). Every https client skips certificate verification here (Go's -insecure, curl -k,
netbench --insecure) so that all do the same work per handshake. Targets and clients are started and measured
by the write-ups' runner in the one round loop (bench/design/scheduler.py).

Per case: the median over repetitions of the wall time of one fan-out (netbench and Go time themselves; curl's
is timed around its process, or the pair's), the client's CPU per request (wait4 rusage of the whole client
process over all its repetitions), the origin's CPU per request, and failed requests. The comparisons are judged
as the write-ups' claims are, as bench/registry/details/httpfanout.toml states them: at each target and
scheme, the fastest netbench model (by median) against Go and against the faster curl row.
"""

import os
import re

from bench.design import scheduler
from bench.scenarios import claim_files
from bench.scenarios import definition
from bench.scenarios import detail_sections
from bench.scenarios import writeup_cases

NETBENCH_MODELS = ["threads", "poll", "epoll"]
TARGETS = ["origin-0ms", "origin-50ms", "nginx"]
# Each client of the detail loads: the registry's entry, run in its "fresh" condition (no warm-up), or here the
# pair of curl processes, an entry of the same shape.
CLIENTS = [f"netbench-{m}" for m in NETBENCH_MODELS] + ["go", "curl"]
CURL_PAIR = {"name": "curl-2x250", "role": "client", "system": "curl", "about": "two curl fan-outs of 250 at once",
             "command": [os.path.join(os.path.dirname(os.path.realpath(__file__)), "curl_pair.sh"),
                         "{//contestants/curl:fanout}", "{url}", "{requests}", "{reps}"],
             "result": {"wall_s": "^rep \\d+: .*wall (?P<value>[0-9.]+) s"}, "conditions": {"fresh": []},
             "https_args": []}
FAILED = re.compile(r"^rep \d+: \d+ ok, (\d+) (?:failed|errors)", re.MULTILINE)
FIGURES = ("wall_s_median", "client_cpu_us_per_req", "server_cpu_us_per_req", "failed")


def figures_of(client, settings):
    """The figures hook of a client's cases: the write-up's (the fan-outs' wall times, each side's CPU per
    request; no warm-up here) and the requests that failed."""
    fanout = writeup_cases.fanout_figures(client, {**settings, "warmup": 0})

    def figures(row, measured):
        fanout(row, measured)
        failures = [int(n) for n in FAILED.findall(measured.result.stdout)] if measured.result else []
        row["failed"] = sum(failures) if failures else (0 if row["status"] == "ok" else None)
    return figures


def cases(entries, runners, settings):
    """Every client, fresh, against every target and scheme that runs here."""
    wanted = [e for e in entries if e["scenario"] == "fanout" and e["name"] in TARGETS + CLIENTS]
    targets, clients, fates = writeup_cases.prepare(wanted, "fanout", runners)
    if any(c["name"] == "curl" for c in clients):
        clients.append(CURL_PAIR)
        fates.append({**{k: CURL_PAIR[k] for k in ("name", "role", "system", "about")}, "env": {},
                      "command": " ".join(CURL_PAIR["command"]), "status": "ran"})
    out = []
    for target in sorted(targets, key=lambda t: TARGETS.index(t["name"])):
        for scheme, spec in target["schemes"].items():
            server = scheduler.ServerSpec(target, extra_args=tuple(spec.get("args", [])), url_template=spec["url"])
            for client in clients:
                extra = list(client["conditions"]["fresh"]) + (list(client.get("https_args", []))
                                                               if scheme == "https" else [])
                out.append(scheduler.Case(
                    fields={"server": target["name"], "scheme": scheme, "client": client["name"]}, server=server,
                    client=client, values={"requests": settings["requests"], "reps": settings["reps"], "warmup": 0,
                            "warmup_seconds": 0},
                    extra_args=tuple(extra), bound_s=60 + settings["reps"] * 30, figures=figures_of(client, settings),
                    shown=("wall_s_median", "s per fan-out")))
    return out, fates


# The comparisons, as data: at each target and scheme, the fastest netbench model (by median wall time) against Go
# and against the faster of the two curl rows.
CLAIMS = claim_files.detail("httpfanout")


def notes(settings):
    return (settings.get("notes") or
            f"{settings['requests']} GETs of a 25,600-byte page per fan-out, {settings['reps']} repetitions per run, "
            f"{settings['samples']} interleaved round(s); https without certificate verification for every client. "
            "Server CPU from the scheduler's exact clock over the server's process tree, client CPU from wait4 "
            "rusage. A verdict pairs each round's median fan-out with the other client's in the same round.")


def section(rows, fates, settings, stored=None):
    page = {"id": "httpfanout-models", "title": "HTTP fan-out models: netbench's clients against Go and curl",
            "notes": [notes(settings)], "figures": FIGURES}
    return detail_sections.section(page, rows, fates, CLAIMS.claims(rows), stored)


DEFINITION = definition.Definition(
    name="httpfanout-models", document="httpfanout_bench", settings={"requests": 500, "reps": 10},
    quick={"samples": 1, "requests": 50, "reps": 2}, flags={"samples": "samples"}, cases=cases, section=section,
    placements=("shared",))
