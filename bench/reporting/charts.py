"""Charts of a run: SVG files drawn with matplotlib from its document alone (each section's `chart_data`,
chart_data.py), one set per section of the report, written to <run folder>/charts/<source>_<what>.svg; the
document's sections name them, REPORT.md links them and report.html holds them.

    charts.draw(doc, directory)   # fills each section's "charts": [{"path": "charts/echo_writeup_rate.svg", "alt"}]

A bar or point is the median over a run's interleaved rounds, its whiskers the lowest and the highest round:
the same figures, and the same ranges, as the tables print. Axes whose values span decades are logarithmic.
The same document gives the same bytes (a fixed SVG hash salt, no date), so re-rendering does not churn the
repository; text stays text (svg.fonttype none), so the SVG names what it shows.
"""

import collections
import dataclasses
import os

from bench.analysis import verdict
from bench.base import progress

CHARTS_FOLDER = "charts"

# What makes the output reproducible and searchable: no date, fixed element ids, text kept as text.
RC = {
    "svg.hashsalt": "netbench",
    "svg.fonttype": "none",
    "font.size": 9,
    "axes.titlesize": 10,
    "figure.titlesize": 11,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.axisbelow": True,
    "legend.fontsize": 8,
    "legend.framealpha": 0.9,
}
SVG_METADATA = {"Date": None}

# A span at least this wide (highest over lowest positive value) gets a logarithmic axis.
LOG_SPAN = 20.0

# The origin's answer delay in the fan-out's 50 ms cases: no fan-out can finish faster.
FANOUT_FLOOR_S = 0.050

Stat = collections.namedtuple("Stat", "median low high")


@dataclasses.dataclass(frozen=True)
class Layout:
    """How a figure's panels sit: `panels` of them, `columns` to a row (default: all in one row), the figure
    `width` inches wide and `height` inches per row; `sharey`: one y axis for all, so that panels compare."""
    panels: int = 1
    columns: int = None
    width: float = 9.0
    height: float = 4.2
    sharey: bool = False


class Figures:
    """matplotlib, imported on first use (the suite runs without it, and says so), with the settings above."""

    def __init__(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot
        import matplotlib.ticker as ticker
        self.matplotlib, self.pyplot, self.ticker = matplotlib, pyplot, ticker

    def figure(self, title, machine, layout=Layout()):
        """A figure titled `title` over the `machine`'s line, and its panels' axes in reading order."""
        columns = layout.columns or layout.panels
        rows = (layout.panels + columns - 1) // columns
        figure, axes = self.pyplot.subplots(rows, columns, figsize=(layout.width, layout.height * rows),
                                            squeeze=False, sharey=layout.sharey)
        figure.suptitle(f"{title}\n{machine}")
        figure.netbench_alt = title.split("\n")[0]  # the report's alt text for the image
        return figure, [ax for row in axes for ax in row]

    def count_axis(self, axis):
        """1k, 100k, 1M instead of 100000."""
        axis.set_major_formatter(self.ticker.EngFormatter(sep=""))

    def seconds_axis(self, ax, low, high):
        """A logarithmic time axis (x) a little wider than `low`..`high`, ticks labelled in ms or s: at 1-2-5
        steps over up to two decades, at decades beyond (so that labels do not collide)."""
        steps = (1, 2, 5) if high / low <= 100 else (1,)
        first, last = low / 1.4, high * 1.4
        ax.set_xlim(first, last)
        ax.xaxis.set_major_locator(self.ticker.FixedLocator(
            [m * 10 ** e for e in range(-6, 3) for m in steps if first <= m * 10 ** e <= last]))
        ax.xaxis.set_minor_formatter(self.ticker.NullFormatter())
        ax.xaxis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: duration_text(v)))

    def microseconds_axis(self, axis, low, high):
        """Latency in µs labelled as 50 µs, 1 ms, 20 ms: at 1-2-5 steps over up to two decades (a narrow span
        still gets labels), at decades beyond."""
        axis.set_major_locator(self.ticker.LogLocator(subs=(1.0, 2.0, 5.0) if high <= 100 * low else (1.0,)))
        axis.set_minor_formatter(self.ticker.NullFormatter())
        axis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: duration_text(v / 1e6)))

    def plain_axis(self, axis):
        """0.1, 1, 10 on a logarithmic axis instead of powers of ten."""
        axis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: f"{v:g}"))

    def bytes_axis(self, axis):
        """16 B, 1 KiB, 64 KiB, 1 MiB."""
        axis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: bytes_text(v)))

    def log_if_wide(self, ax, values, which="y"):
        positive = [v for v in values if v and v > 0]
        if positive and max(positive) / min(positive) >= LOG_SPAN:
            (ax.set_yscale if which == "y" else ax.set_xscale)("log")
            return True
        return False


