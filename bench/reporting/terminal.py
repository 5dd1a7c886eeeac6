"""The summary printed at the end of a run: one row per write-up claim, its verdict under the write-up's own
load and placement, the ratio A/B with its interval, and a count of what the other loads and placements
said; then where the report is. From the run's document (bench/reporting/document.py) alone.

    print(terminal.render(doc, "results/data/linux-x86_64-2cpu-20261203T0930Z/REPORT.md"))
"""

from bench.reporting import verdict_text


def _cut(text, width):
    return text if len(text) <= width else text[:width - 1] + "…"


def _note(row):
    """Under a row of a run that counted them: its rounds, the bound of an open claim, and its steal."""
    if "rounds" not in row:
        return ""
    said = ([f"{row['rounds']} rounds"] if row["rounds"] != "-" else []) + (
        [row["why"]] if row["verdict"] == "open" and row.get("why") else [])
    if row.get("steal", "-") != "-":
        said.append(f"steal {row['steal']}")
    if row.get("earlier", "-") != "-":
        said.append(row["earlier"])
    return "; ".join(said)


def render(doc, report_path=None, width=160):
    run = doc["run"]
    lines = ["", f"netbench summary: {run['label']}, commit {run.get('commit')}, {run.get('time')}"
             + (" (QUICK SMOKE RUN: not a measurement)" if run.get("quick") else "")
             + (" (INTERRUPTED: partial)" if run.get("partial") else "")]
    rows = [(r["question"], r["verdict"], r["ratio"], r["others"]) for r in doc["summary"]]
    if not rows:
        lines.append("  (no write-up ran)")
    header = ("claim (the write-up's own load, shared placement)", "verdict", "ratio A/B (interval, level)",
              "other loads and placements")
    widths = [min(max(len(r[i]) for r in rows + [header]), cap) for i, cap in enumerate((50, 29, 32))] if rows else []
    for row, full in zip([header] + rows, [None] + doc["summary"]) if rows else []:
        fixed = "  ".join(_cut(row[i], widths[i]).ljust(widths[i]) for i in range(3))
        lines.append(_cut(f"  {fixed}  {row[3]}", width))
        note = _note(full) if full else ""
        if note:
            lines.append(_cut(f"    {note}", width))
    if rows:
        lines.append(f"  {verdict_text.error_control(run)}")
    if report_path:
        lines.append(f"report: {report_path} (and report.html beside it)")
    return "\n".join(lines)


