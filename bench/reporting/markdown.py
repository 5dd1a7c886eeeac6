"""REPORT.md: a run's document (bench/reporting/document.py) as Markdown. The run it is, once; the summary,
one row per write-up claim, each linked to its section; the sections (verdicts, tables, charts, notes,
contestants); the methodology, once, at the end. Drawn from the document alone: nothing here edits text.

    text = markdown.render(doc)
    text = markdown.section(section)       # one section (a test, a tool)
"""

import re

from bench.reporting import document
from bench.reporting import history_report
from bench.reporting import verdict_text

SUMMARY_COLUMNS = ["question", "verdict", "under", "A vs B", "measured (medians)", "ratio A/B (interval, level)",
                   "the other loads and placements", "earlier runs"]


def cell(text):
    """Text fit for a Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def table(columns, rows):
    out = ["| " + " | ".join(cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def anchor(title):
    """The anchor a repository host gives a heading: lowercase, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def heading_of(section, number):
    return f"{number}. {section['title']}" if section["kind"] == "writeup" else section["title"]


def run_line(run):
    dirty = " (with uncommitted changes)" if run.get("dirty") else ""
    return (f"Run {run.get('time')}, commit {run.get('commit')}{dirty}, {run.get('machine')}."
            + (" **A quick smoke run: not a measurement.**" if run.get("quick") else "")
            + (" **Interrupted: partial.**" if run.get("partial") else ""))


def summary(doc, headings):
    rows = []
    for row in doc["summary"]:
        link = f"[{row['question']}](#{anchor(headings[row['section']])})"
        verdict = f"**{row['verdict']}**" + (f" ({row['why']})" if row["why"] else "")
        rows.append([link, verdict, row["under"], f"{row['a']} vs {row['b']}" if row["a"] != "-" else "-",
                     row["measured"], row["ratio"], row["others"], row.get("earlier", "-")])
    return table(SUMMARY_COLUMNS, rows)


def section(sec, number=None):
    """One section's Markdown, headed at level 2."""
    out = [f"## {heading_of(sec, number) if number else sec['title']}", ""]
    if sec.get("claim"):
        out += [f"> {sec['claim']}", ""]
    run = sec.get("run") or {}
    if run.get("quick"):
        out += ["**Quick smoke run: not a measurement.**", ""]
    if run.get("partial"):
        out += ["**Interrupted (Ctrl-C): partial, the runs that finished; the rest did not run.**", ""]
    if sec.get("measured"):
        out += [f"Measured here: {sec['measured']}" + (f" Placed: {run['how']}." if run.get("how") else ""), ""]
    if sec.get("placements"):
        out += [f"- **{p['name']}**: {p['answers']}." for p in sec["placements"]] + [""]
    if sec.get("verdicts"):
        out += ["### Verdicts", "", table(verdict_text.VERDICT_COLUMNS,
                                          [[r[0], f"**{r[1]}**"] + r[2:-1] + [r[-1] or "-"]
                                           for r in map(verdict_text.table_row, sec["verdicts"])])]
    if sec.get("tables"):
        out += ["### Measurements" if sec["kind"] == "writeup" else "### Tables", ""]
        for t in sec["tables"]:
            out += ([t['caption'], ""] if t.get("caption") else []) + [table(t["columns"], t["rows"])]
    for chart in sec.get("charts", []):
        out += [f"![{chart['alt']}]({chart['path']})", ""]
    for note in sec.get("notes", []):
        out += [note, ""]
    if sec.get("failures"):
        out += ["### Failed runs (every other row ran)", ""]
        for failure in sec["failures"]:
            out.append(f"- {failure['where']}: {failure['error']}")
            if failure.get("tail"):
                out += ["  ```"] + ["  " + line for line in failure["tail"].splitlines()] + ["  ```"]
        out.append("")
    if sec.get("contestants"):
        out += ["### Contestants", "", table(["contestant", "role", "status", "version / why", "command"],
                                             [contestant_row(f) for f in sec["contestants"]])]
        for fate in sec["contestants"]:
            if fate.get("tail"):
                out += [f"{fate['name']} printed last:", "```", fate["tail"], "```", ""]
    return "\n".join(out)


def contestant_row(fate):
    detail = fate.get("version") if fate["status"] == "ran" else fate.get("why", "")
    env = " ".join(f"{k}={v}" for k, v in fate.get("env", {}).items())
    return [fate["name"], fate["role"], fate["status"], detail or "-", f"`{(env + ' ' if env else '') + fate['command']}`"]