def duration_text(seconds):
    if seconds >= 1:
        return f"{seconds:g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:g} ms"
    return f"{seconds * 1e6:g} µs"


def bytes_text(count):
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:g} {unit}"
    return f"{count:g} B"


def legend_outside(ax, title):
    """The legend right of the plot, where it covers no data."""
    ax.legend(title=title, loc="upper left", bbox_to_anchor=(1.01, 1.0))


def colors_for(names):
    """One colour per name, in order of first appearance (tab10, then tab20 beyond ten)."""
    palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
               "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94"]
    return {name: palette[i % len(palette)] for i, name in enumerate(dict.fromkeys(names))}


def grouped(figures, ax, groups, series, colors, log=None):
    """Bars (or, on a logarithmic axis, points) per group and series, whiskers from lowest to highest round.
    `series`: [(label, [Stat or None, one per group])]. `log`: None decides from the values' span."""
    values = [s.low for _, stats in series for s in stats if s] + [s.high for _, stats in series for s in stats if s]
    if log is None:
        log = figures.log_if_wide(ax, values)
    elif log:
        ax.set_yscale("log")
    width = 0.8 / max(1, len(series))
    for j, (label, stats) in enumerate(series):
        points = [(i - 0.4 + width * (j + 0.5), s) for i, s in enumerate(stats) if s]
        if not points:
            continue
        xs = [x for x, _ in points]
        medians = [s.median for _, s in points]
        whiskers = [[s.median - s.low for _, s in points], [s.high - s.median for _, s in points]]
        if log:
            ax.errorbar(xs, medians, yerr=whiskers, fmt="o", color=colors[label], label=label, capsize=3,
                        markersize=5)
        else:
            ax.bar(xs, medians, width * 0.9, yerr=whiskers, color=colors[label], label=label, capsize=3,
                   error_kw={"elinewidth": 1, "ecolor": "#333333"})
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=20 if max((len(g) for g in groups), default=0) > 10 else 0,
                       ha="right" if max((len(g) for g in groups), default=0) > 10 else "center")
    ax.set_xlim(-0.6, len(groups) - 0.4)
    if not log:
        ax.set_ylim(bottom=0)
    ax.grid(axis="x", visible=False)
    return log


def cell_stat(data, figure, **match):
    """The Stat of `figure` in the cell of `data` named by `match`; None where it has none."""
    found = next((c["stats"].get(figure) for c in data["cells"] if c["key"] == match), None)
    return Stat(*found) if found else None


def keys(data, *fields):
    """The distinct values (a tuple for several fields) of the cells' key `fields`, in order of appearance."""
    values = (tuple(c["key"][f] for f in fields) for c in data["cells"])
    return list(dict.fromkeys(v if len(fields) > 1 else v[0] for v in values))


# ---- the write-ups (one cell per contestant pair, its stats over the rounds)

