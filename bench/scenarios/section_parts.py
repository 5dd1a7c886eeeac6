"""The pieces every section's tables share: a section as data from its judged claims (section_of, on
bench/design/judging.py's judged lines), how many rounds ran (rounds_text), a run length's note, and the cells of
its tables (medians, spans, the saturated side, the failed runs). The write-ups' sections (writeup_sections.py),
the detail scenarios (detail_sections.py, microbenchmarks.py) and a user's own claims (your_claims.py) build
their sections from here.

    section = section_parts.section_of(head, rows, fates, claims, stored, tables)
"""

from bench.analysis import medians
from bench.analysis import sequential
from bench.design.judging import _bottlenecks, _judged, OLDER_CLAIMS, figure_of, placements_of
from bench.reporting import verdict_text
from bench.running import placement as cpu_placement
from bench.scenarios import run_lengths


_fmt = verdict_text.number


def _median_of(rows, figure):
    return medians.median([figure_of(r, figure) for r in rows if r.get("status") == "ok"])


def _span(values):
    """"lowest .. highest" as the tables print numbers; "-" when there are none."""
    values = [v for v in values if v is not None]
    return f"{_fmt(min(values))} .. {_fmt(max(values))}" if values else "-"


def _range_of(rows, figure):
    return _span(figure_of(r, figure) for r in rows if r.get("status") == "ok")


def _failures(rows):
    """The failed runs, once per server, client and error: [{"where", "error", "tail"}]."""
    out, seen = [], set()
    for r in rows:
        if r.get("status") == "ok":
            continue
        key = (r.get("server"), r.get("client"), r.get("error"))
        if key in seen:
            continue
        seen.add(key)
        where = ", ".join(f"{k} {r[k]}" for k in ("client", "server", "scheme", "condition", "procs", "clients")
                          if k in r)
        out.append({"where": where, "error": r.get("error"), "tail": r.get("tail")})
    return out


def section_of(head, rows, fates, claims, stored, tables):
    """A section as data, what the renderers (bench/reporting/) show: `head` has its id, kind ("writeup" or
    "detail"), title, and where it has them the write-up's claim, what was measured and notes; `claims` are
    judged here (or matched to `stored`, the verdicts a run kept, re-rendering it), by the sequential rule where
    `head` has `options` (sequential_options(settings))."""
    lines, groups, where = _judged(claims, rows, fates, stored, head.get("options"))
    for group in groups:  # the summary's row says which write-up the older claims were of
        if group["question"] == OLDER_CLAIMS:
            group["question"] = f"{head['title'].split(':')[0]}: {OLDER_CLAIMS}"
    return {"id": head["id"], "kind": head.get("kind", "writeup"), "title": head["title"],
            "claim": head.get("claim", ""), "measured": head.get("measured", ""),
            "placements": [{"name": p, "answers": cpu_placement.ANSWERS[p]} for p in placements_of(rows) if p],
            "verdicts": lines, "claims": groups, "where": where, "tables": list(tables),
            "notes": list(head.get("notes", ())), "failures": _failures(rows), "contestants": fates, "charts": []}


def rounds_text(settings):
    """How many rounds ran: "10 interleaved rounds", or, adaptive, the most any case ran and how they were
    spent."""
    if settings.get("design") != "sequential":
        return f"{settings['samples']} interleaved rounds"
    budget = f" of a {settings['budget_s'] / 60:.3g}-minute share of the budget" if settings.get("budget_s") else ""
    return (f"up to {settings['samples']} interleaved rounds{budget} (every case in the first, the claims' "
            f"cases in the first {sequential.MIN_ROUNDS}, then only the cases of the claims still open; a case no "
            "claim compares ran once)")


def _run_length_notes(settings, length):
    """The section's note on its run length: why it is as long as it is (the stored study the run kept)."""
    said = run_lengths.note(settings.get("run_length_study"), length, as_written=settings.get("as_written", False))
    return [said] if said else []


def _table(caption, columns, rows):
    return {"caption": caption, "columns": columns, "rows": rows}


def _saturated_text(cell):
    marks = _bottlenecks(cell)
    if not marks:
        return "-"
    top = max(dict.fromkeys(marks), key=marks.count)  # a tie: the first seen, the same on every render
    return f"{top} {marks.count(top)}/{len(marks)}"
