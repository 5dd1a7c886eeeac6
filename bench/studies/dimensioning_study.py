"""How long a run must be for a write-up's claim to give the answer its own long runs give: the claim's paired
ratio A/B against the run's length, from the main job's length up to the write-up's own, with servers kept for
all the rounds and with a fresh server for every run (Kalibera and Jones, "Rigorous Benchmarking in Reasonable
Time", ISMM 2013: dimension the experiment, then run it).

  bazel run //bench/studies:dimensioning -- [--claims=echo,websocket] [--placements=shared]
                                             [--echo-lengths=1,4,15,60,180] [--websocket-lengths=20000,...]
                                             [--rounds=1:16,4:8,15:4,60:3,180:3] [--fresh-up-to=15]
                                             [--quick] [--out=DIR]

The claims are the write-ups' headlines, as the variance study picks them (variance_study.py): Racket
against Go under the Go spammer (3 clients; echo lengths in seconds, the write-up ran 180) and Go at
GOMAXPROCS=2 against 1 with 4 clients (websocket lengths in messages per client, the write-up sent 100,000).
Every length runs the claim's two cases in interleaved rounds, A-B then B-A (rounds.Alternating), through the
suite's round loop; lengths up to --fresh-up-to run again with a server started for each run. Each setting
gives the ratio two ways: over the whole run as the write-up counted it (msgs_per_s) and over each run's
steady state (steady_msgs_per_s: bench/analysis/steady_state.py), each with its paired 95% interval, and how
many runs reached a steady state, in which class.

The recommendation: the shortest length whose steady-state ratio is equivalent to the longest length's (60 s or
more: the write-up's own length where it ran) within +-5%, by an equivalence test (the 90% interval of the two
ratios' ratio inside [1/1.05, 1.05]; servers kept, as the main job keeps them), the lengths that do not named,
or that none does; and what one minute of runs
buys at that length (the interval's half-width after a minute of rounds, from the sd seen) beside the same at
the write-up's length: precision per minute with the bias, not without it.

Output, in --out (default results/data/<machine label>/dimensioning/): dimensioning.json (netbench.dimensioning/1:
the environment, the options, every row with its series, the table and the recommendation), DIMENSIONING.md,
and charts/dimensioning_ratio.svg (the ratio and its interval against the length, per claim, kept and fresh).
Both files are written again after every setting, so Ctrl-C keeps what finished, the document marked partial.

How long: the default echo study runs 2 x (16 x 1 + 8 x 4 + 4 x 15) s fresh and kept, 2 x (3 x 60 + 3 x 180) s
kept: about 32 minutes; the websocket study about 3. Run it on a quiet machine. Exit 0 when every setting
gave a ratio, 1 when one did not, 2 for usage, 130 after Ctrl-C.
"""

import argparse
import dataclasses
import json
import math
import os
import statistics
import sys
import time

from bench.analysis import paired_ratio
from bench.reporting import result_files
from bench.reporting import run_environment
from bench.running import placement as cpu_placement
from bench.base import progress
from bench.design import rounds as round_policies
from bench.design import scheduler
from bench.studies import variance_study

SCHEMA = "netbench.dimensioning/1"
CLAIMS = ("echo", "websocket")
LENGTHS = {"echo": (1, 4, 15, 60, 180), "websocket": (20000, 50000, 100000)}
QUICK_LENGTHS = {"echo": (1, 2), "websocket": (2000, 4000)}
UNIT = {"echo": "s", "websocket": "messages"}
WRITEUP_LENGTH = {"echo": 180, "websocket": 100000}  # what the write-ups ran
DEFAULT_ROUNDS = {1: 16, 4: 8, 15: 4, 60: 3, 180: 3, 20000: 12, 50000: 10, 100000: 10}
QUICK_ROUNDS = 2
FRESH_UP_TO = {"echo": 15, "websocket": 100000}
FIGURES = ("msgs_per_s", "steady_msgs_per_s")
# The warmed servers' unmeasured load before their first measured run: echo seconds, websocket messages.
WARM_UP = {"echo": 60, "websocket": 100000}