def echo_writeup(figures, data, out):
    env, settings = data["machine"], data["settings"]
    servers, loads = keys(data, "server"), keys(data, "client")
    colors = colors_for(loads)
    how = (f"{settings.get('clients', '?')} connections, {settings.get('seconds', '?'):g} s per run; "
           f"median of {settings.get('samples', '?')} rounds, whiskers: lowest and highest round"
           + (f"; placement {settings['placement_drawn']}" if settings.get("placement_drawn") else ""))
    paths = []
    figure, (ax,) = figures.figure(f"Echo write-up: messages per second by server, under each load\n({how})", env)
    grouped(figures, ax, servers, [(load, [cell_stat(data, "msgs_per_s", server=s, client=load) for s in servers])
                                   for load in loads], colors)
    figures.count_axis(ax.yaxis)
    ax.set_xlabel("echo server")
    ax.set_ylabel("echoed messages per second (msgs/s)")
    legend_outside(ax, "load (client)")
    paths.append(save(figures, figure, out, "echo_writeup_rate"))

    figure, axes = figures.figure(f"Echo write-up: CPU time per message, server and load\n({how})", env,
                                  Layout(panels=2, width=11.0))
    for ax, side in zip(axes, ("server", "client")):
        grouped(figures, ax, servers, [(load, [cell_stat(data, f"{side}_cpu_us_per_msg", server=s, client=load)
                                               for s in servers]) for load in loads], colors)
        ax.set_xlabel("echo server")
        ax.set_ylabel(f"{side} CPU per message (µs)")
        ax.set_title(f"{'server process' if side == 'server' else 'load generator (client process)'}")
    legend_outside(axes[-1], "load (client)")
    paths.append(save(figures, figure, out, "echo_writeup_cpu"))
    return paths


def websocket_writeup(figures, data, out):
    env, settings = data["machine"], data["settings"]
    pairs = keys(data, "client", "server")
    procs, connections = sorted(keys(data, "procs")), sorted(keys(data, "clients"))
    colors = colors_for(f"{c} → {s}" for c, s in pairs)
    styles = dict(zip(connections, ["-", "--", ":", "-."]))
    cores = data["cores"]
    how = (f"{settings.get('messages', '?'):,} messages per client; median of {settings.get('samples', '?')} "
           "rounds, whiskers: lowest and highest round"
           + (f"; placement {settings['placement_drawn']}" if settings.get("placement_drawn") else ""))

    lines_count = len(pairs) * len(connections)

    def lines(ax, figure_name):
        for index, (client, server, n) in enumerate((c, s, n) for c, s in pairs for n in connections):
            # Lines sit a little apart so that whiskers at the same thread count stay distinguishable.
            dodge = (index - (lines_count - 1) / 2) * 0.03
            stats = [cell_stat(data, figure_name, client=client, server=server, procs=p, clients=n) for p in procs]
            points = [(p, s) for p, s in zip(procs, stats) if s]
            if not points:
                continue
            label = f"{client} → {server}"
            ax.errorbar([p + dodge for p, _ in points], [s.median for _, s in points],
                        yerr=[[s.median - s.low for _, s in points], [s.high - s.median for _, s in points]],
                        color=colors[label], linestyle=styles[n], marker="o", markersize=4, capsize=3,
                        label=f"{label}, {n} client{'s' if n > 1 else ''}")
        if cores and procs and max(procs) > cores:
            ax.axvspan(cores + 0.5, max(procs) + 0.5, color="#999999", alpha=0.15, lw=0,
                       label=f"more threads than the {cores} cores")
        ax.set_xticks(procs)
        ax.set_xlim(min(procs) - 0.3, max(procs) + 0.3)
        ax.set_xlabel("GOMAXPROCS (Go) or event-loop threads (netbench), both sides alike")
        ax.set_ylim(bottom=0)

    paths = []
    figure, (ax,) = figures.figure(f"WebSocket write-up: msgs/s as both sides get more threads\n({how})", env,
                                   Layout(height=5.0))
    lines(ax, "msgs_per_s")
    figures.count_axis(ax.yaxis)
    ax.set_ylabel("messages per second (msgs/s)")
    ax.legend(title="client → server, connections", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    paths.append(save(figures, figure, out, "websocket_writeup_scaling"))

    figure, axes = figures.figure(f"WebSocket write-up: CPU time per message as both sides get more threads\n({how})",
                                  env, Layout(panels=2, width=11.0, height=4.6))
    for ax, side in zip(axes, ("server", "client")):
        lines(ax, f"{side}_cpu_us_per_msg")
        ax.set_ylabel(f"{side} CPU per message (µs)")
        ax.set_title("server process" if side == "server" else "client process")
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, title="client → server, connections", loc="lower center", ncol=3)
    figure.tight_layout(rect=(0, 0.16, 1, 1))
    paths.append(save(figures, figure, out, "websocket_writeup_cpu", layout=False))
    return paths


