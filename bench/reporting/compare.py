"""Compares the stored runs of several machines (or of one machine under other settings) side by side, as one
document (compare.json) rendered by compare_markdown.py (COMPARE.md) and compare_html.py (compare.html):
`bazel run //:bench -- --compare=DIR_A --compare=DIR_B` (bench/cli/compare.py).

    runs = [compare.load_run(path, label) for path, label in zip(paths, compare.labels_for(paths))]
    document = compare.build(runs)                        # the comparison as data, its sections rendered alike
    document = compare.write(runs, out)                   # and written: compare.json, COMPARE.md, compare.html

For every case of every result document the runs share (a write-up's server and client, a detail bench's
server and load, a microbenchmark), and each of its figures, it gives each run's median over its samples,
the ratio to the first run's median, the range of the per-round values, and whether the difference is
significant: a two-sided Mann-Whitney U test over the two runs' samples (bench/analysis/verdict.py, SciPy), at
p < 0.05. Latency histograms stored with every bucket are merged over the rounds (histogram_merge.py) and
their percentiles compared. Cases and documents present in only some runs are listed, not dropped. Each run's
verdicts are its report.json's (bench/reporting/document.py), a column per run.

It warns, first, where the runs differ in a way that changes outcomes: the netbench commit (or a dirty tree),
the build mode, --pin, the CPU count, a sysctl that matters, a kernel price more than 2x apart, the
contestants' versions, the loads' settings. A document that does not match its schema (results/README.md) is
reported with the field that differs and left out.
"""

import glob
import json
import os

from bench.base import checkout
from bench.analysis import histogram_merge
from bench.analysis import medians
from bench.reporting import document as run_document
from bench.reporting import result_schema
from bench.reporting import tables
from bench.analysis import verdict

KERNEL_PRICE_FACTOR = 2.0

# How each kind of document is cut into cases: the fields that name a case, the rows that count, and the
# figures compared (name, higher is better). The first figure of each is its headline, charted.
WRITEUP_CASES = {
    "echo": (("server", "client"), [("msgs_per_s", True), ("server_cpu_us_per_msg", False),
                                    ("client_cpu_us_per_msg", False)]),
    "websocket": (("server", "client", "clients", "procs"), [("msgs_per_s", True), ("server_cpu_us_per_msg", False),
                                                              ("client_cpu_us_per_msg", False)]),
    "fanout": (("server", "scheme", "client", "condition"), [("walls_s", False), ("client_cpu_us_per_req", False)]),
    # The detail scenarios and the microbenchmarks (stored netbench.bench/2 documents are converted on read:
    # old_documents.py).
    "micro": (("binary", "benchmark"), [("cpu_ns", False)]),
    "echo-models": (("server", "client"), [("msgs_per_s", True), ("server_cpu_us_per_msg", False),
                                           ("client_cpu_us_per_msg", False), ("p50_us", False), ("p99_us", False)]),
    "websocket-models": (("server", "client"), [("msgs_per_s", True), ("server_cpu_us_per_msg", False),
                                                ("client_cpu_us_per_msg", False), ("p50_us", False),
                                                ("p99_us", False)]),
    "httpfanout-models": (("server", "scheme", "client"), [("wall_s_median", False),
                                                           ("client_cpu_us_per_req", False)]),
}
BENCH_CASES = {
    "echo_bench": (("server", "load"), [("msgs_per_s", True), ("server_cpu_us_per_msg", False),
                                        ("client_cpu_us_per_msg", False), ("p50_us", False), ("p99_us", False)]),
    "websocket_bench": (("server", "load"), [("msgs_per_s", True), ("server_cpu_us_per_msg", False),
                                             ("client_cpu_us_per_msg", False), ("p50_us", False), ("p99_us", False)]),
    "httpfanout_bench": (("target", "scheme", "client"), [("wall_s", False), ("client_cpu_us_per_request", False)]),
}
REPORT_ORDER = ["echo_writeup", "websocket_writeup", "fanout_writeup", "microbenchmarks", "echo_bench",
                "websocket_bench", "httpfanout_bench"]
