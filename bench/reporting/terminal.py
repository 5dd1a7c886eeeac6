"""The summary printed at the end of a run: one row per write-up claim, its verdict under the write-up's own
load and placement, the ratio A/B with its interval, and a count of what the other loads and placements
said; then where the report is. From the run's document (bench/reporting/document.py) alone.

    print(terminal.render(doc, "results/data/linux-x86_64-2cpu-20261203T0930Z/REPORT.md"))
"""

import textwrap

from bench.analysis import verdict
from bench.reporting import verdict_text


def _cut(text, width):
    return text if len(text) <= width else text[:width - 1] + "…"


def _note(row):
    """Under a row of a run that counted them: its rounds, the bound of an open claim, and its steal."""
    if "rounds" not in row:
        return ""
    said = ([verdict_text.BIASED] if row.get("biased") else []) + (
        [f"{row['rounds']} rounds"] if row["rounds"] != "-" else []) + (
        [row["order"]] if row.get("order") else []) + ([row["lost"]] if row.get("lost") else []) + (
        [row["why"]] if row["verdict"] == "open" and row.get("why") else [])
    if row.get("steal", "-") != "-":
        said.append(f"steal {row['steal']}")
    if row.get("earlier", "-") != "-":
        said.append(row["earlier"])
    return "; ".join(said)


def disturbance(doc):
    """The rounds the host disturbed, set aside in every part (its sections' `set_aside`), and by whom: "set
    aside (not counted): echo 12 of 40 rounds, websocket 3 of 20; other programs took 31% of the CPUs in them;
    most: python3 (pid 28796, 41 s of CPU)"; "" where none was."""
    parts = [(s["id"], s["set_aside"]) for s in doc.get("sections", []) if s.get("set_aside")]
    if not parts:
        return ""
    counted = ", ".join(f"{name} {aside['rounds']} of {aside['of']} rounds" for name, aside in parts)
    reasons = {}
    for _, aside in parts:
        for why, n in aside["why"].items():
            reasons[why] = reasons.get(why, 0) + n
    shares = sorted(aside["share"] for _, aside in parts if aside.get("share") is not None)
    who = "the hypervisor (steal)" if max(reasons, key=lambda r: (reasons[r], r)) == "steal" else "other programs"
    said = f"set aside (not counted): {counted}"
    if shares:
        said += f"; {who} took {verdict.share_text(shares[len(shares) // 2])} of the CPUs in them"
    tops = {}
    for _, aside in parts:
        for top in aside.get("top") or []:
            key = (top["name"], top["pid"])
            tops[key] = tops.get(key, 0.0) + top["cpu_s"]
    if tops:
        named = sorted(tops.items(), key=lambda item: (-item[1], item[0]))[:3]
        said += "; most: " + ", ".join(f"{name} (pid {pid}, {cpu_s:.2g} s of CPU)" for (name, pid), cpu_s in named)
    return said


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
        lines += textwrap.wrap(verdict_text.error_control(run), width, initial_indent="  ", subsequent_indent="    ")
    if verdict_text.controls(run):
        lines += textwrap.wrap(verdict_text.controls(run), width, initial_indent="  ", subsequent_indent="    ")
    disturbed = disturbance(doc)
    if disturbed:
        lines.append(_cut(f"  {disturbed}", width))
    if report_path:
        lines.append(f"report: {report_path} (and report.html beside it)")
    return "\n".join(lines)