@dataclasses.dataclass(frozen=True)
class FanoutGrid:
    """What a grid of fan-out dot plots shows: its `title`, its `panels` ({(scheme, server): [(label, client,
    condition or None, Stat)]}) and the servers whose origin answers late (`floor_servers`), whose panels
    mark that delay, the floor no fan-out can beat."""
    title: str
    panels: dict
    floor_servers: list


def fanout_panels(figures, env, grid, out, name):
    """A grid of fan-out dot plots (FanoutGrid): one panel per (scheme, server), a row per client and condition,
    wall time on a logarithmic axis, the origin's latency marked where it answers late; saved as `name`."""
    panels = grid.panels
    schemes = list(dict.fromkeys(k[0] for k in panels))
    servers = list(dict.fromkeys(k[1] for k in panels))
    labels = list(dict.fromkeys(entry[0] for entries in panels.values() for entry in entries))
    colors = colors_for(entry[1] for entries in panels.values() for entry in entries)
    markers = {"fresh": "o", "reuse": "s", None: "o"}
    values = [v for entries in panels.values() for e in entries if e[3] for v in (e[3].low, e[3].high)]
    if not values:  # every run failed: the report's table says why
        return []
    figure, axes = figures.figure(grid.title, env, Layout(panels=len(schemes) * len(servers), columns=len(servers),
                                                         width=4.2 * len(servers) + 1.5,
                                                         height=0.26 * len(labels) + 1.4, sharey=True))
    for row, scheme in enumerate(schemes):
        for column, server in enumerate(servers):
            ax = axes[row * len(servers) + column]
            ax.set_xscale("log")
            for label, client, condition, s in panels.get((scheme, server), []):
                if not s:
                    continue
                y = labels.index(label)
                ax.errorbar([s.median], [y], xerr=[[s.median - s.low], [s.high - s.median]], color=colors[client],
                            marker=markers[condition], markersize=5, capsize=2,
                            markerfacecolor=colors[client] if condition != "reuse" else "white")
            if server in grid.floor_servers:
                ax.axvline(FANOUT_FLOOR_S, color="#d62728", linestyle="--", linewidth=1,
                           label="50 ms: the origin's answer delay, the floor")
                ax.legend(loc="lower right")
            figures.seconds_axis(ax, min(values), max(values))
            ax.set_title(f"{server}, {scheme}")
            ax.set_yticks(range(len(labels)))
            ax.set_yticklabels(labels)
            ax.set_ylim(len(labels) - 0.5, -0.5)
            ax.grid(axis="y", visible=False)
            if row == len(schemes) - 1:
                ax.set_xlabel("wall time of one fan-out (log scale)")
    return [save(figures, figure, out, name)]


