"""Older documents in today's shape, converted on read: a detail scenario stored as `netbench.bench/2` (echo_bench,
websocket_bench, httpfanout_bench: cases with `load` and `returncode`, or per-round `samples`; the
microbenchmarks: a case per benchmark, measured once) becomes the `netbench.writeup/4` document every scenario
writes now (rows with `client` and `status`, one per case and round), so that the stored runs load, compare
and re-render alike. Nothing else changes: the figures are the
stored ones; the run's notes are kept as `settings.notes` (without
the tables appended to them and the targets they stated) and its schema as
`converted_from` (whose version says which fields it must have); verdicts are left to the re-rendering.

    document = old_documents.upgrade(json.load(f))     # any other document comes back as it was
    doc = old_documents.report(json.load(f))           # a run's report.json of an older schema, converted

A run's document `netbench.report/1` had no chart data: read as version 2, its sections keep the charts they
name (already drawn), and re-rendering it draws none.

One word changed for every document: the fixed design said "not separable on this machine" where the
sequential one says "open", the same state; read, an older document says "open" too (`OLDER_WORDS`).
"""

import re

from bench.analysis import verdict

PARTS = {"echo_bench": "echo-models", "websocket_bench": "websocket-models",
         "httpfanout_bench": "httpfanout-models", "microbenchmarks": "micro"}
REGISTRY = "bench/registry/contestants.json"
# What a stored run's notes said that the document now derives or no longer states: the tables appended to
# them (recomputed on rendering) and the targets the comparisons were held against (verdicts now).
APPENDED_TABLES = "\n\n## "
TARGETS = re.compile(r"\s*Targets: .*?\(vs_latency < 2\)\.|\s*vs_go_per_round: [^.]*\.")


def notes_of(document):
    return TARGETS.sub("", document.get("notes", "").partition(APPENDED_TABLES)[0]).strip()


def _message_rows(cases):
    rows = []
    for case in cases:
        row = {k: v for k, v in case.items() if k not in ("load", "returncode")}
        row["client"] = case["load"]
        row["status"] = "ok" if case.get("returncode") == 0 and not case.get("error") else "failed"
        if row["status"] == "failed" and not row.get("error"):
            row["error"] = f"exited {case.get('returncode')}"
        rows.append(row)
    return rows


def _fanout_rows(cases):
    rows = []
    for case in cases:
        for index, sample in enumerate(case["samples"]):
            wall = sample.get("wall_s")
            row = {"server": case["target"], "scheme": case["scheme"], "client": case["client"], "round": index,
                   "status": "ok" if wall is not None else "failed", "walls_s": [wall] if wall is not None else [],
                   "wall_s_median": wall, "requests_made": case["requests"] * case["repetitions"],
                   "client_cpu_us_per_req": sample.get("client_cpu_us_per_request"),
                   "server_cpu_us_per_req": sample.get("server_cpu_us_per_request"), "failed": sample.get("failed")}
            if wall is None:
                row["error"] = "no wall time stored"
            rows.append(row)
    return rows


# The verdict words documents stored before said, and today's word for the same state.
OLDER_WORDS = {verdict.OLDER_NOT_SEPARABLE: verdict.OPEN}


def _today_s_words(lines):
    """Verdict lines (or summary rows) with their older words replaced."""
    return [{**line, "verdict": OLDER_WORDS.get(line.get("verdict"), line.get("verdict"))}
            if isinstance(line, dict) and line.get("verdict") in OLDER_WORDS else line for line in lines]


def _micro_rows(cases):
    return [{**case, "round": 0, "status": "ok"} for case in cases]  # every case stored was measured


def upgrade(document):
    """`document` in the current schema where it is an older detail scenario's, and in today's verdict words;
    otherwise as it was."""
    if isinstance(document, dict) and isinstance(document.get("verdicts"), list):
        document = {**document, "verdicts": _today_s_words(document["verdicts"])}
    if not isinstance(document, dict) or not str(document.get("schema", "")).startswith("netbench.bench/"):
        return document
    part = PARTS.get(document.get("benchmark"))
    if part is None:
        return document
    fanout = part == "httpfanout-models"
    convert = _fanout_rows if fanout else _micro_rows if part == "micro" else _message_rows
    rows = convert(document["cases"])
    settings = {"samples": max((r["round"] for r in rows), default=-1) + 1, "notes": notes_of(document)}
    if fanout and document["cases"]:
        settings.update(requests=document["cases"][0]["requests"], reps=document["cases"][0]["repetitions"])
    out = {"schema": "netbench.writeup/4", "converted_from": document["schema"], "part": part,
           "environment": document["environment"], "settings": settings, "registry": REGISTRY, "contestants": [], "verdicts": [], "rows": rows}
    if document.get("histograms"):
        out["histograms"] = [{"client" if k == "load" else k: v for k, v in h.items()}
                             for h in document["histograms"]]
    if document.get("partial"):
        out["partial"] = True
    return out


def report(document):
    """A run's document (report.json) in today's schema and words: version 1 only lacks its sections' chart
    data."""
    if not isinstance(document, dict):
        return document
    if document.get("schema") == "netbench.report/1":
        document = {**document, "schema": "netbench.report/2"}
    if isinstance(document.get("sections"), list):
        document = {**document, "sections": [{**s, "verdicts": _today_s_words(s["verdicts"])}
                                             if isinstance(s, dict) and isinstance(s.get("verdicts"), list) else s
                                             for s in document["sections"]]}
    if isinstance(document.get("summary"), list):
        document = {**document, "summary": _today_s_words(document["summary"])}
    history = document.get("history")
    if isinstance(history, dict) and isinstance(history.get("claims"), list):
        claims = [{**c, "earlier": _today_s_words(c.get("earlier") or [])} for c in _today_s_words(history["claims"])]
        document = {**document, "history": {**history, "claims": claims}}
    return document