def load_of(claim, length):
    return {"seconds": float(length)} if claim == "echo" else {"messages": int(length)}


SERVERS = ("kept", "per_run", "warmed")


def settings_of(claim, lengths, fresh_up_to, servers=SERVERS[:2]):
    """[{"length", "servers"}]: every length with servers kept, those up to `fresh_up_to` with a server per run,
    and with servers warmed (kept, each first under the load for --warm-up, unmeasured), of the `servers`
    asked for."""
    out = [{"length": length, "servers": "kept"} for length in lengths if "kept" in servers]
    out += [{"length": length, "servers": kind} for kind in ("per_run", "warmed") if kind in servers
            for length in lengths if length <= fresh_up_to]
    return out


# ----------------------------------------------------------------------------------------------- the analysis

def ratio_of(rows, claim, figure):
    """The paired ratio A/B of `figure` over the rows' rounds: {"rounds", "geomean_ratio", "ci95", "sd"}; None
    under two paired rounds."""
    points = variance_study.paired_points(rows, claim.a, claim.b, figure)
    if len(points) < 2:
        return None
    logs = [p["log_ratio"] for p in points]
    stats = paired_ratio.analyse({i: math.exp(x) for i, x in enumerate(logs)}, {i: 1.0 for i in range(len(logs))})
    return {"rounds": len(logs), "geomean_ratio": stats["geomean_ratio"], "ci95": stats["ci95"],
            "sd": statistics.stdev(logs)}


def classes_of(rows):
    """{class: runs} of the rows' steady states, and how many rows had a series."""
    counted = {}
    for row in rows:
        found = row.get("steady")
        if row.get("status") == "ok" and found:
            counted[found["class"]] = counted.get(found["class"], 0) + 1
    return counted