def fanout_writeup(figures, data, out):
    env, settings = data["machine"], data["settings"]
    panels = {}
    for key in keys(data, "scheme", "server", "client", "condition"):
        scheme, server, client, condition = key
        s = cell_stat(data, "wall_s_median", scheme=scheme, server=server, client=client, condition=condition)
        panels.setdefault((scheme, server), []).append((f"{client}, {condition}", client, condition, s))
    title = (f"Fan-out write-up: wall time of {settings.get('requests', '?')} concurrent GETs by client, "
             f"fresh (filled) or reused (open) connections\n(median of {settings.get('samples', '?')} rounds of "
             f"{settings.get('reps', '?')} repetitions; whiskers: lowest and highest round"
             + (f"; placement {settings['placement_drawn']}" if settings.get("placement_drawn") else "") + ")")
    floor = [s for s in keys(data, "server") if "50ms" in s]
    return fanout_panels(figures, env, FanoutGrid(title, panels, floor), out, "fanout_writeup_wall")


# ---- the detail scenarios (bench/scenarios/*_bench.py: rows with server, client (the load), round, status)

PERCENTILES = [("p50_us", "p50"), ("p99_us", "p99"), ("p999_us", "p99.9")]


def detail_bench(figures, data, out, name, what):
    env = data["machine"]
    servers, loads = keys(data, "server"), keys(data, "client")
    colors = colors_for(servers)
    rounds = data["rounds"]
    how = f"median of {rounds} rounds, whiskers: lowest and highest round"
    paths = []
    figure, (ax,) = figures.figure(f"{what}: msgs/s by load and server\n({how})", env)
    log = grouped(figures, ax, loads, [(s, [cell_stat(data, "msgs_per_s", server=s, client=load) for load in loads])
                                       for s in servers], colors)
    figures.count_axis(ax.yaxis)
    ax.set_xlabel("load (the bench's name for it)")
    ax.set_ylabel("messages per second (msgs/s" + (", log scale)" if log else ")"))
    legend_outside(ax, "server")
    paths.append(save(figures, figure, out, f"{name}_rate"))

    figure, axes = figures.figure(f"{what}: CPU time per message by load and server\n({how})", env,
                                  Layout(panels=2, width=12.0))
    for ax, side in zip(axes, ("server", "client")):
        log = grouped(figures, ax, loads, [(s, [cell_stat(data, f"{side}_cpu_us_per_msg", server=s, client=load)
                                                for load in loads]) for s in servers], colors)
        ax.set_xlabel("load")
        if log:
            figures.plain_axis(ax.yaxis)
        ax.set_ylabel(f"{side} CPU per message (µs" + (", log scale)" if log else ")"))
        ax.set_title("server process" if side == "server" else "client process")
    legend_outside(axes[-1], "server")
    paths.append(save(figures, figure, out, f"{name}_cpu"))

    with_latency = [load for load in loads if any(c["stats"].get("p50_us") for c in data["cells"]
                                                  if c["key"]["client"] == load)]
    if with_latency:
        figure, axes = figures.figure(f"{what}: latency percentiles where the load measures them\n({how})", env,
                                      Layout(panels=len(with_latency), width=max(9.0, 4.5 * len(with_latency) + 1.5),
                                             sharey=True))
        for ax, load in zip(axes, with_latency):
            present = [(key, label) for key, label in PERCENTILES
                       if any(c["stats"].get(key) for c in data["cells"] if c["key"]["client"] == load)]
            for j, s in enumerate(servers):
                stats = [cell_stat(data, key, server=s, client=load) for key, _ in present]
                points = [(i + (j - (len(servers) - 1) / 2) * 0.06, st) for i, st in enumerate(stats) if st]
                if not points:
                    continue
                ax.errorbar([x for x, _ in points], [st.median for _, st in points],
                            yerr=[[st.median - st.low for _, st in points], [st.high - st.median for _, st in points]],
                            color=colors[s], marker="o", markersize=4, capsize=3, label=s)
            ax.set_yscale("log")
            ax.set_xticks(range(len(present)))
            ax.set_xticklabels([label for _, label in present])
            ax.set_xlim(-0.4, len(present) - 0.6)
            ax.set_title(f"load {load}")
            ax.set_xlabel("percentile")
            latencies = [v for c in data["cells"] for key, _ in PERCENTILES if c["stats"].get(key)
                         for v in c["stats"][key][1:]]
            figures.microseconds_axis(ax.yaxis, min(latencies), max(latencies))
        legend_outside(axes[-1], "server")
        axes[0].set_ylabel("latency (log scale)")
        paths.append(save(figures, figure, out, f"{name}_latency"))
    return paths


