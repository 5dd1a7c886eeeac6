"""Every claim of a run against the runs before it: the stored runs read (every folder under results/data/ and
this machine's results folder that ran the claim), each one's verdict beside this run's (agree, differ,
conflict), and the ratio pooled across them by random effects (bench/analysis/history.py).

    history = history_report.of_run(doc, directory, history_report.stored_runs(parents))   # the document's "history"
    per_run, pooled = history_report.rows(doc["history"])   # the tables of the report's section

A run sees only the runs stored before it started, so that its report is the same whenever it is rendered
again. A stored run is read through its documents (result_schema.load converts older schemas on read).
"""

import glob
import os

from bench.analysis import history
from bench.reporting import result_schema
from bench.reporting import verdict_text
from bench.base import checkout

# The verdicts that say something of the ratio; the others (not measured, not testable) have no place in it.
JUDGED = ("holds", "reversed", "open", "not separable on this machine", "same configuration here")


def judged(verdict):
    return verdict in JUDGED or str(verdict).startswith("equivalent within")


def parents_with(parent):
    """The folders of run folders a run is read against: the checkout's results/data and `parent`, once each."""
    return list(dict.fromkeys([checkout.stored_runs(), parent]))


def stored_runs(parents):
    """[{"folder", "run": {label, time, machine, commit}, "entries": [history.entry]}] of every run folder with a
    write-up document under `parents` (folders of run folders: the checkout's results/data, the folder a run
    was stored in), oldest first; a document that cannot be read is left out."""
    runs = []
    for folder in sorted({os.path.realpath(os.path.dirname(p)) for parent in parents
                          for p in glob.glob(os.path.join(parent, "*", "*_writeup.json"))}):
        run = _read_run(folder)
        if run["entries"]:
            runs.append(run)
    return sorted(runs, key=lambda r: r["run"]["time"] or "")


def commands(document):
    """{contestant: its command} of a part's document or a report's section (their contestants' fates)."""
    return {f["name"]: f.get("command") for f in document.get("contestants", [])}


def _read_run(folder):
    entries, run = [], {"label": os.path.basename(folder), "time": None, "machine": None, "commit": None,
                        "design": None}
    for path in sorted(glob.glob(os.path.join(folder, "*_writeup.json"))):
        try:
            doc = result_schema.load(path)
        except (OSError, ValueError):
            continue
        env = doc["environment"]
        if run["time"] is None or env.get("timestamp_utc", "") < run["time"]:
            run.update(time=env.get("timestamp_utc"), commit=env.get("git_commit"),
                       machine=f"{env.get('cpu_model', '?')}, {env.get('cores', '?')} cores")
        run["design"] = run["design"] or history.design(doc)
        part = os.path.basename(path)[:-len(".json")]
        named = commands(doc)
        entries += [history.entry(line, part, named, run) for line in doc["verdicts"]
                    if judged(line.get("verdict")) and line.get("a")]
    return {"folder": folder, "run": run, "entries": entries}


def of_run(doc, directory, runs):
    """The document's history: for each judged verdict of its write-up sections, the earlier `runs` (those
    started before this one, other folders) that ran the same claim, each with its relation to this verdict,
    and the pooled ratio of the earlier runs alone and of them with this one."""
    this = os.path.realpath(directory)
    mine = next((r for r in runs if r["folder"] == this), None) or _read_run(this)
    started = mine["run"]["time"] or ""
    earlier = [r for r in runs if r["folder"] != this and (r["run"]["time"] or "") < started]
    claims = []
    for section in [s for s in doc["sections"] if s["kind"] == "writeup"]:
        part = section["source"][:-len(".json")]
        named = commands(section)
        for index, line in enumerate(section["verdicts"]):
            if not (judged(line.get("verdict")) and line.get("a")):
                continue
            now = history.entry(line, part, named, mine["run"])
            before = [e for r in earlier for e in r["entries"] if e["key"] == now["key"]]
            claims.append({"section": section["id"], "index": index, "claim": line["claim"],
                           "verdict": verdict_text.shown(line), "ratio": now["ratio"], "interval": now["interval"],
                           "earlier": [_earlier(e, line.get("verdict")) for e in before],
                           "pooled_earlier": history.pool(before), "pooled": history.pool(before + [now])})
    return {"runs_read": len(earlier), "claims": claims}


def _earlier(found, verdict):
    return {"run": found["run"]["label"], "time": found["run"]["time"], "machine": found["run"]["machine"],
            "design": found["run"].get("design"),
            "verdict": found["verdict"] + (", by less than the margin" if found["small"] else ""),
            "ratio": found["ratio"], "interval": found["interval"],
            "relation": history.relation(verdict, found["verdict"])}