CHARTED = {"echo_writeup", "websocket_writeup", "fanout_writeup", "echo_bench", "websocket_bench", "httpfanout_bench"}


class UsageError(Exception):
    pass


class Run:
    """One run's folder: its label, its documents by name (file stem) and the ones that did not validate."""

    def __init__(self, label, path):
        self.label, self.path = label, path
        self.documents = {}
        self.invalid = []  # (file name, [errors])
        self.report = None  # its report.json (the run's verdicts), where it has one


def load_run(path, label):
    run = Run(label, path)
    for file_path in sorted(glob.glob(os.path.join(path, "*.json"))):
        name = os.path.basename(file_path)[:-len(".json")]
        if name.endswith(".registry") or name in ("compare", "report"):  # report.json: the rendered document
            continue
        try:
            with open(file_path) as f:
                if result_schema.other_tool(json.load(f)):
                    continue  # a soak's or a link comparison's document: not a run of the suite
            run.documents[name] = result_schema.load(file_path)
        except ValueError as error:  # SchemaError, or not JSON
            run.invalid.append((os.path.basename(file_path), getattr(error, "errors", [f"not JSON: {error}"])))
    if not run.documents and not run.invalid:
        raise UsageError(f"{path}: holds no result documents (*.json); is it a machine folder of results/data?")
    if os.path.exists(os.path.join(path, run_document.FILE)):
        try:
            run.report = run_document.load(os.path.join(path, run_document.FILE))
        except ValueError as error:
            run.invalid.append((run_document.FILE, [str(error)]))
    return run


def labels_for(paths):
    """Each run's label: its folder's name, with the parent's where two names are alike."""
    names = [os.path.basename(p) for p in paths]
    return [os.path.join(os.path.basename(os.path.dirname(p)), n) if names.count(n) > 1 else n
            for p, n in zip(paths, names)]


# --- cutting documents into cases ---------------------------------------------------------------------------

def case_plan(document):
    """(key fields, figures) for a document, or None for a kind this comparison does not know."""
    if document["schema"].startswith(result_schema.WRITEUP):
        return WRITEUP_CASES.get(document["part"])
    return BENCH_CASES.get(document["benchmark"])


def document_cases(document):
    """{case name: {"key": {...}, "figures": {figure: {"samples": [...], "rounds": {round: value}}},
    "histograms": {name: [histogram per round]}}} of one document, in the document's order."""
    plan = case_plan(document)
    if plan is None:
        return None
    key_fields, figures = plan
    cases = {}
    # A write-up's rows also differ in where they ran: the CPU placement (documents before schema 3 ran one,
    # "split" when their settings say pinned) and, over SSH with --compare-loopback, the link.
    placement = "split" if document.get("settings", {}).get("pinned") else "shared"
    is_writeup = "rows" in document
    with_link = is_writeup and any("link" in row for row in document["rows"])

    def case_of(row):
        key = {k: row.get(k) for k in key_fields}
        if is_writeup:
            key["placement"] = row.get("placement", placement)
            if with_link:
                key["link"] = row.get("link")
        name = " ".join(f"{k}={v}" for k, v in key.items())
        return cases.setdefault(name, {"key": key, "figures": {f: {"samples": [], "rounds": {}} for f, _ in figures},
                                       "histograms": {}})

    def add(case, figure, round_index, value):
        values = [v for v in (value if isinstance(value, list) else [value]) if v is not None]
        if values:
            case["figures"][figure]["samples"] += values
            case["figures"][figure]["rounds"][round_index] = medians.median(values)

    if "rows" in document:  # a write-up: every round's run that succeeded
        for row in document["rows"]:
            case = case_of(row)
            if row["status"] == "ok":
                for figure, _ in figures:
                    add(case, figure, row["round"], row.get(figure))
        for entry in document.get("histograms", []):  # a detail scenario's clients' latency, merged per case
            case_of(entry)["histograms"].setdefault(entry["name"], []).append(entry["histogram"])
    elif document["benchmark"] == "httpfanout_bench":  # a case per (target, scheme, client), a sample per round
        for row in document["cases"]:
            case = case_of(row)
            for index, sample in enumerate(row["samples"]):
                for figure, _ in figures:
                    add(case, figure, index, sample.get(figure))
    else:  # a detail bench's case per round, or a microbenchmark's one measurement
        for index, row in enumerate(document["cases"]):
            case = case_of(row)
            if row.get("returncode", 0) != 0:
                continue
            round_index = row.get("round", 0)
            for figure, _ in figures:
                add(case, figure, round_index, row.get(figure))
        for entry in document.get("histograms", []):  # the clients' latency, merged per case over its rounds
            case_of(entry)["histograms"].setdefault(entry["name"], []).append(entry["histogram"])
    return cases