def httpfanout_bench(figures, data, out):
    env = data["machine"]
    panels = {}
    for key in keys(data, "scheme", "server", "client"):
        s = cell_stat(data, "wall_s_median", scheme=key[0], server=key[1], client=key[2])
        panels.setdefault(key[:2], []).append((key[2], key[2], None, s))
    samples = data["rounds"]
    requests = data["settings"].get("requests", "?")
    title = (f"HTTP fan-out detail scenario: wall time of {requests} concurrent GETs by client\n(median of "
             f"{samples} rounds, whiskers: lowest and highest round)")
    floor = [s for s in keys(data, "server") if "50ms" in s]
    return fanout_panels(figures, env, FanoutGrid(title, panels, floor), out, "httpfanout_bench_wall")


# What the numeric argument of a microbenchmark family means, per binary.
MICRO_ARGUMENTS = {
    "//websocket:mask_benchmark": "buffer size (bytes)",
    "//websocket:utf8_benchmark": "buffer size (bytes)",
    "//httpfanout:chunked_decoder_benchmark": "chunk size in a 25,600-byte body (bytes)",
    "//common:tls_benchmark": "message size (bytes)",
}


def microbenchmarks(figures, data, out):
    """GB/s against the argument, one line per benchmark family, one panel per binary that has such families."""
    families = data["families"]
    binaries = [b for b, fams in families.items() if any(len(points) >= 2 for points in fams.values())]
    if not binaries:
        return []
    columns = 2 if len(binaries) > 1 else 1
    figure, axes = figures.figure("Microbenchmarks: throughput against input size (Google Benchmark, one run, "
                                  "CPU time)", data["machine"],
                                  Layout(panels=len(binaries), columns=columns, width=12.0, height=4.0))
    for ax, binary in zip(axes, binaries):
        fams = {f: sorted(points) for f, points in families[binary].items() if len(points) >= 2}
        colors = colors_for(fams)
        for family, points in fams.items():
            ax.plot([x for x, _ in points], [y for _, y in points], marker="o", markersize=4, color=colors[family],
                    label=family.replace("BM_", ""))
        ax.set_xscale("log", base=2)
        figures.log_if_wide(ax, [y for points in fams.values() for _, y in points])
        figures.bytes_axis(ax.xaxis)
        figures.plain_axis(ax.yaxis)
        ax.set_title(binary)
        ax.set_xlabel(MICRO_ARGUMENTS.get(binary, "benchmark argument"))
        ax.set_ylabel("GB/s (log scale)" if ax.get_yscale() == "log" else "GB/s")
        ax.legend(loc="best", fontsize=7)
    for ax in axes[len(binaries):]:
        ax.set_visible(False)
    return [save(figures, figure, out, "microbenchmarks_throughput")]


def save(figures, figure, out, name, layout=True):
    """Writes `figure` as out/NAME.svg; returns (its path, its alt text)."""
    path = os.path.join(out, f"{name}.svg")
    if layout:
        figure.tight_layout()
    figure.savefig(path, format="svg", metadata=SVG_METADATA)
    figures.pyplot.close(figure)
    return path, figure.netbench_alt


