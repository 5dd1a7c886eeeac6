"""COMPARE.md: a comparison across runs (bench/reporting/compare.py's document) as Markdown: its title, then each
section's paragraphs, list, tables and charts, in the document's order. Drawn from the document alone.

    text = compare_markdown.render(comparison)
"""

from bench.reporting import markdown


def section(sec):
    out = [f"## {sec['title']}", ""] if sec["title"] else []
    for chart in sec["charts"]:
        out += [f"![{chart['alt']}]({chart['path']})", ""]
    if sec["items"]:
        out += [f"- {item}" for item in sec["items"]] + [""]
    for paragraph in sec["paragraphs"]:
        out += [paragraph, ""]
    for table in sec["tables"]:
        out += ([table["caption"], ""] if table.get("caption") else []) + [markdown.table(table["columns"],
                                                                                          table["rows"])]
    return out


def render(comparison):
    out = [f"# {comparison['title']}", ""]
    for sec in comparison["sections"]:
        out += section(sec)
    return "\n".join(out).rstrip("\n") + "\n"