def counted(claim):
    """"2 earlier: 1 agree, 1 conflict; pooled 0.96 (0.80 .. 1.15)" for the summary; "-" without earlier runs."""
    if not claim["earlier"]:
        return "-"
    relations = [e["relation"] for e in claim["earlier"]]
    said = ", ".join(f"{relations.count(r)} {r}" for r in (history.AGREE, history.DIFFER, history.CONFLICT)
                     if r in relations)
    pooled = claim.get("pooled")
    return f"{len(relations)} earlier: {said}" + (f"; pooled {verdict_text.ratio_with_interval(pooled['ratio'], pooled['interval'])}"
                                                   if pooled else "")


HISTORY_COLUMNS = ["claim", "run", "machine", "judged by", "verdict", "ratio A/B (interval)", "against this run"]
POOLED_COLUMNS = ["claim", "runs", "pooled ratio (95% CI)", "I²", "a new machine (95% prediction)"]


def rows(history_doc):
    """(the per-run rows, the pooled rows) of a history, as table cells: this run first under each claim."""
    per_run, pooled = [], []
    for claim in history_doc["claims"]:
        if not claim["earlier"]:
            continue
        per_run.append([claim["claim"], "this run", "-", "-", claim["verdict"],
                        verdict_text.ratio_with_interval(claim["ratio"], claim["interval"]), "-"])
        per_run += [[claim["claim"], e["run"], e["machine"] or "-", design_words(e.get("design")), e["verdict"],
                     verdict_text.ratio_with_interval(e["ratio"], e["interval"]), e["relation"]]
                    for e in claim["earlier"]]
        if claim.get("pooled"):
            pooled.append(pooled_row(claim["claim"], claim["pooled"]))
    return per_run, pooled


def design_words(design):
    """A run's design as the history's column says it: "this version's", or the older design's name."""
    if design is None:
        return "-"
    return "this version's" if design == history.CURRENT_DESIGN else f"older: {design}"


def pooled_row(claim, found):
    """The cells of a claim's pooled row (POOLED_COLUMNS) from history.pool's `found`."""
    prediction = found["prediction"]
    return [claim, str(found["runs"]), verdict_text.ratio_with_interval(found["ratio"], found["interval"]),
            f"{found['i2'] * 100:.0f}%",
            f"{prediction[0]:.3g} .. {prediction[1]:.3g}" if prediction else "- (under 3 runs)"]


def attach(doc, history_doc):
    """The history into the document, and each summary row's count of earlier runs ("earlier")."""
    doc["history"] = history_doc
    by_line = {(c["section"], c["index"]): c for c in history_doc["claims"]}
    for row in doc["summary"]:
        claim = by_line.get((row["section"], summary_line(doc, row)))
        row["earlier"] = counted(claim) if claim else "-"


def summary_line(doc, row):
    """The index, in its section's verdicts, of the line a summary row shows (a report written before its rows
    named it: the headline of the row's question), or None."""
    if row.get("line") is not None:
        return row["line"]
    section = next((s for s in doc.get("sections", []) if s["id"] == row["section"]), None)
    return next((g["headline"] for g in (section or {}).get("claims", []) if g["question"] == row["question"]), None)


def across(runs):
    """Every claim of the stored `runs`, the newest run's first: [{"claim", "runs": [entry, newest first],
    "pooled"}], for `--history`; claims run by one run only are left out."""
    claims = {}
    for run in reversed(runs):
        for found in run["entries"]:
            claims.setdefault(found["key"], []).append(found)
    out = []
    for entries in claims.values():
        if len(entries) >= 2:
            out.append({"claim": entries[0]["claim"], "runs": entries, "pooled": history.pool(entries)})
    return out


def controls_share(runs):
    """The A/A controls of the stored `runs` (aa_control.py: the same program on both sides): {"controls": how
    many were judged, "decided": how many held or were reversed, "runs": in how many runs}; None where no stored
    run had one. The decided share is netbench's false-claim rate measured on its own machines."""
    found = [e for run in runs for e in run["entries"] if e.get("control")]
    if not found:
        return None
    return {"controls": len(found), "decided": sum(1 for e in found if e["verdict"] in ("holds", "reversed")),
            "runs": len({e["run"]["label"] for e in found})}


def controls_text(share):
    """"A/A controls across 2 stored runs: 0 of 6 decided a difference (0%)", or "" without controls."""
    if not share:
        return ""
    return (f"A/A controls across {share['runs']} stored run{'s' if share['runs'] != 1 else ''}: {share['decided']} "
            f"of {share['controls']} decided a difference ({share['decided'] / share['controls']:.0%}), where the same "
            "program ran on both sides: the rate at which this method claims a difference where there is none")