def steal_per_round(figures, data, out, name):
    """The hypervisor's steal in each round (its rows' noise.steal, bench/running/noise.py): every run a dot,
    the round's highest a line, and the level a verdict counts a round above; nothing for rows without it."""
    by_round = dict(data.get("steal") or [])
    if not by_round:
        return []
    drawn = (f"; placement {data['settings']['placement_drawn']}" if data["settings"].get("placement_drawn") else "")
    figure, (ax,) = figures.figure(f"{name.replace('_', ' ')}: CPU time lost to the hypervisor (steal) per round"
                                   f"\n(every run a dot{drawn})", data["machine"], Layout(height=3.2))
    rounds = sorted(by_round)
    ax.plot([r for r in rounds for _ in by_round[r]], [v for r in rounds for v in by_round[r]], ".",
            color="tab:blue", alpha=0.5, label="a run")
    ax.plot(rounds, [max(by_round[r]) for r in rounds], "-", color="tab:blue", linewidth=1, label="round's highest")
    ax.axhline(verdict.STEAL_LEVEL * 100, linestyle="--", color="tab:red", linewidth=1,
               label=f"{verdict.STEAL_LEVEL * 100:g}%: counted in the verdicts")
    ax.set_xlabel("round")
    ax.set_ylabel("steal (% of all CPUs' time)")
    ax.set_ylim(bottom=0)
    legend_outside(ax, "steal")
    return [save(figures, figure, out, f"{name}_steal")]


def _with_steal(draw, name):
    """A write-up's charts, where its rows have a noise reading its steal per round, and where they have a
    series a typical run of each side of its first throughput claim."""
    return lambda figures, data, out: (draw(figures, data, out) + steal_per_round(figures, data, out, name)
                                       + typical_series(figures, data, out, name)
                                       + run_length_study(figures, data, out, name))


# How the study's servers lived: kept for a setting's rounds, started for every run, or kept and first warmed up.
SERVER_LIFETIMES = {"kept": "kept", "per_run": "fresh", "warmed": "warmed up"}


def run_length_study(figures, data, out, name):
    """The stored dimensioning study the run's lengths came from (its settings' run_length_study): the claim's
    ratio and 95% interval against the run's length, steady state and whole runs, servers kept and fresh, the
    run's own length marked. Nothing where the run kept no study."""
    study, length = data.get("study"), data.get("length")
    if not study:
        return []
    figure, (ax,) = figures.figure(f"{_section_name(name)}: the claim's ratio against the run's length, from "
                                   f"the stored study\n({study.get('claim')}; {study['source']})",
                                   data["machine"], Layout(height=3.6))
    for servers, marker in (("kept", "o"), ("per_run", "s"), ("warmed", "^")):
        for which, style in (("steady", "-"), ("whole", ":")):
            points = [p for p in study["points"] if p["servers"] == servers and p.get(which)]
            if not points:
                continue
            ys = [p[which][0] for p in points]
            ax.errorbar([p["length"] for p in points], ys, marker=marker, linestyle=style, capsize=3,
                        yerr=[[y - p[which][1] for y, p in zip(ys, points)], [p[which][2] - y for y, p in zip(ys, points)]],
                        label=f"{'steady state' if which == 'steady' else 'whole runs'}, servers "
                              f"{SERVER_LIFETIMES[servers]}")
    ax.axhline(1.0, color="grey", linewidth=0.8)
    if length:
        ax.axvline(length, color="tab:green", linestyle="--", linewidth=1, label=f"this run: {length:,g} {study['unit']}")
    ax.set_xscale("log")
    ticks = sorted({p["length"] for p in study["points"]})
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:,g}" for t in ticks])
    ax.xaxis.set_minor_locator(figures.ticker.NullLocator())
    ax.set_xlabel(f"run length ({study['unit']})")
    ax.set_ylabel("ratio A/B, 95% interval")
    legend_outside(ax, "ratio over")
    return [save(figures, figure, out, f"{name}_run_length")]


def _section_name(name):
    """"echo write-up" of "echo_writeup"."""
    return name.replace("_writeup", " write-up").replace("_", " ")


