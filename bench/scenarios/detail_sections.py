"""The section of a detail scenario (echo_bench.py, websocket_bench.py, httpfanout_bench.py), as data
(bench/reporting/document.py): what was run, its comparisons judged as the write-ups' claims are (the paired
ratio, its interval and a verdict: section_parts.section_of), and the medians of every case over its rounds.

    page = {"id": "echo-models", "title": "Echo models: ...", "notes": [...], "figures": FIGURES}
    claims = claim_files.detail("echo").claims(rows)   # its comparisons (bench/registry/details/echo.toml)
    section = detail_sections.section(page, rows, fates, claims, stored=None)
"""

from bench.analysis import medians
from bench.reporting import tables
from bench.scenarios import section_parts


def case_keys(rows):
    """The row fields that name a case: those of its cell, in the order the rows have them."""
    named = ("server", "scheme", "client")
    return [k for k in named if any(k in r for r in rows)]


def summary(rows, figures):
    """One entry per case (in the order the rows ran): the median of each figure over its rounds, the rounds
    and the runs that failed."""
    keys = case_keys(rows)
    cases = list(dict.fromkeys(tuple(r.get(k) for k in keys) for r in rows))
    out = []
    for case in cases:
        mine = [r for r in rows if tuple(r.get(k) for k in keys) == case]
        ok = [r for r in mine if r.get("status") == "ok"]
        entry = dict(zip(keys, case))
        entry["rounds"] = len(mine)
        for figure in figures:
            entry[figure] = medians.median([r.get(figure) for r in ok])
        entry["failed_runs"] = len(mine) - len(ok)
        out.append(entry)
    return out


def as_table(caption, entries):
    """A list of flat dicts as a section's table (cells as text, numbers as the tables print them)."""
    columns = list(dict.fromkeys(k for entry in entries for k in entry))
    return {"caption": caption, "columns": columns,
            "rows": [[tables.format_number(entry.get(c)) for c in columns] for entry in entries]}


def section(page, rows, fates, claims, stored=None):
    """A detail scenario's section: `page` has its id, title, notes (what was run) and figures (the medians
    its table shows) and, optionally, more tables; `claims` its comparisons (bench/design/judging.py's Claim);
    `stored` the verdicts a run kept, re-rendering it."""
    head = {"id": page["id"], "kind": "detail", "title": page["title"], "notes": page["notes"]}
    tables_ = [as_table("Every case (medians over rounds)", summary(rows, page["figures"]))]
    return section_parts.section_of(head, rows, fates, claims, stored, tables_ + list(page.get("tables", ())))
