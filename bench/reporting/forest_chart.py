"""The report's first picture: every write-up claim's ratio A/B and its interval on a log axis (a forest plot),
this run's beside the pooled ratio of the runs stored before it, 1 and the equivalence margin marked. Drawn
from the run's document alone (its summary and history).

    path, alt = forest_chart.draw(doc, directory)     # directory/charts/verdicts.svg, or None without data
"""

import os

from bench.analysis import history
from bench.reporting import charts
from bench.reporting import history_report

NAME = "verdicts"
MARGIN = 0.05


def _points(doc):
    """[(label, this run's (ratio, low, high) or None, the earlier runs' pooled (ratio, low, high) or None)]."""
    by_line = {(c["section"], c["index"]): c for c in (doc.get("history") or {}).get("claims", [])}
    out = []
    for row in doc["summary"]:
        section = next((s for s in doc["sections"] if s["id"] == row["section"]), None)
        index = history_report.summary_line(doc, row)
        if section is None or index is None:
            continue
        ratio, interval = history.ratio_and_interval(section["verdicts"][index])
        now = (ratio, *interval) if ratio and interval else None
        pooled = (by_line.get((row["section"], index)) or {}).get("pooled_earlier")
        before = (pooled["ratio"], *pooled["interval"]) if pooled else None
        if now or before:
            out.append((f"{row['question'][:60]}\n({row['verdict']})", now, before))
    return out


def draw(doc, directory):
    """Draws the forest plot into directory/charts; (its path relative to `directory`, alt text), or None where
    no claim has an interval (or matplotlib is missing)."""
    points = _points(doc)
    if not points:
        return None
    try:
        figures = charts.Figures()
    except ImportError:
        return None
    out = os.path.join(directory, charts.CHARTS_FOLDER)
    os.makedirs(out, exist_ok=True)
    with figures.matplotlib.rc_context(charts.RC):
        run = doc["run"]
        figure, ax = figures.pyplot.subplots(figsize=(9.0, 0.55 * len(points) + 1.6))
        figure.suptitle("Every claim's ratio A/B: this run and the runs before it (pooled)\n"
                        f"{run.get('machine')}; run {run.get('time')}, commit {run.get('commit')}")
        figure.netbench_alt = "Every claim's ratio A/B: this run and the runs before it (pooled)"
        _plot(ax, points)
        path, alt = charts.save(figures, figure, out, NAME)
    return os.path.relpath(path, directory), alt


def _plot(ax, points):
    labelled = set()
    for y, (_, now, before) in enumerate(points):
        for found, offset, color, label in ((now, -0.12, "#1f77b4", "this run"),
                                            (before, 0.12, "#7f7f7f", "earlier runs, pooled")):
            if found is None:
                continue
            ratio, low, high = found
            ax.errorbar([ratio], [y + offset], xerr=[[ratio - low], [high - ratio]], fmt="o", color=color,
                        markersize=4, capsize=3, label=None if label in labelled else label)
            labelled.add(label)
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.axvspan(1 / (1 + MARGIN), 1 + MARGIN, color="#dddddd", alpha=0.6, label=f"within ±{MARGIN * 100:g}%")
    ax.set_yticks(range(len(points)))
    ax.set_yticklabels([p[0] for p in points], fontsize=7)
    ax.invert_yaxis()
    lows = [f[1] for _, a, b in points for f in (a, b) if f]
    highs = [f[2] for _, a, b in points for f in (a, b) if f]
    ax.set_xlim(max(min(lows) / 1.2, 1e-3), min(max(highs) * 1.2, 1e3))
    ax.set_xlabel("ratio A/B (log axis); right of 1: A higher (a throughput claim holds, a cost or time claim is "
                  "reversed)", fontsize=7)
    ax.legend(fontsize=7, loc="best")
    import matplotlib.ticker as ticker
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
