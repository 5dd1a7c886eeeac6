"""The table of a folder of soak results (bench/studies/soak.py's <server>-<model>.json): one row per run.

  /usr/bin/python3 -m bench.studies.soak_report results/data/soak > results/data/soak/table.md

Columns: RSS and descriptors at the start, their peak and at the end (after the load stopped and the server
settled), the RSS allowance the server's bounds give, the connections the server accepted (its closing line)
and so the smallest leak per connection the allowance alone would catch (allowance / connections), RSS's
slope over the load after its first minute (least squares; informative, not a criterion), the well-behaved
clients' runs and those with errors, and p99 drift: the median p99 of the last quarter of the windows over the
median of the first quarter (1.0: flat; the machine is shared, so a drift of a few tens of percent either way is
its noise, not the server's).
"""

import glob
import json
import os
import re
import statistics
import sys

ORDER = {"echo": 0, "websocket": 1, "origin": 2, "threads": 0, "poll": 1, "epoll": 2, "uring": 3}


def drift(samples):
    p99s = [s["p99_ms"] for s in samples if s["phase"] == "load" and s["p99_ms"] is not None]
    if len(p99s) < 4:
        return None, None, None
    quarter = max(1, len(p99s) // 4)
    first, last = statistics.median(p99s[:quarter]), statistics.median(p99s[-quarter:])
    return first, last, last / first


def connections(document):
    for line in reversed(document.get("server_output_tail", [])):
        match = re.search(r"(\d+) connections", line)
        if match:
            return int(match.group(1))
    return None


def rss_slope(samples):
    """KiB per minute over the load samples after the first minute; None with fewer than 3 of them."""
    points = [(s["t_s"] / 60, s["rss_kib"]) for s in samples if s["phase"] == "load" and s["t_s"] > 60]
    if len(points) < 3:
        return None
    return statistics.linear_regression([t for t, _ in points], [r for _, r in points]).slope


def mib(kib):
    return f"{kib / 1024:.1f}"


def row(document, chart_name):
    s = document["summary"]
    first, last, ratio = drift(document["samples"])
    minutes = document["seconds"] / 60
    served = connections(document)
    catches = f"{document['allowance']['rss_kib'] * 1024 / served:.0f}" if served else "-"
    slope = rss_slope(document["samples"])
    return (f"| {document['server']} | {document['model']} | {minutes:g} | "
            f"{mib(s['rss_kib']['start'])} / {mib(s['rss_kib']['peak'])} / {mib(s['rss_kib']['end'])} | "
            f"{mib(document['allowance']['rss_kib'])} | {served if served is not None else '-'} | {catches} | "
            f"{'-' if slope is None else f'{slope:+.1f}'} | "
            f"{s['fds']['start']} / {s['fds']['peak']} / {s['fds']['end']} | "
            f"{s['threads']['start']} / {s['threads']['peak']} / {s['threads']['end']} | "
            f"{s['client_runs']} / {s['client_runs_with_errors']} | "
            f"{'-' if first is None else f'{first:.1f} -> {last:.1f} ({ratio:.2f})'} | {s['p99_ms']['max']} | "
            f"{'passed' if document['passed'] else 'FAILED: ' + '; '.join(document['reasons'])} | "
            f"[chart]({chart_name}) |")


def table(folder):
    documents = []
    for path in glob.glob(os.path.join(folder, "**", "*.json"), recursive=True):
        with open(path) as f:
            document = json.load(f)
        if document.get("schema") == "netbench.soak/1":
            chart = os.path.relpath(os.path.splitext(path)[0] + ".svg", folder)
            documents.append((document, chart))
    documents.sort(key=lambda d: (d[0]["seconds"], ORDER[d[0]["server"]], ORDER[d[0]["model"]]))
    lines = ["| server | model | minutes | RSS MiB start / peak / end | RSS allowance MiB | connections served | "
             "leak caught, B/connection | RSS slope KiB/min after 1 min | descriptors start / peak / end | "
             "threads start / peak / end | client runs / with errors | p99 ms drift, first -> last quarter (ratio) | "
             "p99 ms max window | verdict | chart |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += [row(document, chart) for document, chart in documents]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: python3 -m bench.studies.soak_report FOLDER (of soak.py results)", file=sys.stderr)
        sys.exit(2)
    sys.stdout.write(table(sys.argv[1]))