def typical_series(figures, data, out, name):
    """A typical run's rate per interval (its series) for each side of the section's first claim judged on the
    steady-state rate, the steady segment's start and rate marked: what a run's mean hides (a warm-up, a
    slowdown, the buffers filling). Nothing where the rows have no series."""
    series = data.get("series")
    if not series:
        return []
    sides = series["sides"]
    figure, (ax,) = figures.figure(f"{_section_name(name)}: a typical run's rate over time, each side of "
                                   f"\"{series['claim']}\"\n(every {sides[0]['interval_s']:g} s; dashed: "
                                   "the steady state found, from where it began)", data["machine"],
                                   Layout(height=3.6))
    for side, color in zip(sides, ("tab:blue", "tab:orange")):
        values = side["values"]
        times = [side["interval_s"] * (i + 1) for i in range(len(values))]
        ax.plot(times, values, "-", color=color, linewidth=0.8,
                label=f"{side['label']}: {side['words']} (round {side['round'] + 1}, {side['class']})")
        if side.get("steady_rate") is not None:
            ax.hlines(side["steady_rate"], side["steady_start_s"], times[-1], colors=color, linestyles="--")
    figures.count_axis(ax.yaxis)
    ax.set_xlabel("seconds into the run")
    ax.set_ylabel("messages per second in the interval")
    ax.set_ylim(bottom=0)
    legend_outside(ax, "run")
    return [save(figures, figure, out, f"{name}_series")]


# Which charts a section of each kind (its chart data's, chart_data.py) gets.
KINDS = {
    "echo_writeup": _with_steal(echo_writeup, "echo_writeup"),
    "websocket_writeup": _with_steal(websocket_writeup, "websocket_writeup"),
    "fanout_writeup": _with_steal(fanout_writeup, "fanout_writeup"),
    "microbenchmarks": microbenchmarks,
    "echo_bench": lambda f, d, o: detail_bench(f, d, o, "echo_bench", "Echo detail bench (netbench vs Go)"),
    "websocket_bench": lambda f, d, o: detail_bench(f, d, o, "websocket_bench",
                                                    "WebSocket detail bench (netbench vs Go)"),
    "httpfanout_bench": httpfanout_bench,
}


def _draw_section(figures, section, directory, out):
    try:
        drawn = KINDS[section["chart_data"]["kind"]](figures, section["chart_data"], out)
    except Exception as error:  # noqa: BLE001 - one section's charts must not cost the report the others
        progress.log(f"charts of {section['id']} not drawn: {error!r}")
        figures.pyplot.close("all")
        drawn = []
    section["charts"] = [{"path": os.path.relpath(path, directory), "alt": alt} for path, alt in drawn]


def draw(doc, directory, out=None):
    """Draws the charts of every section of `doc` that has chart data into `out` (default: directory/charts),
    names them in its section's `charts` (paths relative to `directory`) and removes SVGs there that no section
    gives any more. A document without chart data (stored before it had any) keeps the charts it names.
    Without matplotlib it draws nothing and says so."""
    sections = [s for s in doc["sections"] if s.get("chart_data")]
    if not sections:
        return
    out = out or os.path.join(directory, CHARTS_FOLDER)
    try:
        figures = Figures()
    except ImportError as error:
        progress.log(f"charts not drawn: {error} (tools/bootstrap.sh installs python3-matplotlib)")
        return
    os.makedirs(out, exist_ok=True)
    with figures.matplotlib.rc_context(RC):
        for section in sections:
            _draw_section(figures, section, directory, out)
    written = {os.path.basename(c["path"]) for s in doc["sections"] for c in s.get("charts", [])}
    for stale in sorted(set(os.listdir(out)) - written):
        if stale.endswith(".svg"):
            os.remove(os.path.join(out, stale))
    progress.log(f"drew {len(written)} chart(s) in {out}")