def compare_figure(per_run, labels):
    """One figure of one case across runs: each run's median, samples, per-round range, ratio to the first run
    and the U test against the first run's samples."""
    entries = []
    first = per_run[0]
    for label, figure in zip(labels, per_run):
        samples = figure["samples"] if figure else []
        rounds = list(figure["rounds"].values()) if figure else []
        entry = {"run": label, "median": medians.median(samples), "samples": len(samples),
                 "round_min": min(rounds) if rounds else None, "round_max": max(rounds) if rounds else None,
                 "ratio": None, "p_value": None, "significant": None}
        if figure is not first and first and first["samples"] and samples:
            base = medians.median(first["samples"])
            entry["ratio"] = entry["median"] / base if base else None
            entry["p_value"] = verdict.mann_whitney_p(first["samples"], samples)
            entry["significant"] = entry["p_value"] is not None and entry["p_value"] < verdict.ALPHA
        entries.append(entry)
    return entries


def merged_latency(per_run_histograms, labels):
    """Each run's histograms of one case merged over its rounds, and the percentiles' ratios to the first."""
    out = []
    base = None
    for label, histograms in zip(labels, per_run_histograms):
        try:
            merged = histogram_merge.merge(histograms) if histograms else None
        except histogram_merge.MergeError as error:
            out.append({"run": label, "error": str(error)})
            continue
        entry = {"run": label, "count": merged["count"] if merged else 0,
                 "percentiles_us": {k: v / 1e3 for k, v in merged["percentiles"].items()} if merged else {}}
        if base is None:
            base = entry
        elif merged:
            entry["ratios"] = {k: (v / base["percentiles_us"][k] if base["percentiles_us"].get(k) else None)
                               for k, v in entry["percentiles_us"].items()}
        out.append(entry)
    return out


def document_names(runs):
    """Every document name of the runs: the report's parts in the report's order, then the others (one-off
    studies) by name."""
    names = sorted({n for run in runs for n in run.documents})
    return [n for n in REPORT_ORDER if n in names] + [n for n in names if n not in REPORT_ORDER]


def compare_runs(runs):
    """The whole comparison as data: rows per document, case and figure; cases and documents present in only
    some runs; merged latency."""
    labels = [r.label for r in runs]
    names = document_names(runs)
    rows, only_some, latency, unknown = [], [], [], []
    for name in names:
        holders = [r for r in runs if name in r.documents]
        if len(holders) < len(runs):
            only_some.append({"document": name, "case": None, "in": [r.label for r in holders]})
        cut = [document_cases(r.documents[name]) for r in holders]
        if cut[0] is None:
            unknown.append(name)
            continue
        plan = case_plan(holders[0].documents[name])
        held_labels = [r.label for r in holders]
        case_names = []
        for cases in cut:
            case_names += [c for c in cases if c not in case_names]
        for case_name in case_names:
            present = [cases.get(case_name) for cases in cut]
            have = [label for label, case in zip(held_labels, present) if case is not None]
            if len(holders) > 1 and len(have) < len(holders):
                only_some.append({"document": name, "case": case_name, "in": have})
            if len(have) < 2:
                continue
            for figure, higher_is_better in plan[1]:
                per_run = [case["figures"][figure] if case else None for case in present]
                if not any(f and f["samples"] for f in per_run):
                    continue
                rows.append({"document": name, "case": case_name, "figure": figure,
                             "higher_is_better": higher_is_better, "runs": compare_figure(per_run, held_labels)})
            histogram_names = sorted({h for case in present if case for h in case["histograms"]})
            for histogram in histogram_names:
                per_run = [case["histograms"].get(histogram) if case else None for case in present]
                latency.append({"document": name, "case": case_name, "histogram": histogram,
                                "runs": merged_latency(per_run, held_labels)})
    return {"runs": labels, "rows": rows, "only_in_some": only_some, "latency": latency,
            "not_compared": unknown}


