"""compare.html: a comparison across runs (bench/reporting/compare.py's document) as one self-contained web page,
in report.html's style (html_report.py): each section's paragraphs, list, sortable tables and charts inline, a
verdict as report.html shows it. Drawn from the document alone; no request leaves the page.

    text = compare_html.render(comparison, directory)   # directory: where the comparison's chart files are
"""

import html
import re

from bench.reporting import html_report

VERDICT = re.compile(r"^\*\*([^*]+)\*\*(.*)$")


def cell(text):
    """A table cell: a verdict ("**holds** (1.2 ...)") as report.html's badge, any other text inline."""
    match = VERDICT.match(str(text))
    if match and match.group(1) != "significant":
        return html_report.verdict_badge(match.group(1)) + html_report.inline(match.group(2))
    return html_report.inline(text)


def section(sec, directory):
    out = [f"<h2>{html_report.inline(sec['title'])}</h2>"] if sec["title"] else []
    out += [html_report.chart(directory, chart) for chart in sec["charts"]]
    if sec["items"]:
        out += ["<ul>"] + [f"<li>{html_report.inline(item)}</li>" for item in sec["items"]] + ["</ul>"]
    out += [f"<p>{html_report.inline(p)}</p>" for p in sec["paragraphs"]]
    for table in sec["tables"]:
        if table.get("caption"):
            out.append(f"<p>{html_report.inline(table['caption'])}</p>")
        out.append(html_report.table(table["columns"], table["rows"],
                                     cells_html=[[cell(c) for c in row] for row in table["rows"]]))
    return out


def render(comparison, directory):
    title = html.escape(comparison["title"])
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">', f"<title>{title}</title>",
           f"<style>{html_report.STYLE}</style></head><body>", f"<h1>{title}</h1>"]
    for sec in comparison["sections"]:
        out += section(sec, directory)
    out.append(f"<script>{html_report.SCRIPT}</script></body></html>")
    return "\n".join(out) + "\n"
