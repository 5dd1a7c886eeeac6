"""The section of a detail scenario (echo_bench.py, websocket_bench.py, httpfanout_bench.py): what was run, its
comparisons judged as the write-ups' claims are (the paired ratio, its interval and a verdict:
writeups.verdict_table), and the medians of every case over its rounds.

    section = detail_sections.section("# Echo models", notes, rows, fates, lines, CASE_FIGURES)
"""

import statistics

from bench.analysis import medians
from bench.reporting import tables
from bench.scenarios import writeups


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


def lookup(rows, figure, **cell):
    """The median of `figure` over the rows of one cell that ran; None when none did."""
    values = [r.get(figure) for r in rows if r.get("status") == "ok"
              and all(r.get(k) == v for k, v in cell.items())]
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def section(title, notes, rows, fates, lines, figures):
    """{"title", "verdicts", "markdown"} of a detail scenario: `notes` say what was run; `lines` are its
    comparisons' verdicts (writeups.judge)."""
    markdown = (f"{title}\n\n{notes}\n\n" + writeups.verdict_table(lines)
                + "\nEvery case (medians over rounds):\n\n" + tables.markdown_table(summary(rows, figures)) + "\n"
                + writeups._failures(rows)  # noqa: SLF001 - one listing of failed runs for every section
                + ("\nContestants:\n\n" + writeups.fates_table(fates) if fates else ""))
    return {"title": title.lstrip("# "), "verdicts": lines, "markdown": markdown}