# --- what makes runs comparable -----------------------------------------------------------------------------

def _short(commit):
    return (commit or "unknown")[:12]


def _same_commit(a, b):
    """Abbreviated commits name the same one when the shorter is a prefix of the longer."""
    return a != "unknown" and b != "unknown" and (a.startswith(b) or b.startswith(a))


class _Shared:
    """One document as the runs that hold it have it: each holder's label, document and environment, side by
    side, so that every check below reads a figure of all of them the same way."""

    def __init__(self, runs, name):
        self.holders = [r for r in runs if name in r.documents]
        self.documents = [r.documents[name] for r in self.holders]
        self.environments = [d["environment"] for d in self.documents]

    def values(self, getter):
        """[(run label, getter(document, environment))] over the holders."""
        return [(r.label, getter(d, e)) for r, d, e in zip(self.holders, self.documents, self.environments)]


def _differs(pairs):
    return len({json.dumps(v, sort_keys=True) for _, v in pairs}) > 1


def _listing(pairs, show=str):
    return ", ".join(f"{label} {show(value)}" for label, value in pairs)


# Each check below yields ("warn" or "note", text) for one document; comparability() gathers them. A check sees
# what one run alone can say (_provenance) or, where two runs or more hold the document, how they differ.

def _provenance(shared):
    """What a run's own record leaves unknown: a dirty tree, or a document too old to say."""
    for run, environment in zip(shared.holders, shared.environments):
        if environment.get("git_dirty"):
            yield "warn", (f"{run.label} ran from a tree with uncommitted changes (its commit "
                           f"{_short(environment.get('git_commit'))} is not all that ran)")
        if "build_mode" not in environment:
            yield "warn", (f"{run.label} does not record its build mode, sysctls or dirty tree (stored before "
                           "schema version 2)")


def _build(shared):
    """The programs that ran: their commit and build mode."""
    commits = shared.values(lambda d, e: _short(e.get("git_commit")))
    if not all(_same_commit(a, b) for _, a in commits for _, b in commits):
        yield "warn", "different netbench commits: " + _listing(commits)
    modes = shared.values(lambda d, e: e.get("build_mode"))
    if _differs(modes) and all(m for _, m in modes):  # a run that does not record it is warned of above
        yield "warn", "different build modes: " + _listing(modes)


def _cpus(shared):
    """Where the sides ran: their CPU placement and how many CPUs there were."""
    placed = shared.values(lambda d, e: ",".join(d.get("settings", {}).get("placements") or
                                                 (["split"] if d.get("settings", {}).get("pinned") else ["shared"])))
    if _differs(placed):
        yield "warn", ("different CPU placements (shared: every CPU for both sides; split: disjoint halves; "
                       "only the cases of a placement both ran are compared): " + _listing(placed))
    cpus = shared.values(lambda d, e: (e.get("cores"), e.get("cpus_allowed")))
    if _differs([(label, c[0]) for label, c in cpus]) or _differs([(label, c[1]) for label, c in cpus
                                                                    if c[1] is not None]):
        yield "warn", "different CPU counts: " + _listing(cpus, lambda c: f"{c[0]} cores"
                                                          + (f" ({c[1]} allowed)" if c[1] not in (None, c[0])
                                                             else ""))


def _loads(shared):
    """What the runs asked of the programs: their settings, and whether one was only a smoke run."""
    settings = shared.values(lambda d, e: {k: v for k, v in d.get("settings", {}).items()
                                           if k not in ("pinned", "placements")})  # placements: _cpus
    if _differs(settings):
        keys = sorted({k for _, s in settings for k in s})
        changed = [k for k in keys if len({json.dumps(s.get(k)) for _, s in settings}) > 1]
        yield "warn", "different loads: " + "; ".join(
            f"{k} " + ", ".join(f"{label} {s.get(k)}" for label, s in settings) for k in changed)
    quick = shared.values(lambda d, e: d.get("notes", "").startswith("QUICK") or
                          d.get("settings", {}).get("samples") == 1)
    if _differs(quick):
        yield "warn", ("a quick smoke run (one round, tiny loads) beside a measurement: "
                       + ", ".join(label for label, q in quick if q))


