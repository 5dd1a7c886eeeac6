"""The charts of a comparison across runs (bench/reporting/compare.py): for each compared document, its headline
figures as horizontal bars, one group per case and one colour per run, each bar the run's median with its
per-round range as an error bar. SVG through matplotlib's Agg backend, byte-reproducible (text kept as text,
a fixed hash salt, no date), so a stored comparison changes only when its numbers do.

    charts = compare_charts.draw(comparison, {"echo_writeup"}, "/tmp/out")
    # {"echo_writeup": [{"figure": "msgs_per_s", "file": "compare_echo_writeup_msgs_per_s.svg"}, ...]}
"""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FIGURES_PER_DOCUMENT = 2
LOG_SCALE_SPREAD = 30
UNITS = {"msgs_per_s": "messages per second", "server_cpu_us_per_msg": "server CPU us per message",
         "client_cpu_us_per_msg": "client CPU us per message", "walls_s": "seconds per fan-out",
         "wall_s": "seconds per fan-out", "client_cpu_us_per_req": "client CPU us per request",
         "client_cpu_us_per_request": "client CPU us per request"}


def _style():
    plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "netbench-compare", "font.size": 9,
                         "axes.spines.top": False, "axes.spines.right": False})


def case_label(case_name):
    """"server=racket client=go-spammer procs=2" -> "racket / go-spammer / procs 2": names as they are,
    numbers with what they count."""
    parts = []
    for item in case_name.split(" "):
        key, _, value = item.partition("=")
        parts.append(f"{key} {value}" if value.isdigit() else value)
    return " / ".join(parts)


def error_bar(median, low, high):
    """(below, above) of an error bar from `median` to the range low..high, both >= 0 as matplotlib demands.

    The bar is the median over every sample, the range is over per-round values (each a round's median), so the
    median need not lie inside the range: a round's several samples, or rows of two links stored under one round
    index (a remote run's loopback and remote rows), put it outside. A range given as high < low (a ratio's
    interval whose ends swapped when inverted) is sorted first. An end on the wrong side of the median draws no
    whisker on that side rather than stopping the whole comparison."""
    ends = sorted(v for v in (low, high) if v is not None) or [median]
    low, high = ends[0], ends[-1]
    return max(0.0, median - low), max(0.0, high - median)


def draw_figure(rows, runs, title, unit, higher_is_better, path):
    """One chart: `rows` are compare.py's rows of one document and figure."""
    _style()
    colours = plt.get_cmap("tab10").colors
    cases = [case_label(row["case"]) for row in rows]
    height = 0.8 / len(runs)
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.22 * len(rows) * len(runs) + 0.1 * len(rows)))
    for index, run in enumerate(runs):
        positions, medians, low, high = [], [], [], []
        for row_index, row in enumerate(rows):
            entry = next((e for e in row["runs"] if e["run"] == run), None)
            if entry is None or entry["median"] is None:
                continue
            positions.append(row_index + (index - (len(runs) - 1) / 2) * height)
            medians.append(entry["median"])
            below, above = error_bar(entry["median"], entry["round_min"], entry["round_max"])
            low.append(below)
            high.append(above)
        ax.barh(positions, medians, height=height * 0.9, color=colours[index % len(colours)], label=run,
                xerr=[low, high], error_kw={"ecolor": "black", "elinewidth": 0.8, "capsize": 2})
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(cases)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # the first case on top, no empty band around the bars
    values = [e["median"] for row in rows for e in row["runs"] if e["median"]]
    if values and max(values) / min(values) > LOG_SCALE_SPREAD:
        ax.set_xscale("log")  # cases far apart (a JVM cold start beside an epoll client) stay readable
    ax.set_xlabel(f"{unit} ({'higher' if higher_is_better else 'lower'} is better); bars: per-round range")
    ax.set_title(title)
    ax.legend(loc="best", frameon=True, framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def draw(comparison, documents, out_dir):
    """Draws the headline figures of each of `documents` that the comparison holds; returns, per document,
    the charts written (file names relative to `out_dir`)."""
    charts = {}
    for document in sorted({row["document"] for row in comparison["rows"]} & set(documents)):
        figures = []
        for row in comparison["rows"]:
            if row["document"] == document and row["figure"] not in figures:
                figures.append(row["figure"])
        for figure in figures[:FIGURES_PER_DOCUMENT]:
            rows = [row for row in comparison["rows"] if row["document"] == document and row["figure"] == figure]
            runs = []
            for row in rows:
                runs += [e["run"] for e in row["runs"] if e["run"] not in runs]
            file_name = f"compare_{document}_{figure}.svg"
            draw_figure(rows, runs, f"{document}: {figure}, median per run", UNITS.get(figure, figure),
                        rows[0]["higher_is_better"], os.path.join(out_dir, file_name))
            charts.setdefault(document, []).append({"figure": figure, "file": file_name})
    return charts
