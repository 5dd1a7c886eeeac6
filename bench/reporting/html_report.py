"""report.html: a run's document (bench/reporting/document.py) as one self-contained web page. The run it is,
once; the summary first, one row per write-up claim; each section folded (<details>) until opened; tables
sortable by a click on a column's heading (a few lines of inline script); charts inline as data: URIs; no
request leaves the page; readable at a phone's width. Drawn from the document alone.

    text = html_report.render(doc, directory)     # directory: where the document's chart files are
"""

import base64
import html
import os
import re

from bench.reporting import document
from bench.reporting import history_report
from bench.reporting import markdown
from bench.reporting import verdict_text

STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1200px;
 padding:12px;color:#1b1b1b;background:#fff}
h1{font-size:1.45em;margin:.2em 0}h2{font-size:1.2em;margin:1.2em 0 .4em}h3{font-size:1.02em;margin:1em 0 .3em}
.run{color:#555;margin:0 0 .8em}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:.4em 0 1em}
table{border-collapse:collapse;font-size:.9em}th,td{border:1px solid #ddd;padding:4px 7px;text-align:left;
 vertical-align:top}th{background:#f3f4f6;cursor:pointer;user-select:none;white-space:nowrap}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
tr:nth-child(even) td{background:#fafafa}
td:first-child{min-width:11em}
.v{font-weight:600;white-space:nowrap;border-radius:3px;padding:1px 5px}
.v-holds{background:#d9f2dd}.v-reversed{background:#fbdada}.v-equivalent{background:#e3ecfb}
.v-not-separable{background:#f3efd6}.v-other{background:#eee}
details{border:1px solid #ddd;border-radius:6px;margin:.6em 0;padding:0 .8em}
details>summary{cursor:pointer;font-weight:600;padding:.6em 0}
blockquote{margin:.5em 0;padding:.2em .8em;border-left:4px solid #ccc;color:#333}
img{max-width:100%;height:auto}code{font-size:.9em;background:#f3f4f6;padding:0 3px;word-break:break-word}
pre{overflow-x:auto;background:#f6f6f6;padding:6px}
@media (max-width:600px){body{font-size:14px;padding:8px}td,th{padding:3px 4px}
 table.cards thead{display:none}table.cards,table.cards tbody,table.cards tr,table.cards td{display:block}
 table.cards tr{border:1px solid #ddd;border-radius:6px;margin:0 0 .6em;padding:.3em .5em}
 table.cards td{border:none;padding:1px 0;background:none!important}
 table.cards td:first-child{font-weight:600;min-width:0}
 table.cards td[data-label]:not(:first-child)::before{content:attr(data-label) ": ";color:#666}}
"""

# Click a column's heading: its rows sorted by that column, numbers as numbers; click again: reversed.
SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, column) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var up = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      function key(row) {
        var text = row.cells[column] ? row.cells[column].textContent.trim() : "";
        var n = parseFloat(text.replace(/,/g, ""));
        return isNaN(n) ? text.toLowerCase() : n;
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (typeof x !== typeof y) { x = String(x); y = String(y); }
        return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1);
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


def inline(text):
    """Escaped text with its `code` and **bold** marked up (the only Markdown a document's text holds)."""
    out = html.escape(str(text), quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


def verdict_badge(verdict):
    kind = {"holds": "holds", "reversed": "reversed", "not separable on this machine": "not-separable",
            "open": "not-separable"}.get(
        verdict.split(",")[0], "equivalent" if verdict.startswith("equivalent") else "other")
    return f'<span class="v v-{kind}" data-verdict="{html.escape(verdict)}">{html.escape(verdict)}</span>'


def table(columns, rows, cells_html=None, row_attrs=None, cards=False):
    """A sortable table; `cells_html`: for each row, cells already made HTML (else the text is escaped);
    `cards`: on a phone's width each row becomes a card of "column: value" lines."""
    head = "".join(f"<th>{inline(c)}</th>" for c in columns)
    labels = [f' data-label="{html.escape(c)}"' if cards else "" for c in columns]
    body = []
    for index, row in enumerate(rows):
        cells = cells_html[index] if cells_html else [inline(c) for c in row]
        attrs = row_attrs[index] if row_attrs else ""
        body.append(f"<tr{attrs}>" + "".join(f"<td{label}>{c}</td>" for label, c in zip(labels, cells)) + "</tr>")
    kind = "sortable cards" if cards else "sortable"
    return (f'<div class="scroll"><table class="{kind}"><thead><tr>{head}</tr></thead><tbody>'
            + "".join(body) + "</tbody></table></div>")


def chart(directory, spec):
    """An <img> with the chart's SVG inline as a data: URI; its alt text alone when the file is missing."""
    path = os.path.join(directory, spec["path"])
    try:
        with open(path, "rb") as f:
            data = base64.b64encode(f.read()).decode("ascii")
    except OSError:
        return f"<p>(chart not drawn: {html.escape(spec['alt'])})</p>"
    return f'<p><img alt="{html.escape(spec["alt"])}" src="data:image/svg+xml;base64,{data}"></p>'


def summary(doc, titles):
    rows, attrs = [], []
    for row in doc["summary"]:
        why = f' <small>({inline(row["why"])})</small>' if row["why"] else ""
        rows.append([f'<a href="#{row["section"]}">{inline(row["question"])}</a>', verdict_badge(row["verdict"]) + why,
                     inline(row["under"]), inline(f"{row['a']} vs {row['b']}" if row["a"] != "-" else "-"),
                     inline(row["measured"]), inline(row["ratio"]), inline(row["others"]),
                     inline(row.get("earlier", "-"))])
        attrs.append(f' class="claim" data-section="{html.escape(row["section"])}"')
    columns = markdown.SUMMARY_COLUMNS
    return table(columns, rows, cells_html=rows, row_attrs=attrs, cards=True)


def history(history_doc):
    """The section on the runs stored before this one that ran its claims ([] when none did)."""
    per_run, pooled = history_report.rows(history_doc) if history_doc else ([], [])
    if not per_run:
        return []
    out = ['<h2 id="history">Against the runs before</h2>',
           f"<p>{inline(markdown.HISTORY_INTRO.format(runs=history_doc['runs_read']))}</p>",
           table(history_report.HISTORY_COLUMNS, per_run)]
    if pooled:
        out += [f"<p>{inline(markdown.POOLED_INTRO)}</p>", table(history_report.POOLED_COLUMNS, pooled)]
    return out


def section(sec, directory, title):
    out = [f'<details id="{html.escape(sec["id"])}" class="section"><summary>{inline(title)}</summary>']
    if sec.get("claim"):
        out.append(f"<blockquote>{inline(sec['claim'])}</blockquote>")
    run = sec.get("run") or {}
    if run.get("quick"):
        out.append("<p><strong>Quick smoke run: not a measurement.</strong></p>")
    if run.get("partial"):
        out.append("<p><strong>Interrupted (Ctrl-C): partial, the runs that finished; the rest did not run."
                   "</strong></p>")
    if sec.get("measured"):
        out.append(f"<p>Measured here: {inline(sec['measured'])}"
                   + (f" Placed: {inline(run['how'])}." if run.get("how") else "") + "</p>")
    if sec.get("placements"):
        out.append("<ul>" + "".join(f"<li><strong>{inline(p['name'])}</strong>: {inline(p['answers'])}.</li>"
                                    for p in sec["placements"]) + "</ul>")
    if sec.get("verdicts"):
        rows = [verdict_text.table_row(line) for line in sec["verdicts"]]
        cells = [[inline(r[0]), verdict_badge(r[1])] + [inline(c) for c in r[2:-1]] + [inline(r[-1] or "-")]
                 for r in rows]
        out += ["<h3>Verdicts</h3>", table(verdict_text.VERDICT_COLUMNS, rows, cells_html=cells)]
    if sec.get("tables"):
        out.append("<h3>Measurements</h3>" if sec["kind"] == "writeup" else "<h3>Tables</h3>")
        for t in sec["tables"]:
            if t.get("caption"):
                out.append(f"<p>{inline(t['caption'])}</p>")
            out.append(table(t["columns"], t["rows"]))
    out += [chart(directory, spec) for spec in sec.get("charts", [])]
    out += [f"<p>{inline(note)}</p>" for note in sec.get("notes", [])]
    if sec.get("failures"):
        out.append("<h3>Failed runs (every other row ran)</h3><ul>")
        for failure in sec["failures"]:
            tail = f"<pre>{html.escape(failure['tail'])}</pre>" if failure.get("tail") else ""
            out.append(f"<li>{inline(failure['where'])}: {inline(failure['error'])}{tail}</li>")
        out.append("</ul>")
    if sec.get("contestants"):
        rows = []
        for fate in sec["contestants"]:
            detail = fate.get("version") if fate["status"] == "ran" else fate.get("why", "")
            env = " ".join(f"{k}={v}" for k, v in fate.get("env", {}).items())
            rows.append([fate["name"], fate["role"], fate["status"], detail or "-",
                         f"`{(env + ' ' if env else '') + fate['command']}`"])
        out += ["<h3>Contestants</h3>", table(["contestant", "role", "status", "version / why", "command"], rows)]
        for fate in sec["contestants"]:
            if fate.get("tail"):
                out.append(f"<p>{inline(fate['name'])} printed last:</p><pre>{html.escape(fate['tail'])}</pre>")
    out.append("</details>")
    return "\n".join(out)


def render(doc, directory):
    run = doc["run"]
    number, titles = 0, {}
    for sec in doc["sections"]:
        number += sec["kind"] == "writeup"
        titles[sec["id"]] = f"{number}. {sec['title']}" if sec["kind"] == "writeup" else sec["title"]
    dirty = " (with uncommitted changes)" if run.get("dirty") else ""
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>netbench report: {html.escape(run['label'])}</title>", f"<style>{STYLE}</style></head><body>",
           f"<h1>netbench report: {html.escape(run['label'])}</h1>",
           f'<p class="run">Run {inline(run.get("time"))}, commit <code>{inline(run.get("commit"))}</code>{dirty}, '
           f"{inline(run.get('machine'))}."
           + (" <strong>A quick smoke run: not a measurement.</strong>" if run.get("quick") else "")
           + (" <strong>Interrupted: partial.</strong>" if run.get("partial") else "") + "</p>"]
    if doc["summary"]:
        heading, each, others, row = document.summary_words(doc)
        out.append(f"<h2>{html.escape(heading, quote=False)}</h2>")
        if doc.get("summary_chart"):
            out.append(chart(directory, doc["summary_chart"]).replace("<p>", '<p id="verdicts-chart">', 1))
        out += [f"<p>{html.escape(each, quote=False)}; the next to last column counts what {others} said, the last "
                f"what the runs stored before this one said of the same {row}. Open a section below for each of "
                "them.</p>",
                summary(doc, titles), f'<p class="error-control">{inline(verdict_text.error_control(run))}</p>']
        if verdict_text.controls(run):
            out.append(f'<p class="controls">{inline(verdict_text.controls(run))}</p>')
    writeups = [s for s in doc["sections"] if s["kind"] == "writeup"]
    benches = [s for s in doc["sections"] if s["kind"] != "writeup"]
    if writeups:
        out.append("<h2>The write-ups</h2>")
        out += [section(s, directory, titles[s["id"]]) for s in writeups]
    if benches:
        out.append("<h2>Microbenchmarks and detail benches</h2>")
        out += [section(s, directory, titles[s["id"]]) for s in benches]
    out += history(doc.get("history"))
    out.append("<h2>How to read this report</h2>")
    out += [f"<p>{inline(p)}</p>" for p in doc["methodology"]]
    costs = run.get("kernel_costs_us") or {}
    if costs:
        out.append("<p>Kernel prices in this run (us of CPU, //common:kernel_cost_benchmark): "
                   + ", ".join(f"{html.escape(k)} {verdict_text.number(v)}" for k, v in costs.items()) + ".</p>")
    if doc.get("unreadable"):
        out.append("<h2>Documents of this folder that could not be read (not in this report)</h2><ul>")
        out += [f"<li>{inline(d['file'])}: {inline(d['why'])}</li>" for d in doc["unreadable"]]
        out.append("</ul>")
    if doc.get("other_documents"):
        out.append("<h2>Other runs' documents in this folder (not in this report)</h2><ul>")
        out += [f"<li>{inline(d['file'])}: commit {inline(d['commit'])}, {inline(d['time'])}</li>"
                for d in doc["other_documents"]]
        out.append("</ul>")
    # Opening a section's link (#echo) unfolds it. The last statement marks the page's script as run to its
    # end (the browser test reads it).
    opener = ("function openTarget(){var t=location.hash&&document.getElementById(location.hash.slice(1));"
              "if(t&&t.tagName==='DETAILS'){t.open=true;}}window.addEventListener('hashchange',openTarget);"
              "openTarget();document.documentElement.setAttribute('data-script','ran');")
    out.append(f"<script>{SCRIPT}{opener}</script></body></html>")
    return "\n".join(out) + "\n"