def _kernel(shared):
    """The kernel's settings that matter and its measured prices (a syscall, a send, a round trip)."""
    sysctls = shared.values(lambda d, e: e.get("sysctls"))
    recorded = [(label, s) for label, s in sysctls if s is not None]
    for key in sorted({k for _, s in recorded for k in s}):
        pairs = [(label, s.get(key, "absent")) for label, s in recorded]
        if _differs(pairs):
            yield "warn", f"sysctl {key} differs: " + _listing(pairs)
    prices = shared.values(lambda d, e: e.get("kernel_costs_us") or {})
    for key in sorted({k for _, p in prices for k in p}):
        pairs = [(label, p[key]) for label, p in prices if key in p]
        # Prices wander from run to run; only a factor this large says the machines differ.
        if len(pairs) > 1 and min(v for _, v in pairs) > 0 and \
                max(v for _, v in pairs) / min(v for _, v in pairs) > KERNEL_PRICE_FACTOR:
            yield "warn", (f"kernel price {key} differs by over {KERNEL_PRICE_FACTOR:g}x: "
                           + _listing(pairs, lambda v: f"{tables.format_number(v)} us"))


def _contestants(shared):
    """The other systems' versions (netbench's own is its commit: _build)."""
    versions = {}
    for run, document in zip(shared.holders, shared.documents):
        for fate in document.get("contestants", []):
            if fate.get("system") != "netbench" and fate.get("status") == "ran":
                versions.setdefault(fate["name"], []).append((run.label, fate.get("version")))
    for contestant, pairs in versions.items():
        if len(pairs) > 1 and _differs(pairs):
            yield "warn", f"contestant {contestant} in other versions: " + _listing(pairs)


def _by_design(shared):
    """What differs because the runs are of other machines: noted, not warned of."""
    for field, what in (("cpu_model", "CPU"), ("kernel", "kernel"), ("os", "operating system")):
        pairs = shared.values(lambda d, e: e.get(field))
        if _differs(pairs):
            yield "note", f"different {what}: " + _listing(pairs)


# In the order their findings are listed.
_BETWEEN_RUNS = (_build, _cpus, _loads, _kernel, _contestants, _by_design)


def comparability(runs):
    """Warnings (differences that change outcomes) and notes (differences by design, such as the CPU model),
    each once with the documents it concerns."""
    found = {}  # (kind, text): [document name], in the order first found
    for name in document_names(runs):
        shared = _Shared(runs, name)
        checks = (_provenance,) + (_BETWEEN_RUNS if len(shared.holders) > 1 else ())
        for check in checks:
            for kind, text in check(shared):
                documents = found.setdefault((kind, text), [])
                if name not in documents:
                    documents.append(name)
    warnings = [{"warning": text, "documents": documents} for (kind, text), documents in found.items()
                if kind == "warn"]
    notes = [{"note": text, "documents": documents} for (kind, text), documents in found.items() if kind == "note"]
    return warnings, notes


# --- the comparison as a document -----------------------------------------------------------------------------

def _p(entry):
    if entry["p_value"] is None:
        return "-"
    return f"{entry['p_value']:.2g}" + (" **significant**" if entry["significant"] else "")


def _range(entry):
    if entry["round_min"] is None or entry["round_min"] == entry["round_max"]:
        return ""
    return f" ({tables.format_number(entry['round_min'])}..{tables.format_number(entry['round_max'])})"


def _shown_path(path):
    """A run folder as the comparison names it: relative to the checkout when inside it."""
    relative = os.path.relpath(path, checkout.repo_root())
    return path if relative.startswith("..") else relative


def _section(title, paragraphs=(), items=(), tables_=(), charts=()):
    return {"title": title, "paragraphs": list(paragraphs), "items": list(items), "tables": list(tables_),
            "charts": list(charts)}