def half_width_per_minute(line, seconds_per_round):
    """The 95% interval's half-width, in log terms, after one minute of rounds at this setting's sd: what a
    minute of the budget buys (at least two rounds)."""
    if not line or line.get("sd") is None or not seconds_per_round:
        return None
    rounds = max(2, int(60 // seconds_per_round))
    return paired_ratio.t_quantile(0.975, rounds - 1) * line["sd"] / math.sqrt(rounds)


def table(rows, claims):
    """One line per claim, placement and setting: both figures' ratios, the classes, seconds per round."""
    lines = []
    for key in dict.fromkeys((r["study"], r["placement"], r["setting"]["length"], r["setting"]["servers"])
                             for r in rows if "setting" in r):
        study, placement, length, servers = key
        mine = [r for r in rows if (r["study"], r["placement"], r["setting"]["length"], r["setting"]["servers"])
                == key]
        per_round = statistics.mean(r.get("wall_s") or 0 for r in mine) * 2
        line = {"study": study, "placement": placement, "length": length, "servers": servers,
                "classes": classes_of(mine), "seconds_per_round": per_round}
        for figure in FIGURES:
            line[figure] = ratio_of(mine, claims[study], figure)
            if line[figure]:
                line[figure]["half_width_per_minute"] = half_width_per_minute(line[figure], per_round)
        lines.append(line)
    return lines


# Two lengths give the same answer when their ratios differ by less than this, both ways (as the verdicts'
# equivalence margin: the write-ups' differences are 25% and more).
EQUIVALENCE_MARGIN = 0.05


def difference(line, reference):
    """The ratio of two lengths' ratios, line / reference, with its 90% interval (the two one-sided tests at
    5% each of an equivalence test: Schuirmann 1987), from each length's paired t interval, their standard
    errors added in squares, Welch-Satterthwaite's degrees of freedom: {"ratio", "interval"}."""
    def standard_error(found):
        return math.log(found["ci95"][1] / found["ci95"][0]) / (2 * paired_ratio.t_quantile(0.975, found["rounds"] - 1))
    se_line, se_reference = standard_error(line), standard_error(reference)
    se = math.sqrt(se_line ** 2 + se_reference ** 2)
    freedom = se ** 4 / (se_line ** 4 / (line["rounds"] - 1) + se_reference ** 4 / (reference["rounds"] - 1)) \
        if se > 0 else max(line["rounds"], reference["rounds"]) - 1
    d = math.log(line["geomean_ratio"] / reference["geomean_ratio"])
    half = paired_ratio.t_quantile(0.95, freedom) * se
    return {"ratio": math.exp(d), "interval": [math.exp(d - half), math.exp(d + half)]}


def equivalent(line, reference, margin=EQUIVALENCE_MARGIN):
    """Whether a length's ratio is the reference length's within +-`margin`: the 90% interval of their ratio
    (difference()) lies inside [1 / (1 + margin), 1 + margin]. Two wide intervals that overlap do not pass:
    the test asks the data to show the lengths agree, not fail to show they differ."""
    low, high = difference(line, reference)["interval"]
    return 1 / (1 + margin) <= low and high <= 1 + margin


def recommend(lines, study, placement, figure="steady_msgs_per_s"):
    """The shortest length (servers kept, as the main job keeps them) whose ratio is equivalent within +-5% to
    the longest length's (equivalent()), the longest being the write-up's or the nearest to it of 60 s and
    more: {"length" (None where no shorter length passes: then the longest is what a claim needs),
    "reference_length", "reference", "chosen", "figure", "difference" (the chosen's against the reference),
    "outside" (the lengths that do not pass, with their difference)}; None without a line."""
    kept = sorted((l for l in lines if l["study"] == study and l["placement"] == placement and
                   l["servers"] == "kept" and l.get(figure)), key=lambda l: l["length"])
    if not kept:
        return None
    reference = kept[-1]
    shorter = kept[:-1]
    chosen = next((l for l in shorter if equivalent(l[figure], reference[figure])), None)
    return {"length": chosen["length"] if chosen else None, "reference_length": reference["length"],
            "reference": reference[figure], "chosen": chosen[figure] if chosen else None, "figure": figure,
            "difference": difference(chosen[figure], reference[figure]) if chosen else None,
            "outside": [{"length": l["length"], "ratio": l[figure]["geomean_ratio"],
                         "difference": difference(l[figure], reference[figure])}
                        for l in shorter if not equivalent(l[figure], reference[figure])]}


# ---------------------------------------------------------------------------------------------- the rendering

def _ratio_text(found):
    if not found:
        return "-"
    low, high = found["ci95"]
    return f"{found['geomean_ratio']:.3f} ({low:.3f} .. {high:.3f})"


def markdown(doc):
    """DIMENSIONING.md: per claim and placement, the table, then the recommendation."""
    env, options = doc["environment"], doc["options"]
    out = ["# How long a run must be: the claims' ratio against the run's length", "",
           f"{env.get('machine_label', '')}, {env.get('timestamp_utc', '')}, commit {env.get('git_commit', '?')}"
           + ("; **partial** (interrupted: the settings that finished)" if doc.get("partial") else "")
           + (f"; took {doc['elapsed_s'] / 60:.1f} min" if doc.get("elapsed_s") is not None else ""), "",
           "Each length ran the claim's two cases in interleaved rounds (A-B, then B-A). Ratio: the geometric "
           "mean of the per-round ratios A/B with its paired 95% interval, over the whole run as the write-up "
           "counted it and over each run's steady state (warm-up and slowdown phases found by changepoint "
           "analysis, bench/analysis/steady_state.py). A minute buys: the interval's half-width after one "
           "minute of rounds at that length, at the spread seen.", ""]
    for study, claim in doc["claims"].items():
        for placement in options["placements"]:
            lines = [l for l in doc["table"] if l["study"] == study and l["placement"] == placement]
            if not lines:
                continue
            out += [f"## {study}, {placement}: {claim['text']}", "",
                    f"A = {claim['a']}, B = {claim['b']}; the write-up's length: {WRITEUP_LENGTH[study]:,} "
                    f"{UNIT[study]}", "",
                    f"| length ({UNIT[study]}) | servers | rounds | ratio, whole runs | ratio, steady state | "
                    "runs by class | a minute buys (±%) |", "|---:|---|---:|---|---|---|---:|"]
            for line in lines:
                steady = line.get("steady_msgs_per_s") or {}
                buys = steady.get("half_width_per_minute")
                classes = ", ".join(f"{k} {v}" for k, v in sorted(line["classes"].items())) or "no series"
                out.append(f"| {line['length']:,} | {line['servers']} | "
                           f"{(line.get('msgs_per_s') or {}).get('rounds', 0)} | "
                           f"{_ratio_text(line.get('msgs_per_s'))} | {_ratio_text(line.get('steady_msgs_per_s'))} "
                           f"| {classes} | {'-' if buys is None else f'{math.expm1(buys) * 100:.1f}'} |")
            found = (doc.get("recommendation") or {}).get(f"{study} {placement}")
            if found:
                out += ["", _recommendation_text(found, study)]
            out.append("")
    if doc.get("charts"):
        out += ["![The ratio against the run's length](" + doc["charts"][0] + ")", ""]
    return "\n".join(out)


def _recommendation_text(found, study):
    """The recommendation in words: the length chosen and the equivalence test it passed, or that none did."""
    unit = UNIT[study]
    if "difference" not in found:  # a study stored before the equivalence test: its own words
        return (f"**Recommended length: {found['length']:,} {unit}**: the shortest whose steady-state ratio "
                f"({_ratio_text(found['chosen'])}) agrees with the {found['reference_length']:,}-{unit} ratio "
                f"({_ratio_text(found['reference'])}): each inside the other's interval"
                + ("; lengths that do not: " + ", ".join(f"{o['length']:,} {unit} ({o['ratio']:.3f})"
                                                         for o in found["outside"]) if found["outside"] else "") + ".")
    outside = ("; lengths that do not: " + ", ".join(
        f"{o['length']:,} {unit} ({o['difference']['ratio']:.3f}, 90% interval {o['difference']['interval'][0]:.3f} .. "
        f"{o['difference']['interval'][1]:.3f})" for o in found["outside"]) if found["outside"] else "")
    if found["length"] is None:
        return (f"**No shorter length is equivalent** to the {found['reference_length']:,}-{unit} ratio "
                f"({_ratio_text(found['reference'])}) within ±{EQUIVALENCE_MARGIN * 100:g}%: a claim needs runs that "
                f"long{outside}.")
    low, high = found["difference"]["interval"]
    return (f"**Recommended length: {found['length']:,} {unit}**: the shortest whose steady-state ratio "
            f"({_ratio_text(found['chosen'])}) is equivalent to the {found['reference_length']:,}-{unit} ratio "
            f"({_ratio_text(found['reference'])}) within ±{EQUIVALENCE_MARGIN * 100:g}%: their ratio "
            f"{found['difference']['ratio']:.3f}, 90% interval {low:.3f} .. {high:.3f}{outside}.")


def draw_chart(doc, out):
    """charts/dimensioning_ratio.svg: per claim and placement, the steady-state ratio and its interval against
    the length (log axis), kept and fresh servers, 1 marked; [] without matplotlib or lines."""
    from bench.reporting import charts
    try:
        figures = charts.Figures()
    except ImportError as error:
        progress.log(f"dimensioning: no chart ({error})")
        return []
    keys = list(dict.fromkeys((l["study"], l["placement"]) for l in doc["table"]))
    if not keys:
        return []
    folder = os.path.join(out, "charts")
    os.makedirs(folder, exist_ok=True)
    with figures.matplotlib.rc_context(charts.RC):
        figure, axes = figures.figure("The claim's ratio A/B against the run's length",
                                      doc["environment"], charts.Layout(panels=len(keys)))
        for ax, (study, placement) in zip(axes, keys):
            for servers, marker in (("kept", "o"), ("per_run", "s"), ("warmed", "^")):
                for figure_name, style in (("steady_msgs_per_s", "-"), ("msgs_per_s", ":")):
                    points = [l for l in doc["table"] if (l["study"], l["placement"], l["servers"]) ==
                              (study, placement, servers) and l.get(figure_name)]
                    if not points:
                        continue
                    xs = [l["length"] for l in points]
                    ys = [l[figure_name]["geomean_ratio"] for l in points]
                    errors = [[y - l[figure_name]["ci95"][0] for y, l in zip(ys, points)],
                              [l[figure_name]["ci95"][1] - y for y, l in zip(ys, points)]]
                    which = "steady state" if figure_name == "steady_msgs_per_s" else "whole runs"
                    ax.errorbar(xs, ys, yerr=errors, marker=marker, linestyle=style, capsize=3,
                                label=f"{which}, servers {charts.SERVER_LIFETIMES[servers]}")
            ax.axhline(1.0, color="grey", linewidth=0.8)
            ax.set_xscale("log")
            ticks = sorted({l["length"] for l in doc["table"] if (l["study"], l["placement"]) == (study, placement)})
            ax.set_xticks(ticks)
            ax.set_xticklabels([f"{t:,g}" for t in ticks])
            ax.xaxis.set_minor_locator(figures.ticker.NullLocator())
            ax.set_title(f"{study} [{placement}]: {doc['claims'][study]['text']}", fontsize=9)
            ax.set_xlabel(f"run length ({UNIT[study]}; the write-up: {WRITEUP_LENGTH[study]:,})")
            ax.set_ylabel("ratio A/B, 95% interval")
            charts.legend_outside(ax, "")
        path = charts.save(figures, figure, folder, "dimensioning_ratio")[0]
    return [os.path.relpath(path, out)]


def write(doc, out, final=False):
    os.makedirs(out, exist_ok=True)
    if final:
        doc["charts"] = draw_chart(doc, out)
    result_files.write_text(os.path.join(out, "dimensioning.json"), json.dumps(doc, indent=1) + "\n")
    result_files.write_text(os.path.join(out, "DIMENSIONING.md"), markdown(doc) + "\n")


# ------------------------------------------------------------------------------------------------ the running

def run_setting(study, placement, runner, setting, rounds, doc):
    """The claim's two cases for `rounds` A-B, B-A rounds at `setting`; their rows (tagged, without
    histograms) appended to doc["rows"]. Returns the scheduler's Outcome."""
    cases = variance_study.claim_cases(study, {placement: runner},
                                       {**study.settings, **load_of(study.name, setting["length"])})
    if setting["servers"] == "per_run":
        cases = [dataclasses.replace(c, server=dataclasses.replace(c.server, per_run=True)) for c in cases]
    if setting["servers"] == "warmed":
        warm = load_of(study.name, setting["warm_up"])
        cases = [dataclasses.replace(c, warmup={"duration_s": f"{warm['seconds']:g}"} if "seconds" in warm
                                     else warm, warmup_s=float(setting["warm_up"]) if "seconds" in warm else 120)
                 for c in cases]
    if study.name == "echo":  # a run's bound is its length: the runner adds its margin
        cases = [dataclasses.replace(c, bound_s=float(setting["length"])) for c in cases]
    tag = {"study": study.name, "setting": setting}

    def keep(row):
        row.update(tag)
        row.pop("histograms", None)
        doc["rows"].append(row)

    name = f"dimensioning {study.name} [{placement}] {setting['length']:,} {UNIT[study.name]} {setting['servers']}"
    return scheduler.run(cases, {placement: runner}, scheduler.Plan(rounds=rounds, policy=round_policies.Alternating(),
                                                                   name=name, on_row=keep))


def study_claim(study, placement, runner, options, doc, out):
    """Every setting of one claim in one placement; False when interrupted."""
    for setting in settings_of(study.name, options["lengths"][study.name], options["fresh_up_to"][study.name],
                               options["servers"]):
        if setting["servers"] == "warmed":
            setting["warm_up"] = options["warm_up"][study.name]
        rounds = options["rounds"].get(setting["length"], QUICK_ROUNDS if options["quick"] else 4)
        started = time.monotonic()
        try:
            outcome = run_setting(study, placement, runner, setting, rounds, doc)
        except RuntimeError as error:
            progress.log(f"dimensioning: {error}")
            doc["failed"].append(str(error))
            return True
        doc["table"] = table(doc["rows"], {n: variance_study.STUDIES[n]().claim for n in doc["claims"]})
        write(doc, out)
        line = next((l for l in doc["table"] if (l["study"], l["placement"], l["length"], l["servers"]) ==
                     (study.name, placement, setting["length"], setting["servers"])), {})
        progress.log(f"dimensioning: {study.name} [{placement}] {setting}: steady "
                     f"{_ratio_text(line.get('steady_msgs_per_s'))}, whole {_ratio_text(line.get('msgs_per_s'))}; "
                     f"{time.monotonic() - started:.0f} s")
        if outcome.interrupted:
            return False
    return True


def appended(path, new):
    """The stored study at `path` with this run's options, environment and claims added (`parts`: every run's
    options and environment, in order); its rows, tables and recommendation stay and grow."""
    with open(path) as f:
        stored = json.load(f)
    parts = stored.get("parts") or [{"environment": stored["environment"], "options": stored["options"]}]
    stored["parts"] = parts + [{"environment": new["environment"], "options": new["options"]}]
    stored["claims"] = {**stored["claims"], **new["claims"]}
    stored["options"]["placements"] = sorted(set(stored["options"]["placements"]) | set(new["options"]["placements"]))
    stored.pop("partial", None)
    return stored


def parse_rounds(text):
    """{length: rounds} of "1:16,4:8"; ValueError naming the text otherwise."""
    out = {}
    for word in [w for w in (text or "").split(",") if w.strip()]:
        length, _, rounds = word.partition(":")
        try:
            out[float(length) if "." in length else int(length)] = int(rounds)
        except ValueError:
            raise ValueError(f"--rounds: expected LENGTH:ROUNDS pairs such as 1:16,180:3, not {word!r}") from None
        if out[float(length) if "." in length else int(length)] < 2:
            raise ValueError(f"--rounds: {word}: at least 2 rounds (a paired interval needs two)")
    return out


def parse_lengths(text, name):
    try:
        lengths = sorted({int(w) if w.strip().isdigit() else float(w) for w in text.split(",") if w.strip()})
    except ValueError:
        raise ValueError(f"--{name}: numbers, comma-separated, not {text!r}") from None
    if not lengths or any(x <= 0 for x in lengths):
        raise ValueError(f"--{name}: positive lengths")
    return lengths


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="bazel run //bench/studies:dimensioning --", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", default=",".join(CLAIMS), help="comma-separated: echo, websocket")
    parser.add_argument("--placements", default="shared", help="shared, split or both (default shared: the "
                        "headline's placement, as the write-ups ran)")
    parser.add_argument("--echo-lengths", default=None, help="seconds (default 1,4,15,60,180)")
    parser.add_argument("--websocket-lengths", default=None, help="messages per client (default 20000,50000,100000)")
    parser.add_argument("--rounds", default=None, help="LENGTH:ROUNDS pairs (default "
                        + ",".join(f"{k}:{v}" for k, v in DEFAULT_ROUNDS.items()) + ")")
    parser.add_argument("--fresh-up-to", type=float, default=None,
                        help="echo lengths up to this many seconds also run with a server per run (default 15)")
    parser.add_argument("--servers", default="kept,per_run", help="of kept, per_run (a server per run) and warmed "
                        "(kept, each first under the load for --warm-up, unmeasured); default kept,per_run")
    parser.add_argument("--warm-up", type=float, default=None, help="the warmed servers' unmeasured load: echo "
                        f"seconds (default {WARM_UP['echo']}), websocket messages per client (default "
                        f"{WARM_UP['websocket']:,})")
    parser.add_argument("--append", action="store_true", help="add these settings' rows to the stored study in "
                        "--out instead of starting a new one (its environment and earlier rows kept)")
    parser.add_argument("--rerender", action="store_true", help="compute the table, the recommendation, the chart "
                        "and DIMENSIONING.md again from the rows of the study stored in --out, running nothing")
    parser.add_argument("--quick", action="store_true", help="tiny: a check that it works, not a measurement")
    parser.add_argument("--out", default=None, help="default: results/data/<machine label>/dimensioning/")
    args = parser.parse_args(argv)
    args.claims = [w.strip() for w in args.claims.split(",") if w.strip()]
    if not args.claims or any(c not in CLAIMS for c in args.claims):
        parser.error(f"--claims: expected some of {', '.join(CLAIMS)}, not {','.join(args.claims) or '(none)'}")
    try:
        args.placements = cpu_placement.parse(args.placements)
        args.lengths = {
            "echo": parse_lengths(args.echo_lengths, "echo-lengths") if args.echo_lengths else
            list((QUICK_LENGTHS if args.quick else LENGTHS)["echo"]),
            "websocket": parse_lengths(args.websocket_lengths, "websocket-lengths") if args.websocket_lengths else
            list((QUICK_LENGTHS if args.quick else LENGTHS)["websocket"])}
        args.rounds = parse_rounds(args.rounds) if args.rounds else \
            ({} if args.quick else dict(DEFAULT_ROUNDS))
    except ValueError as error:
        parser.error(str(error))
    args.fresh_up_to = {**FRESH_UP_TO, **({"echo": args.fresh_up_to} if args.fresh_up_to is not None else {})}
    args.servers = [w.strip() for w in args.servers.split(",") if w.strip()]
    if not args.servers or any(w not in SERVERS for w in args.servers):
        parser.error(f"--servers: expected some of {', '.join(SERVERS)}, not {','.join(args.servers) or '(none)'}")
    args.warm_up = {**WARM_UP, **({c: args.warm_up for c in CLAIMS} if args.warm_up is not None else {})}
    args.out = args.out or result_files.machine_folder(os.environ, "dimensioning")
    return args


def finish(doc, out):
    """The table and recommendation from the rows, then every file written; returns the Markdown."""
    doc["table"] = table(doc["rows"], {n: variance_study.STUDIES[n]().claim for n in doc["claims"]})
    doc["recommendation"] = {}
    for name in doc["claims"]:
        for placement in doc["options"]["placements"]:
            found = recommend(doc["table"], name, placement)
            if found:
                doc["recommendation"][f"{name} {placement}"] = found
    write(doc, out, final=True)
    return markdown(doc)


def main(argv):
    args = parse_args(argv)
    if args.rerender:
        with open(os.path.join(args.out, "dimensioning.json")) as f:
            print(finish(json.load(f), args.out))
        return 0
    started = time.monotonic()
    env = run_environment.environment()
    env["machine_label"] = run_environment.machine_label()
    options = {"claims": args.claims, "placements": args.placements, "lengths": args.lengths,
               "rounds": args.rounds, "fresh_up_to": args.fresh_up_to, "servers": args.servers,
               "warm_up": args.warm_up, "quick": args.quick}
    doc = {"schema": SCHEMA, "environment": env, "options": options,
           "claims": {n: variance_study.claim_summary(variance_study.STUDIES[n]().claim) for n in args.claims},
           "failed": [], "rows": [], "table": [], "recommendation": {}}
    if args.append:
        doc = appended(os.path.join(args.out, "dimensioning.json"), doc)
    progress.log(f"dimensioning: claims {', '.join(args.claims)}; placements {', '.join(args.placements)}; "
                 f"out {args.out}")
    runners = variance_study.runners_for(args.placements)
    finished = variance_study.each_claim(
        args.claims, runners, lambda study, placement, runner: study_claim(study, placement, runner, options, doc,
                                                                           args.out))
    doc["partial"] = not finished
    doc["elapsed_s"] = doc.get("elapsed_s", 0) * args.append + time.monotonic() - started
    print(finish(doc, args.out))
    progress.log(f"dimensioning: wrote {args.out} in {doc['elapsed_s'] / 60:.1f} min")
    if not finished:
        return 130
    return 1 if doc["failed"] or any(not l.get("msgs_per_s") for l in doc["table"]) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
