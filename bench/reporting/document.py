"""A run as one document: which run it is (machine, commit, time), the summary (one row per write-up claim),
its sections (each write-up's claim, verdicts, tables, chart files, notes and contestants; each detail bench's
and the microbenchmarks' tables) and the methodology, written as report.json beside the run's samples and
read back. The renderers (markdown.py, html_report.py, terminal.py, charts.py) draw from it alone; nothing they
write is edited.

    doc = document.read_run(directory, catalogue.ALL)   # from the stored samples, any schema version
    document.write(os.path.join(directory, document.FILE), doc)
    doc = document.load(os.path.join(directory, document.FILE))   # an older schema converted on read

A section is a dict:
    id, kind ("writeup", "detail"; "bench" in runs stored before the microbenchmarks were a scenario), title,
        source (the JSON file it comes from)
    claim (the write-up's words), measured (how this run measured it), run (what the section adds about its
        run: "quick", "partial", "how" the programs were placed), placements [{name, answers}]
    verdicts (bench/analysis/verdict.py's lines), claims [{question, headline, others}] (indexes into verdicts,
        the headline the write-up's own load and placement), where [{placement, variant}] (per verdict)
    tables [{caption, columns, rows}] (cells as text), charts [{path, alt}] (relative to the run folder, drawn by
        charts.py from chart_data: what the charts show, chart_data.py),
    notes [text], failures [{where, error, tail}], contestants (each contestant's fate)
Text may hold `code` and **bold**, nothing else of Markdown.
"""

import json
import os

from bench.reporting import chart_data
from bench.reporting import old_documents
from bench.reporting import remote_report
from bench.reporting import result_schema
from bench.reporting import verdict_text
from bench.analysis import judged_link

SCHEMA = "netbench.report/2"
# The parts of a run of a user's own questions (--claims, --versus) are named "your-<scenario>".
YOURS_PREFIX = "your-"
FILE = "report.json"
# A stored document belongs to the run when it has the run's commit and was written within this long after
# the run started (a folder that older versions of the suite shared between runs holds others too).
SAME_RUN_S = 6 * 3600

METHODOLOGY = [
    "Every figure is a median over interleaved rounds of this run: each round runs every case once, in turn, so "
    "that a slow minute of the machine falls on all of them alike.",
    "Two designs decide a verdict. **Adaptive** (the default, `--budget`): every claim's cases run in the first "
    "3 rounds, then each round runs only the cases of the claims still open, the write-ups' own claims first; "
    "after every round each open claim is judged by a confidence sequence for the median of its per-round ratio "
    "A/B (bench/analysis/sign_sequence.py: a round falls above or below the true median like a fair coin, so it "
    "holds for heavy-tailed rounds and however often it is looked at), and stops at the first round that decides "
    "it: **holds** or **reversed** when its interval excludes 1, **equivalent within ±5%** (`--margin`) when it "
    "lies inside the margin; a claim still undecided when the budget is spent is **open**, with the bound it "
    "reached (any difference is below X%) and the rounds that would decide it, or, where its interval is wider "
    "than a factor of 2, how many rounds it has. The cases no claim compares run once, after the claims. "
    "**Fixed** (`--rounds=N`): every case in every round, and one 95% t interval on the logs of "
    "the per-round ratios (bench/analysis/verdict.py): **holds** or **reversed** when it excludes 1, "
    "**equivalent within ±2%** when it lies inside 0.98 .. 1.02, else **open** (runs stored before named it "
    "**not separable on this machine**).",
    "Ratio: the median of the per-round ratios A/B with the verdict's interval and its level; rounds: those it "
    "rests on; any difference below: the interval's farther end from 1. **Same configuration here** when both "
    "sides ran the same effective configuration (read from the running processes), which is no experiment and "
    "has no interval; **not testable here** names the machine and command that can test it. Steal: the "
    "verdict's rounds whose runs lost more than 5% of the machine's CPU time to the hypervisor (/proc/stat), of "
    "those measured.",
    "p: a sign-flip test of the same ratios, a check (n rounds cannot go below 2 / 2^n). Could detect: "
    "differences above it would have been seen at 80% power. Saturated: per round, the side whose CPU time "
    "reached 90% of wall time x the CPUs it may use (load, server, both, neither).",
    "CPU figures are the scheduler's exact run time of each whole process (threads that exited included), not "
    "10 ms ticks. Servers run in a session of their own, as if started from a second terminal (with Linux's "
    "autogroup scheduling that decides how server and load share the cores).",
    "Placements: **shared**: server and load share every CPU, as the write-ups ran them (the summary's "
    "verdicts); **split**: each has its own half of the CPUs.",
    "The JSON documents beside this file hold every sample (results/README.md describes them); report.json is "
    "this report as data.",
]