def _warnings_section(warnings, invalid):
    """The warnings first, with the documents left out for not matching their schema; or that there are none."""
    if not warnings and not invalid:
        return _section(None, ["No differences between the runs that change outcomes were found (commit, build "
                               "mode, --pin, CPU count, sysctls, kernel prices, contestants' versions, loads)."])
    items = [f"{w['warning']} ({', '.join(w['documents'])})" for w in warnings]
    items += [f"{entry['run']}/{entry['file']} does not match its schema and is left out: "
              + "; ".join(entry["errors"][:3])
              + (f"; and {len(entry['errors']) - 3} more" if len(entry["errors"]) > 3 else "") for entry in invalid]
    return _section("Warnings: these runs differ in ways that change outcomes", items=items)


def _how_to_read(labels):
    return ("Each figure is a run's median over its samples, with the range of its per-round values in "
            "brackets; `ratio` is the median over the first run's (" + labels[0] + "); `p` is a two-sided "
            "Mann-Whitney U test of the two runs' samples (bench/analysis/verdict.py), **significant** at p < "
            f"{verdict.ALPHA}. One sample a side (a quick run, a microbenchmark) cannot be tested (`-`).")


def _runs_table(runs):
    """A row per run: its folder and what its documents say of where and from what they ran."""
    rows = []
    for run in runs:
        environments = [d["environment"] for d in run.documents.values()]
        commits = sorted({_short(e.get("git_commit")) + ("-dirty" if e.get("git_dirty") else "")
                          for e in environments})
        modes = sorted({str(e.get("build_mode", "unrecorded")) for e in environments})

        def each(field):  # a folder's documents may come from several runs, even several machines
            return ", ".join(sorted({str(e.get(field, "-")) for e in environments})) or "-"

        rows.append([run.label, f"`{_shown_path(run.path)}`", str(len(run.documents)), each("cpu_model"),
                     each("cores"), each("kernel"), ", ".join(commits), ", ".join(modes)])
    return {"caption": None, "columns": ["run", "folder", "documents", "CPU", "cores", "kernel", "commits",
                                         "build mode"], "rows": rows}


def _claims_section(runs):
    """Each write-up claim a run's report.json judged, a column per run: its verdict and ratio A/B there."""
    claims = {}
    for index, run in enumerate(runs):
        for row in (run.report or {}).get("summary", []):
            cells = claims.setdefault(row["question"], ["-"] * len(runs))
            cells[index] = f"**{row['verdict']}**" + (f" ({row['ratio']})" if row["ratio"] != "-" else "")
    without = [run.label for run in runs if run.report is None]
    paragraphs = ["Each run's verdict under the write-up's own load and placement, from its report.json, with "
                  "the ratio A/B and its 95% interval."]
    if without:
        paragraphs.append("No report.json (its verdicts unknown here): " + ", ".join(without) + ".")
    table = {"caption": None, "columns": ["claim"] + [run.label for run in runs],
             "rows": [[question] + cells for question, cells in claims.items()]}
    return _section("The write-ups' claims, run by run", paragraphs, tables_=[table] if claims else [])


def _figures_table(rows):
    """A row per case and figure of one document: each run's median, its ratio and p."""
    held = [e["run"] for e in rows[0]["runs"]]
    columns = (["case", "figure"] + held + [f"{label} / {held[0]}" for label in held[1:]]
               + [f"p ({label})" for label in held[1:]])
    body = []
    for row in rows:
        entries = row["runs"]
        cells = [row["case"], row["figure"] + (" (higher is better)" if row["higher_is_better"] else "")]
        cells += [tables.format_number(e["median"]) + _range(e) for e in entries]
        cells += [tables.format_number(e["ratio"]) for e in entries[1:]]
        body.append(cells + [_p(e) for e in entries[1:]])
    return {"caption": None, "columns": columns, "rows": body}