def history_section(history_doc):
    """The section on the runs stored before this one that ran its claims, or "" when none did."""
    per_run, pooled = history_report.rows(history_doc)
    if not per_run:
        return ""
    out = ["## Against the runs before", "", HISTORY_INTRO.format(runs=history_doc["runs_read"]), "",
           table(history_report.HISTORY_COLUMNS, per_run)]
    if pooled:
        out += [POOLED_INTRO, "", table(history_report.POOLED_COLUMNS, pooled)]
    return "\n".join(out)


HISTORY_INTRO = ("This run's claims in the {runs} stored runs started before it, where they ran the same claim (the "
                 "same cells, figure and contestants' commands): each one's verdict, and whether it agrees, differs "
                 "(one decided, the other not, or decided otherwise) or conflicts (one holds where the other is "
                 "reversed).")
POOLED_INTRO = ("Pooled across the runs, this one included, by random effects (Paule-Mandel; statsmodels' "
                "combine_effects): I² is the share of the spread that lies between runs, and the prediction interval "
                "where a new machine's ratio would fall.")


def history_alone(claims, runs_read, controls=""):
    """`--history`: every claim that two or more stored runs ran, each run's verdict and the pooled ratio, after
    `controls` (history_report.controls_text: the A/A controls' decided share)."""
    per_run, pooled = [], []
    for claim in claims:
        per_run += [[claim["claim"], e["run"]["label"], e["run"]["machine"] or "-", e["run"]["time"] or "-",
                     history_report.design_words(e["run"].get("design")), e["verdict"],
                     verdict_text.ratio_with_interval(e["ratio"], e["interval"])] for e in claim["runs"]]
        if claim["pooled"]:
            pooled.append(history_report.pooled_row(claim["claim"], claim["pooled"]))
    return "\n".join([f"# netbench: every claim across the {runs_read} stored runs", "",
                      *([controls + ".", ""] if controls else []),
                      "Each claim that two or more stored runs ran (the same cells, figure and contestants' "
                      "commands), newest run first.", "",
                      "A run judged by an older design keeps its place: its ratio measures the same thing, its "
                      "verdict was reached by that design's rule (\"judged by\").", "",
                      table(["claim", "run", "machine", "time", "judged by", "verdict", "ratio A/B (interval)"],
                            per_run),
                      POOLED_INTRO.replace("this one included", "every one"), "",
                      table(history_report.POOLED_COLUMNS, pooled)])


def headings(doc):
    """{section id: its heading}, write-ups numbered."""
    out, number = {}, 0
    for sec in doc["sections"]:
        number += sec["kind"] == "writeup"
        out[sec["id"]] = heading_of(sec, number)
    return out


def render(doc):
    run = doc["run"]
    titles = headings(doc)
    out = [f"# netbench report: {run['label']}", "", run_line(run), ""]
    if doc["summary"]:
        chart = doc.get("summary_chart")
        heading, each, others, row = document.summary_words(doc)
        out += [f"## {heading}", ""]
        out += [f"![{chart['alt']}]({chart['path']})", ""] if chart else []
        out += [f"{each}; the next to last column counts what {others} said (the section has each), the last what "
                f"the runs stored before this one said of the same {row}.", "", summary(doc, titles),
                verdict_text.error_control(run), ""]
        out += [verdict_text.controls(run), ""] if verdict_text.controls(run) else []
    number = 0
    for sec in doc["sections"]:
        number += sec["kind"] == "writeup"
        out += [section(sec, number if sec["kind"] == "writeup" else None)]
    against = history_section(doc["history"]) if doc.get("history") else ""
    if against:
        out += [against]
    out += ["## How to read this report", ""]
    out += [paragraph + "\n" for paragraph in doc["methodology"]]
    costs = run.get("kernel_costs_us") or {}
    if costs:
        out += ["Kernel prices in this run (us of CPU, //common:kernel_cost_benchmark): "
                + ", ".join(f"{k} {verdict_text.number(v)}" for k, v in costs.items()) + ".", ""]
    if doc.get("unreadable"):
        out += ["## Documents of this folder that could not be read (not in this report)", ""]
        out += [f"- {d['file']}: {d['why']}" for d in doc["unreadable"]] + [""]
    if doc.get("other_documents"):
        out += ["## Other runs' documents in this folder (not in this report)", ""]
        out += [f"- {d['file']}: commit {d['commit']}, {d['time']}" for d in doc["other_documents"]] + [""]
    return "\n".join(out).rstrip("\n") + "\n"