def _read_json(path):
    with open(path) as f:
        return json.load(f)


def _epoch(timestamp):
    import calendar
    import time
    try:
        return calendar.timegm(time.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ"))
    except (TypeError, ValueError):
        return None


def _stored(directory, names, unreadable=None):
    """{name: document} of the suite's documents `names` in `directory`, validated; one that cannot be read or
    does not match its schema is left out, its file and why added to `unreadable`."""
    found = {}
    for name in names:
        path = os.path.join(directory, f"{name}.json")
        if os.path.exists(path):
            try:
                found[name] = result_schema.load(path)
            except (OSError, ValueError) as error:  # SchemaError is a ValueError
                if unreadable is not None:
                    unreadable.append({"file": f"{name}.json", "why": str(error).splitlines()[-1].strip()})
    return found


def _of_the_run(stored):
    """(the run's environment, the names of the documents of that run, the others): the run is the newest
    write-up's (or document's); a document of another commit, or written long after, is another run's."""
    if not stored:
        return {}, [], []
    writeups = [n for n in stored if n.endswith("_writeup")] or list(stored)
    main = max(writeups, key=lambda n: stored[n]["environment"].get("timestamp_utc", ""))
    env = stored[main]["environment"]
    start = _epoch(env.get("timestamp_utc"))
    ours, others = [], []
    for name, doc in stored.items():
        theirs = doc["environment"]
        when = _epoch(theirs.get("timestamp_utc"))
        same = (theirs.get("git_commit") == env.get("git_commit") and when is not None and start is not None
                and 0 <= when - start <= SAME_RUN_S)
        (ours if same or name == main else others).append(name)
    return env, ours, others


def _run_of(env, label):
    return {"label": label, "commit": env.get("git_commit"), "dirty": env.get("git_dirty"),
            "time": env.get("timestamp_utc"),
            "machine": f"{env.get('cpu_model', '?')}, {env.get('cores', '?')} cores, {env.get('os', '?')} "
                       f"{env.get('kernel', '?')}",
            "kernel_costs_us": env.get("kernel_costs_us") or {}}


def _charted(section, stored):
    """`section` with what its charts show (chart_data.py) from its stored document; none drawn yet."""
    try:
        data = chart_data.of(section["source"][:-len(".json")], stored)
    except (KeyError, TypeError, ValueError) as error:  # a document too old or too odd to chart
        data = None
        section.setdefault("notes", []).append(f"No charts: {error!r}.")
    return {**section, "charts": [], **({"chart_data": data} if data else {})}


def _scenario_section(definition, doc, kept):
    """A scenario's section from its stored document: its definition's section builder over the rows (the remote
    link's where --compare-loopback ran both), the verdicts the run kept, and the remote hosts' tables."""
    rows = judged_link.on_the_judged_link(doc["rows"])
    section = definition.section(rows, doc["contestants"], doc["settings"], doc["verdicts"])
    hosts = doc["settings"].get("hosts")
    if hosts and definition.link_keys:
        where = (f"servers on {hosts['server']} (reached at {hosts.get('server_address')}), loads on "
                 f"{', '.join(hosts.get('clients') or [hosts['server']])}")
        extra, _ = remote_report.section(doc["rows"], definition.link_keys, where,
                                         max(len(hosts.get("clients") or []), 1))
        section["notes"] += extra["notes"]
        section["tables"] += extra["tables"]
    section["source"] = f"{definition.document}.json"
    if doc["settings"].get("family"):
        section["family"] = doc["settings"]["family"]
    if doc["settings"].get("set_aside"):  # the rounds the host disturbed, for the run's last screen
        section["set_aside"] = doc["settings"]["set_aside"]
    section["run"] = {**(kept.get(section["id"]) or {}), **({"partial": True} if doc.get("partial") else {})}
    return section


def read_run(directory, definitions, label=None, previous=None):
    """The document of the run stored in `directory`, built from its samples: `definitions` are the scenarios
    (bench/scenarios/catalogue.ALL: each with its document's name, its section builder over rows, contestants,
    settings and stored verdicts, and its link keys), write-ups first; each section with the data of its charts
    (charts.draw draws them and names them in it); `previous` an earlier document of the same run, whose
    sections' `run` notes (how the programs were placed, which the samples do not say) are kept."""
    unreadable = []
    stored = _stored(directory, [d.document for d in definitions], unreadable)
    env, ours, others = _of_the_run(stored)
    kept = {s["id"]: s.get("run") for s in (previous or {}).get("sections", [])}
    sections = [_scenario_section(d, stored[d.document], kept) for d in definitions if d.document in ours]
    sections = [_charted(s, stored[s["source"][:-len(".json")]]) for s in sections]
    other = [{"file": f"{n}.json", "commit": stored[n]["environment"].get("git_commit"),
              "time": stored[n]["environment"].get("timestamp_utc")} for n in others]
    return new(env, label or os.path.basename(os.path.normpath(directory)), sections, other, unreadable)


def new(env, label, sections, other_documents=(), unreadable=()):
    run = _run_of(env, label)
    if any((s.get("run") or {}).get("quick") for s in sections):
        run["quick"] = True
    if any((s.get("run") or {}).get("partial") for s in sections):
        run["partial"] = True
    family = next((s["family"] for s in sections if s.get("family")), None)
    if family:
        run["family"] = family
    found = controls(sections)
    if found:
        run["controls"] = found
    return {"schema": SCHEMA, "run": run, "summary": summary(sections), "sections": sections,
            "methodology": METHODOLOGY, "other_documents": list(other_documents), "unreadable": list(unreadable)}


def controls(sections):
    """Each part's A/A control (aa_control.py: a claim line marked `control`): [{"section", "claim", "verdict",
    "ratio", "found"}], `found` where it held or was reversed (the part's rounds are biased)."""
    out = []
    for section in sections:
        for line in section.get("verdicts", []):
            if line.get("control") and line["verdict"] != verdict_text.NOT_TESTABLE:
                found = line["verdict"] in ("holds", "reversed")
                out.append({"section": section["id"], "claim": line["claim"], "verdict": verdict_text.shown(line),
                            "ratio": verdict_text.ratio_interval(line), "found": found})
    return out


def summary(sections):
    """One row per write-up claim: its question, the verdict under the write-up's own load and placement (A vs
    B, the ratio and its interval) and what the other loads and placements said, in a few words. A part's A/A
    control is no claim of the write-up's: it is counted apart (controls()), and where it found a difference
    its part's rows say so (`biased`)."""
    rows = []
    for section in [s for s in sections if s["kind"] == "writeup"]:
        biased = any(c["found"] for c in controls([section]))
        for group in section.get("claims", []):
            if group.get("control"):
                continue
            line = section["verdicts"][group["headline"]]
            where = section.get("where") or [{} for _ in section["verdicts"]]
            a, b = verdict_text.sides(line)
            under = ", ".join(str(x) for x in (where[group["headline"]].get("placement"),
                                               where[group["headline"]].get("variant")) if x)
            counts = {}
            for index in group["others"]:
                counts[section["verdicts"][index]["verdict"]] = counts.get(section["verdicts"][index]["verdict"], 0) + 1
            others = ("; ".join(f"{n} {v}" for v, n in counts.items()) + f" (of {len(group['others'])})"
                      if counts else "-")
            testable = line["verdict"] != verdict_text.NOT_TESTABLE
            rows.append({"section": section["id"], "line": group["headline"], "question": group["question"],
                         "verdict": verdict_text.shown(line),
                         "under": under or "-", "a": a if testable else "-", "b": b if testable else "-",
                         "measured": verdict_text.measured(line) if testable else "-",
                         "ratio": verdict_text.ratio_interval(line) if testable else "-",
                         "others": others, "why": verdict_text.why(line) if testable else line.get("why", ""),
                         **({"rounds": verdict_text.rounds(line), "steal": verdict_text.steal(line)}
                            if testable and "design" in line else {}),
                         **{key: said for key, said in (("order", verdict_text.order(line)),
                                                          ("lost", verdict_text.lost(line))) if testable and said},
                         **({"biased": True} if biased else {})})
    return rows


def asks_yours(doc):
    """Whether the run asked a user's own questions (--claims, --versus) rather than the write-ups'."""
    ids = [s["id"] for s in doc.get("sections", []) if s.get("kind") == "writeup"]
    return bool(ids) and all(i.startswith(YOURS_PREFIX) for i in ids)


def summary_words(doc):
    """(heading, each row's verdict, what the other lines are, what a row is) of a report's summary, in the words
    of the write-ups' claims or of a user's questions."""
    if asks_yours(doc):
        return ("Summary: your questions on this run",
                "Each question's verdict under its load, in the shared placement (or the one it names)",
                "the other placement", "question")
    return ("Summary: the write-ups' claims on this run",
            "Each claim's verdict under the write-up's own load and placement", "the other loads and placements",
            "claim")


def to_json(doc):
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def write(path, doc):
    with open(path, "w") as f:
        f.write(to_json(doc))


def load(path):
    """The document stored at `path`, an older schema converted on read (old_documents.report)."""
    doc = old_documents.report(_read_json(path))
    if doc.get("schema") != SCHEMA:
        raise ValueError(f"{path}: schema {doc.get('schema')!r}, this checkout reads {SCHEMA}")
    return doc