def _latency_table(document, latency):
    """One document's merged latency histograms: a row per case, histogram and run."""
    body = []
    for entry in latency:
        for run_entry in entry["runs"]:
            if "error" in run_entry:
                body.append([entry["case"], entry["histogram"], run_entry["run"],
                             f"not merged: {run_entry['error']}", "", "", "", "", ""])
                continue
            p = run_entry["percentiles_us"]
            body.append([entry["case"], entry["histogram"], run_entry["run"], str(run_entry["count"])]
                        + [tables.format_number(p.get(k)) for k in ("50", "90", "99", "99.9")]
                        + [tables.format_number((run_entry.get("ratios") or {}).get("99"))])
    return {"caption": f"Latency of {document}, every round's histogram merged (exact bucket counts, "
                       "bench/analysis/histogram_merge.py), percentiles in us:",
            "columns": ["case", "histogram", "run", "count", "p50", "p90", "p99", "p99.9", "p99 / first"],
            "rows": body}


def _document_sections(comparison, charts):
    """A section per compared document: its charts, its figures, its merged latency."""
    by_document = {}
    for row in comparison["rows"]:
        by_document.setdefault(row["document"], []).append(row)
    out = []
    for name, rows in by_document.items():
        latency = [e for e in comparison["latency"] if e["document"] == name]
        out.append(_section(name, tables_=[_figures_table(rows)] + ([_latency_table(name, latency)] if latency
                                                                     else []),
                            charts=[{"path": c["file"], "alt": f"{name} {c['figure']}"}
                                    for c in charts.get(name, [])]))
    return out


def _missing_section(comparison):
    """What only some runs hold, so that nothing left out of the tables goes unsaid."""
    items = [entry["document"] + (f": {entry['case']}" if entry["case"] else " (the whole document)")
             + f": only in {', '.join(entry['in']) or 'none'}" for entry in comparison["only_in_some"]]
    paragraphs = [] if items else ["Every document and case is in every run."]
    if comparison["not_compared"]:
        paragraphs.append("Not compared (documents of a kind this comparison does not cut into cases): "
                          + ", ".join(comparison["not_compared"]) + ".")
    return _section("Present in only some runs", paragraphs, items)


def build(runs, comparison=None, charts=None):
    """The comparison of `runs` as one document (compare.json), rendered by compare_markdown.py (COMPARE.md) and
    compare_html.py (compare.html): the figures' rows and the warnings as data, and its sections (what may
    make the runs incomparable first, the runs, their verdicts, a section per document, what only some runs
    hold). `comparison`: compare_runs(runs), where already made; `charts`: {document: [{"figure", "file"}]}
    drawn for it (compare_charts.py)."""
    comparison = comparison or compare_runs(runs)
    warnings, notes = comparability(runs)
    charts = charts or {}
    invalid = [{"run": r.label, "file": f, "errors": e} for r in runs for f, e in r.invalid]
    labels = comparison["runs"]
    head = [_warnings_section(warnings, invalid)]
    if notes:
        head[0]["paragraphs"].append("Differences by design: " + "; ".join(n["note"] for n in notes) + ".")
    head[0]["paragraphs"].append(_how_to_read(labels))
    sections = (head + [_section("Runs", tables_=[_runs_table(runs)]), _claims_section(runs)]
                + _document_sections(comparison, charts) + [_missing_section(comparison)])
    return {"schema": "netbench.compare/2", "title": f"Comparison: {' vs '.join(labels)}", "warnings": warnings,
            "notes": notes, "invalid": invalid, **comparison, "charts": charts, "sections": sections}


def write(runs, out, draw_charts=True):
    """Compares `runs` into the folder `out`: compare.json, COMPARE.md, compare.html and, with `draw_charts`,
    one SVG per headline figure. Returns the comparison document."""
    from bench.reporting import compare_html
    from bench.reporting import compare_markdown
    os.makedirs(out, exist_ok=True)
    comparison, charts = compare_runs(runs), {}
    if draw_charts:
        from bench.reporting import compare_charts
        charts = compare_charts.draw(comparison, CHARTED, out)
    document = build(runs, comparison, charts)
    for name, text in (("compare.json", json.dumps(document, indent=1) + "\n"),
                       ("COMPARE.md", compare_markdown.render(document)),
                       ("compare.html", compare_html.render(document, out))):
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
    return document


def default_out(labels):
    return os.path.join(checkout.stored_runs(), "compare",
                        "_vs_".join(label.replace("/", "-") for label in labels))
