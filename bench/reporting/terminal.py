"""The summary printed at the end of a run: one row per claim, under its write-up's title (or, in a run of your
own questions, under the scenario they ask about), its verdict as its write-up ran it (yours: under its load),
the ratio A/B with its interval, and a count of what the other loads and placements said; then where the report
is. From the run's document (bench/reporting/document.py) alone.

    print(terminal.render(doc, "results/data/linux-x86_64-2cpu-20261203T0930Z/REPORT.md"))

No word is cut: a long claim wraps within its column, the lines under a row wrap, and where the columns do not
fit the width the last one (the other loads and placements) goes (REPORT.md has it).
"""

import textwrap

from bench.analysis import verdict
from bench.reporting import document
from bench.reporting import verdict_text

# A claim column narrower than this (or than the longest claim) wraps too much: the last column goes first.
CLAIM_MIN, CLAIM_MAX = 44, 60
ROW_INDENT, NOTE_INDENT = 4, 6


def _note(row, line):
    """Under a row: the A/A control's finding where its part's control found a difference, its rounds, how
    often A ran first over how many process pairs and the runs each side lost, why an open or unmeasured claim
    is so, the rounds the hypervisor took CPU from, and the earlier runs."""
    said = [verdict_text.BIASED] if row.get("biased") else []
    said += [f"{row['rounds']} rounds"] if row.get("rounds", "-") != "-" else []
    said += [row[key] for key in ("order", "lost") if row.get(key)]
    if row["verdict"] in (verdict.OPEN, verdict.NOT_MEASURED) and row.get("why"):
        said.append(row["why"])
    stolen = (line or {}).get("steal") or {}
    if stolen.get("rounds_with_steal"):
        said.append(f"{stolen['rounds_with_steal']} of {stolen['rounds_with_noise']} rounds lost over "
                    f"{stolen['steal_level'] * 100:g}% of the CPUs to the hypervisor")
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


def header(doc):
    """The column heads: a run of the write-ups judges each claim as its write-up ran it; a run of your own
    questions, each under its load (in the placement its row names, where the rows share one)."""
    placements = {row.get("under", "-").split(", ")[0] for row in doc["summary"]}
    where = placements.pop() if len(placements) == 1 else None
    if document.asks_yours(doc):
        claim = "your question, under its load" + (f" ({where} placement)" if where in ("shared", "split") else "")
        return (claim, "verdict", "ratio A/B (interval, level)", "in the other placement")
    claim = "claim, as its write-up ran it" if where != "split" else "claim (its write-up's load, CPUs split)"
    return (claim, "verdict", "ratio A/B (interval, level)", "under other conditions")


def _widths(cells, heads, width):
    """The columns' widths, and whether the last column fits: the claim column is at most CLAIM_MAX (or its
    longest claim), and the last column goes where keeping it leaves the claims less than CLAIM_MIN."""
    fixed = [max(len(c[i]) for c in cells + [heads]) for i in (1, 2, 3)]
    longest = max(len(c[0]) for c in cells + [heads])
    room = width - ROW_INDENT - 2 * 3 - sum(fixed)
    keep = room >= min(longest, CLAIM_MIN)
    if not keep:
        room += 2 + fixed[2]
    return [max(min(room, longest, CLAIM_MAX), CLAIM_MIN // 2)] + (fixed if keep else fixed[:2]), keep


def _row(cells, widths, indent):
    """A row's lines: its claim wrapped within the first column, the other cells on the first line."""
    claim = textwrap.wrap(cells[0], widths[0], break_long_words=False, break_on_hyphens=False) or [""]
    rest = "  ".join(cells[i].ljust(widths[i]) for i in range(1, len(widths)))
    first = " " * indent + claim[0].ljust(widths[0]) + "  " + rest
    return [first.rstrip()] + [" " * indent + more for more in claim[1:]]


def _table(doc, width):
    """The summary's rows under their write-ups' titles, each with the line under it."""
    rows = doc["summary"]
    heads = header(doc)
    cells = [(r["question"], r["verdict"], r["ratio"], r["others"]) for r in rows]
    widths, keep = _widths(cells, heads, width)
    lines = _row(heads[:len(widths)], widths, ROW_INDENT)
    sections = {s["id"]: s for s in doc.get("sections", [])}
    title = None
    for row, cell in zip(rows, cells):
        section = sections.get(row["section"], {})
        if section.get("title", row["section"]) != title:
            title = section.get("title", row["section"])
            lines.append(f"  {title}")
        lines += _row(cell[:len(widths)], widths, ROW_INDENT)
        index = row.get("line")
        line = section["verdicts"][index] if index is not None and index < len(section.get("verdicts", ())) else {}
        lines += _wrapped(_note(row, line), width, NOTE_INDENT)
    return lines


def _wrapped(text, width, indent, more=None):
    """`text` wrapped at `width`, indented (its later lines by `more`), never inside an interval ("0.775 ..
    0.997") or a word."""
    kept = text.replace(" .. ", "\0..\0").replace(" pooled:", "\0pooled:")
    return [line.replace("\0", " ") for line in textwrap.wrap(kept, width, initial_indent=" " * indent,
                                                               subsequent_indent=" " * (more or indent),
                                                               break_long_words=False, break_on_hyphens=False)]


def render(doc, report_path=None, width=160):
    run = doc["run"]
    lines = ["", f"netbench summary: {run['label']}, commit {run.get('commit')}, {run.get('time')}"
             + (" (QUICK SMOKE RUN: not a measurement)" if run.get("quick") else "")
             + (" (INTERRUPTED: partial)" if run.get("partial") else "")]
    if doc["summary"]:
        lines += _table(doc, width)
        lines += _wrapped(verdict_text.error_control(run, rule=False), width, 2, 4)
        if verdict_text.controls(run):
            lines += _wrapped(verdict_text.controls(run), width, 2, 4)
    else:
        lines.append("  (no write-up ran)")
    disturbed = disturbance(doc)
    if disturbed:
        lines += _wrapped(disturbed, width, 2, 4)
    if report_path:
        lines.append(f"report: {report_path} (and report.html beside it)")
    return "\n".join(lines)
