"""Where a verdict's per-round noise comes from: for one claim of each write-up, in each placement, the sd of
the per-round log ratio (log A/B of the claim's two cells, one pair per round) as each factor of the design
changes, so that the suite's defaults are chosen from evidence.

  bazel run //bench/studies:variance -- [--claims=echo,websocket,fanout] [--placements=shared,split]
                                          [--rounds=20] [--lengths=0.25,0.5,1,2,4] [--quick] [--out=DIR]

The claims (their cells are the write-ups' own, bench/registry/writeups/*.toml):
  echo       Racket against Go in msgs/s under the Go spammer (3 clients)
  websocket  Go at GOMAXPROCS=2 against 1, 4 clients (x/net server and client)
  fanout     the JVM against Go fetching 500 URLs, http, origin answering after 50 ms, as written up (the JVM
             keeping its connections, Go fresh)

Each setting runs the claim's two cases for --rounds rounds through the suite's round loop
(bench/design/scheduler.py) and gives one sd. The factors, each varied alone around the base setting (a run
of 1 s, or the length nearest it; servers kept; the listed order):
  length   the run's length: echo's seconds; websocket's messages per client, scaled from one calibration
           round so that a run takes about that long; the fan-out's timed repetitions (reps), likewise
  servers  kept: one server per case for all the setting's rounds; per_run: a server started for every run
           and stopped after it (ServerSpec per_run)
  order    fixed (A then B), shuffled per round (rounds.Shuffled), A-B-B-A (rounds.Alternating)
  noise    how much of the log ratio's variance the two runs' differences in steal and in other load
           (each row's `noise`: bench/running/noise.py) explain: the least-squares fit of the log ratio on
           both, its R^2 and the sd of what is left; per setting, and over every setting of the claim with
           each setting's mean taken out ("all settings")

Output, in --out (default results/data/<machine label>/variance/):
  variance.json  netbench.variance/1: the environment, the options, every row (its claim, placement and
                 setting) and the computed table
  VARIANCE.md    one table per claim and placement: factor, level, rounds, sd of the log ratio, the +-% a
                 20-round verdict could resolve at that sd (80% power, two-sided 5%: paired_ratio), and the
                 steal and other load fit
  charts/        variance_length.svg (sd against run length, per claim and placement) and
                 variance_design.svg (sd by order and by server lifetime)
Both files are written again after every setting, so Ctrl-C (or a failure) keeps every setting that
finished, the document marked partial. Every run is bounded (echo by its seconds, the others by their
clients' timeouts and the runner's deadline). Progress lines go to stderr.

How long (measured on this project's 2-core VM, busy at the time): a 1 s echo run costs about 1.35 s with
its overhead, a websocket run its length and 0.3 s, a fan-out run of the JVM 8-12 s before its repetitions
(its start and 3 warm-up fan-outs; Go's under 1 s), and a repetition about 0.5 s (JVM) and 0.25 s (Go). The
default study (3 claims x 2 placements x 8 settings x 20 rounds x 2 cases; the fan-out's 0.25 and 0.5 s both
come to 1 repetition and run once) is then about 20 minutes of echo, 20 of websocket and 60 of fan-out: about
1 hour 40 minutes, more on a busy machine. --quick (3 rounds, lengths 0.25 and 1 s) checks that it works:
under a minute a claim and placement for echo and websocket, about 3 minutes for the fan-out. Run the study on
a quiet machine: the load of anything else is part of what it measures. The study prints its own estimate
as it starts (estimate_s).

Exit 0 when every setting gave an sd, 1 when one did not (a failed server or client; the rows say why),
2 for usage, 130 after Ctrl-C.
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
from bench.registry import registry
from bench.reporting import result_files
from bench.reporting import run_environment
from bench.running import contest
from bench.running import placement as cpu_placement
from bench.base import progress
from bench.design import rounds as round_policies
from bench.design import scheduler
from bench.design import judging
from bench.scenarios import writeup_definitions as definitions

SCHEMA = "netbench.variance/1"
CLAIMS = ("echo", "websocket", "fanout")
LENGTHS_S = (0.25, 0.5, 1.0, 2.0, 4.0)
QUICK_LENGTHS_S = (0.25, 1.0)
BASE_LENGTH_S = 1.0
ROUNDS = 20
QUICK_ROUNDS = 3
VERDICT_ROUNDS = 20  # the ±% column: what a verdict of this many rounds could resolve at the sd seen
ORDERS = ("fixed", "shuffled", "abba")
SERVERS = ("kept", "per_run")
SHUFFLE_SEED = 20261203


# ------------------------------------------------------------------------------------------------ the claims

def _echo_claim():
    return next(c for c in definitions.ECHO.claims([{"client": "go-spammer"}])
                if c.a.get("server") == "racket" and c.figure == definitions.STEADY_RATE)


def _websocket_claim():
    return next(c for c in definitions.WEBSOCKET.claims([{"clients": 4}])
                if isinstance(c, judging.Claim) and c.a.get("clients") == 4 and c.a.get("procs") == 2
                and c.b.get("procs") == 1)


def _fanout_claim():
    return next(c for c in definitions.FANOUT.claims([]) if c.a.get("scheme") == "http" and c.headline)


@dataclasses.dataclass(frozen=True)
class Study:
    """One claim as the study runs it: its write-up's definition, the claim (cells a and b, figure), and how a
    length in seconds becomes the definition's settings (`load(length_s, calibration)`); `settings` override
    the definition's own."""
    name: str
    definition: object
    claim: object
    settings: dict


STUDIES = {
    "echo": lambda: Study("echo", definitions.ECHO, _echo_claim(), {"clients": 3}),
    "websocket": lambda: Study("websocket", definitions.WEBSOCKET, _websocket_claim(),
                               {"connections": (4,), "procs": (1, 2)}),
    "fanout": lambda: Study("fanout", definitions.FANOUT, _fanout_claim(), {}),  # the write-up's own settings
}

# The load a calibration round runs, and the figure of its rows that says how long the load took.
CALIBRATION = {"websocket": {"messages": 20000}, "fanout": {"reps": 1}}


def load_for(study, length_s, calibration):
    """The definition's settings for a run of about `length_s`: echo's seconds; websocket's messages per client
    from the calibration's seconds per message; the fan-out's reps from its seconds per fan-out (at least 1)."""
    if study == "echo":
        return {"seconds": length_s}
    if study == "websocket":
        return {"messages": max(100, int(round(length_s / calibration["s_per_message"], -2)))}
    return {"reps": max(1, int(round(length_s / calibration["s_per_rep"])))}


def calibrate(study, rows):
    """What one calibration round (both cases at CALIBRATION's load) says of a run's pace: websocket seconds per
    message per client, the fan-out's seconds per timed fan-out, the mean of the two cases. None when a run
    failed."""
    ok = [r for r in rows if r.get("status") == "ok"]
    if len(ok) < 2:
        return None
    if study == "websocket":
        return {"s_per_message": statistics.mean(r["wall_s"] / CALIBRATION["websocket"]["messages"] for r in ok)}
    walls = [statistics.median(r["walls_s"]) for r in ok if r.get("walls_s")]
    return {"s_per_rep": statistics.mean(walls)} if walls else None


# ---------------------------------------------------------------------------------------------- the settings

def base_length(lengths):
    """The length the servers and order factors run at: BASE_LENGTH_S, or the listed length nearest it."""
    return min(lengths, key=lambda length: (abs(math.log(length / BASE_LENGTH_S)), length))


def settings_of(lengths):
    """Every setting to run, [{"length_s", "servers", "order"}], each factor varied alone around the base."""
    base = base_length(lengths)
    chosen = [{"length_s": length, "servers": "kept", "order": "fixed"} for length in lengths]
    chosen += [{"length_s": base, "servers": "per_run", "order": "fixed"}]
    chosen += [{"length_s": base, "servers": "kept", "order": order} for order in ORDERS[1:]]
    return chosen


def factors_of(setting, lengths):
    """[(factor, level)] the setting is a level of: the base setting is one of every factor."""
    base = base_length(lengths)
    out = []
    if setting["servers"] == "kept" and setting["order"] == "fixed":
        out.append(("length", setting["length_s"]))
    if setting["length_s"] == base and setting["order"] == "fixed":
        out.append(("servers", setting["servers"]))
    if setting["length_s"] == base and setting["servers"] == "kept":
        out.append(("order", setting["order"]))
    return out


# What a run costs on this project's 2-core VM beyond its length (the --help's "How long"): seconds.
RUN_OVERHEAD_S = {"echo": 0.35, "websocket": 0.3}
SERVER_START_S = 0.5
JVM_START_S, GO_FANOUT_S, JVM_REP_S, GO_REP_S = 10.0, 0.5, 0.5, 0.25
FANOUT_S_PER_REP = 0.42  # the calibration's pace (the mean of the two clients' fan-outs)


def estimate_s(claims, placements, rounds, lengths):
    """About how long a study takes on this project's 2-core VM, in seconds (calibration rounds aside)."""
    total = 0.0
    base = base_length(lengths)
    for claim in claims:
        seen, per_round = set(), 0.0
        for setting in settings_of(lengths):
            if claim == "fanout":
                reps = load_for("fanout", setting["length_s"], {"s_per_rep": FANOUT_S_PER_REP})["reps"]
                key = (reps, setting["servers"], setting["order"])
                if key in seen and setting["length_s"] != base:
                    continue
                seen.add(key)
                per_round += JVM_START_S + GO_FANOUT_S + reps * (JVM_REP_S + GO_REP_S)
            else:
                per_round += 2 * (setting["length_s"] + RUN_OVERHEAD_S[claim])
            per_round += 2 * SERVER_START_S if setting["servers"] == "per_run" else 0.0
        total += per_round * rounds * len(placements)
    return total


def policy_for(order):
    return {"fixed": round_policies.EveryCase(), "shuffled": round_policies.Shuffled(SHUFFLE_SEED),
            "abba": round_policies.Alternating()}[order]


# ----------------------------------------------------------------------------------------------- the analysis

def _matches(row, cell):
    return all(row.get(k) == v for k, v in cell.items())


def _value(row, figure):
    """The row's figure: per-repetition lists (the fan-out's walls) by their median, as the verdicts take it."""
    value = judging.figure_of(row, figure)
    if isinstance(value, list):
        value = [v for v in value if v is not None]
        return statistics.median(value) if value else None
    return value


def _noise(row, name):
    noise = row.get("noise") or {}
    return noise.get(name)


def paired_points(rows, a, b, figure):
    """One point per round where both cells ran ok with a positive figure: {"round", "log_ratio" (log A/B),
    "d_steal", "d_other" (A's steal and other_cpu_share less B's; None where a row has no reading)}."""
    by_round = {}
    for row in rows:
        if row.get("status") != "ok":
            continue
        side = "a" if _matches(row, a) else "b" if _matches(row, b) else None
        if side is not None:
            by_round.setdefault(row["round"], {})[side] = row
    points = []
    for index in sorted(by_round):
        pair = by_round[index]
        if "a" not in pair or "b" not in pair:
            continue
        value_a, value_b = _value(pair["a"], figure), _value(pair["b"], figure)
        if not value_a or not value_b or value_a <= 0 or value_b <= 0:
            continue
        differences = {}
        for name, key in (("steal", "d_steal"), ("other_cpu_share", "d_other")):
            x, y = _noise(pair["a"], name), _noise(pair["b"], name)
            differences[key] = x - y if x is not None and y is not None else None
        points.append({"round": index, "log_ratio": math.log(value_a / value_b), **differences})
    return points


def sd(values):
    """The sample sd of `values`; None under 2."""
    values = list(values)
    return statistics.stdev(values) if len(values) >= 2 else None


def resolvable_pct(spread, rounds=VERDICT_ROUNDS):
    """The ±% a paired verdict of `rounds` rounds would resolve at this sd of the log ratio (80% power, two-sided
    5%; paired_ratio.detectable_log_difference)."""
    if spread is None:
        return None
    return (math.exp(paired_ratio.detectable_log_difference(spread, rounds)) - 1) * 100


def noise_fit(points, centre_by=None):
    """The least-squares fit of the log ratio on the differences of steal and of other load (with an intercept;
    with `centre_by`, a key of the points, an intercept per group: each group's mean is taken out). Returns
    {"points", "r2", "sd_after", "coefficients": {"d_steal", "d_other"}}: R^2 the share of the log ratio's
    variance (about its mean or means) the two explain, sd_after the sd of what is left, with the fitted
    parameters' degrees of freedom taken off. None when fewer points than parameters + 1 have both readings,
    or the log ratio does not vary."""
    import numpy
    usable = [p for p in points if p.get("d_steal") is not None and p.get("d_other") is not None]
    groups = sorted({repr(p.get(centre_by)) for p in usable}) if centre_by else ["all"]
    columns = len(groups) + 2
    if len(usable) < columns + 1:
        return None
    y = numpy.array([p["log_ratio"] for p in usable])
    x = numpy.zeros((len(usable), columns))
    for i, point in enumerate(usable):
        x[i, groups.index(repr(point.get(centre_by))) if centre_by else 0] = 1.0
        x[i, -2], x[i, -1] = point["d_steal"], point["d_other"]
    means = x[:, :-2] @ numpy.linalg.lstsq(x[:, :-2], y, rcond=None)[0]
    total = float(numpy.sum((y - means) ** 2))
    if total <= 1e-18 * max(1.0, float(numpy.sum(y * y))):  # no variance to explain (rounding aside)
        return None
    fitted, _, rank, _ = numpy.linalg.lstsq(x, y, rcond=None)
    left = float(numpy.sum((y - x @ fitted) ** 2))
    freedom = len(usable) - rank
    return {"points": len(usable), "r2": max(0.0, 1 - left / total),
            "sd_after": math.sqrt(left / freedom) if freedom > 0 else None,
            "coefficients": {"d_steal": float(fitted[-2]), "d_other": float(fitted[-1])}}


def setting_key(setting):
    return (setting["length_s"], setting["servers"], setting["order"])


def table(rows, study_claims, lengths):
    """The computed table: one line per claim, placement, factor and level, in the order the study runs them,
    then a line per claim and placement for the noise fit over all its settings. `study_claims`: {name:
    Claim}."""
    lines = []
    keys = list(dict.fromkeys((r["study"], r["placement"]) for r in rows if "setting" in r))
    for study, placement in keys:
        claim = study_claims[study]
        mine = [r for r in rows if r["study"] == study and r["placement"] == placement and "setting" in r]
        settings = list({setting_key(r["setting"]): r["setting"] for r in mine}.values())
        every = []
        for factor in ("length", "servers", "order"):
            for setting in settings:
                for named, level in factors_of(setting, lengths):
                    if named != factor:
                        continue
                    own = [r for r in mine if setting_key(r["setting"]) == setting_key(setting)]
                    points = paired_points(own, claim.a, claim.b, claim.figure)
                    spread = sd(p["log_ratio"] for p in points)
                    fit = noise_fit(points)
                    lines.append({"study": study, "placement": placement, "factor": factor, "level": level,
                                  "setting": setting, "load": own[0].get("load") if own else None,
                                  "rounds": len(points), "sd": spread, "resolvable_pct": resolvable_pct(spread),
                                  "mean_log_ratio": statistics.mean(p["log_ratio"] for p in points)
                                  if points else None, "noise_fit": fit})
        for setting in settings:
            own = [r for r in mine if setting_key(r["setting"]) == setting_key(setting)]
            every += [{**p, "setting": setting_key(setting)}
                      for p in paired_points(own, claim.a, claim.b, claim.figure)]
        fit = noise_fit(every, centre_by="setting")
        means = {}
        for point in every:
            means.setdefault(point["setting"], []).append(point["log_ratio"])
        centred = [p["log_ratio"] - statistics.mean(means[p["setting"]]) for p in every]
        spread = math.sqrt(sum(c * c for c in centred) / (len(centred) - len(means))) \
            if len(centred) > len(means) else None
        lines.append({"study": study, "placement": placement, "factor": "noise", "level": "all settings",
                      "rounds": len(every), "sd": spread, "resolvable_pct": resolvable_pct(spread),
                      "noise_fit": fit})
    return lines


# ---------------------------------------------------------------------------------------------- the rendering

def _number(value, form):
    return "-" if value is None else format(value, form)


def _level(line):
    if line["factor"] == "length":
        load = line.get("load") or {}
        said = ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}" for k, v in load.items())
        return f"{line['level']:g} s" + (f" ({said})" if said else "")
    return str(line["level"])


def markdown(doc):
    """VARIANCE.md: the options, then one table per claim and placement."""
    options = doc["options"]
    out = ["# Where the per-round noise of a verdict comes from", "",
           f"{doc['environment'].get('machine_label', '')}, {doc['environment'].get('timestamp_utc', '')}, "
           f"commit {doc['environment'].get('git_commit', '?')}; {options['rounds']} rounds a setting, lengths "
           f"{', '.join(f'{x:g}' for x in options['lengths'])} s"
           + ("; **partial** (interrupted: the settings that finished)" if doc.get("partial") else "")
           + (f"; took {doc['elapsed_s'] / 60:.1f} min" if doc.get("elapsed_s") is not None else ""), "",
           "sd: of the per-round log ratio A/B. ±%: the difference a paired verdict of "
           f"{VERDICT_ROUNDS} rounds could resolve at that sd (80% power, two-sided 5%). Steal and other load: "
           "R^2 of the fit of the log ratio on the two runs' differences in steal and in other CPU load, and "
           "the sd left after it. Each factor is varied alone around the base setting "
           f"({base_length(options['lengths']):g} s, servers kept, fixed order).", ""]
    for study in doc["claims"]:
        for placement in options["placements"]:
            lines = [line for line in doc["table"] if line["study"] == study and line["placement"] == placement]
            if not lines:
                continue
            claim = doc["claims"][study]
            out += [f"## {study}, {placement}: {claim['text']}", "",
                    f"A = {claim['a']}, B = {claim['b']}, figure {claim['figure']}", "",
                    "| factor | level | rounds | sd of log ratio | ±% at 20 rounds | steal+other R^2 | sd after |",
                    "|---|---|---:|---:|---:|---:|---:|"]
            for line in lines:
                fit = line.get("noise_fit") or {}
                out.append(f"| {line['factor']} | {_level(line)} | {line['rounds']} | {_number(line['sd'], '.3f')} "
                           f"| {_number(line['resolvable_pct'], '.1f')} | {_number(fit.get('r2'), '.2f')} | "
                           f"{_number(fit.get('sd_after'), '.3f')} |")
            out.append("")
    if doc.get("charts"):
        out += ["Charts: " + ", ".join(f"[{os.path.basename(c)}]({c})" for c in doc["charts"]), ""]
    return "\n".join(out)


def draw_charts(doc, out):
    """variance_length.svg and variance_design.svg in out/charts; returns their paths relative to out (none
    without matplotlib or without lines)."""
    from bench.reporting import charts
    try:
        figures = charts.Figures()
    except ImportError as error:
        progress.log(f"variance: no charts ({error})")
        return []
    folder = os.path.join(out, "charts")
    os.makedirs(folder, exist_ok=True)
    made = []
    with figures.matplotlib.rc_context(charts.RC):
        keys = list(dict.fromkeys((line["study"], line["placement"]) for line in doc["table"]))
        lengths = [k for k in keys if any(l["factor"] == "length" and l["sd"] is not None and
                                          (l["study"], l["placement"]) == k for l in doc["table"])]
        if lengths:
            figure, axes = figures.figure("sd of the per-round log ratio against the run's length",
                                          doc["environment"])
            ax = axes[0]
            for study, placement in lengths:
                points = [(l["level"], l["sd"]) for l in doc["table"] if l["study"] == study and
                          l["placement"] == placement and l["factor"] == "length" and l["sd"] is not None]
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=f"{study}, {placement}")
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(figures.ticker.FuncFormatter(lambda v, _: f"{v:g} s"))
            ax.set_xlabel("run length (echo: seconds; websocket: messages, fan-out: reps scaled to it)")
            ax.set_ylabel("sd of log(A/B) per round")
            charts.legend_outside(ax, "claim, placement")
            made.append(charts.save(figures, figure, folder, "variance_length")[0])
        design = [l for l in doc["table"] if l["factor"] in ("order", "servers") and l["sd"] is not None]
        if design:
            figure, axes = figures.figure("sd of the per-round log ratio by order and by server lifetime",
                                          doc["environment"], charts.Layout(panels=2, sharey=True))
            for ax, factor, levels in ((axes[0], "order", ORDERS), (axes[1], "servers", SERVERS)):
                series = list(dict.fromkeys((l["study"], l["placement"]) for l in design))
                width = 0.8 / max(1, len(series))
                for index, (study, placement) in enumerate(series):
                    values = {l["level"]: l["sd"] for l in design if l["factor"] == factor and
                              (l["study"], l["placement"]) == (study, placement)}
                    ax.bar([i + index * width for i in range(len(levels))], [values.get(v, 0) for v in levels],
                           width, label=f"{study}, {placement}")
                ax.set_xticks([i + width * (len(series) - 1) / 2 for i in range(len(levels))])
                ax.set_xticklabels(levels)
                ax.set_title(factor)
            axes[0].set_ylabel("sd of log(A/B) per round")
            charts.legend_outside(axes[1], "claim, placement")
            made.append(charts.save(figures, figure, folder, "variance_design")[0])
    return [os.path.relpath(path, out) for path in made]


def write(doc, out, final=False):
    """variance.json and VARIANCE.md (and, `final`, the charts) in `out`."""
    os.makedirs(out, exist_ok=True)
    if final:
        doc["charts"] = draw_charts(doc, out)
    result_files.write_text(os.path.join(out, "variance.json"), json.dumps(doc, indent=1) + "\n")
    result_files.write_text(os.path.join(out, "VARIANCE.md"), markdown(doc) + "\n")


# ------------------------------------------------------------------------------------------------ the running

def claim_cases(study, runners, settings):
    """[case A, case B]: the claim's two cases of the definition's cases at `settings`."""
    entries = [e for e in registry.load(registry.DEFAULT_PATH)
               if e["scenario"] == study.definition.name and e["name"] in study.claim.names]
    cases, fates = study.definition.cases(entries, runners, {**study.definition.settings, **settings})
    missing = [f"{f['name']}: {f.get('why')}" for f in fates if f["status"] != "ran"]
    chosen = [next((c for c in cases if _matches(c.fields, cell)), None) for cell in (study.claim.a, study.claim.b)]
    if None in chosen:
        raise RuntimeError(f"{study.name}: the claim's cases cannot run here: {'; '.join(missing) or 'not made'}")
    return chosen


@dataclasses.dataclass(frozen=True)
class Placed:
    """One claim's study in one placement, with the runner that places its programs there."""
    study: object
    placement: str
    runner: object


def run_setting(placed, setting, load, rounds, rows):
    """Runs the claim's two cases for `rounds` rounds at `setting`; appends the rows (tagged with the study,
    the setting and its load) to `rows`. Returns the scheduler's Outcome."""
    study, placement, runner = placed.study, placed.placement, placed.runner
    cases = claim_cases(study, {placement: runner}, {**study.settings, **load})
    if setting["servers"] == "per_run":
        cases = [dataclasses.replace(c, server=dataclasses.replace(c.server, per_run=True)) for c in cases]
    tag = {"study": study.name, "setting": setting, "load": load}
    length = "calibration" if setting["length_s"] is None else f"{setting['length_s']:g}s"
    name = f"{study.name} [{placement}] {length} {setting['servers']} {setting['order']}"

    def keep(row):
        row.update(tag)
        row.pop("histograms", None)
        rows.append(row)

    return scheduler.run(cases, {placement: runner}, scheduler.Plan(rounds=rounds, policy=policy_for(
        setting["order"]), name=name, on_row=keep))


def runners_for(placements):
    """{name: Runner} of the placements this machine can give (split needs 2 CPUs: left out on one)."""
    made = {name: contest.Runner(pin=name == "split") for name in placements}
    for name, runner in list(made.items()):
        if name == "split" and not runner.pin:
            progress.log("variance: split needs two CPUs; left out")
            del made[name]
    return made


def study_claim(study, placement, runner, options, doc, out):
    """Every setting of one claim in one placement; False when interrupted."""
    calibration = None
    if study.name in CALIBRATION:
        progress.log(f"variance: {study.name} [{placement}]: one calibration round at {CALIBRATION[study.name]}")
        calibration_rows = []
        outcome = run_setting(Placed(study, placement, runner),
                              {"length_s": None, "servers": "kept", "order": "fixed"},
                              CALIBRATION[study.name], 1, calibration_rows)
        for row in calibration_rows:
            row["calibration"] = True
            row.pop("setting")
        doc["rows"] += calibration_rows
        if outcome.interrupted:
            return False
        calibration = calibrate(study.name, calibration_rows)
        if calibration is None:
            progress.log(f"variance: {study.name} [{placement}]: the calibration round failed; claim left out")
            doc["failed"].append(f"{study.name} [{placement}]: calibration failed")
            return True
        doc["calibration"][f"{study.name} {placement}"] = calibration
    seen = set()
    base = base_length(options["lengths"])
    for setting in settings_of(options["lengths"]):
        load = load_for(study.name, setting["length_s"], calibration)
        key = (json.dumps(load, sort_keys=True), setting["servers"], setting["order"])
        if key in seen and setting["length_s"] != base:  # the base runs whatever: the other factors need it
            progress.log(f"variance: {study.name} [{placement}] {setting['length_s']:g} s: the same load as a "
                         f"shorter length ({load}); not run again")
            continue
        seen.add(key)
        started = time.monotonic()
        try:
            outcome = run_setting(Placed(study, placement, runner), setting, load, options["rounds"],
                                  doc["rows"])
        except RuntimeError as error:
            progress.log(f"variance: {error}")
            doc["failed"].append(str(error))
            return True
        doc["table"] = table(doc["rows"], {n: STUDIES[n]().claim for n in doc["claims"]}, options["lengths"])
        write(doc, out)
        progress.log(f"variance: {study.name} [{placement}] {setting} {load}: {time.monotonic() - started:.0f} s")
        if outcome.interrupted:
            return False
    return True


def each_claim(claims, runners, run_one):
    """run_one(study, placement, runner) for every claim under every runner, in order, until one returns False
    (interrupted) or Ctrl-C; every runner's servers stopped after. Whether all of them finished."""
    try:
        for name in claims:
            study = STUDIES[name]()
            for placement, runner in runners.items():
                if not run_one(study, placement, runner):
                    return False
        return True
    except KeyboardInterrupt:
        return False
    finally:
        for runner in runners.values():
            runner.stop_all()


def claim_summary(claim):
    return {"text": claim.text, "a": claim.a, "b": claim.b, "figure": claim.figure,
            "higher_is_better": claim.higher_is_better}


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="bazel run //bench/studies:variance --", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", default=",".join(CLAIMS), help="comma-separated: echo, websocket, fanout")
    parser.add_argument("--placements", default=",".join(cpu_placement.NAMES), help="comma-separated: shared, split (default: both)")
    parser.add_argument("--rounds", type=int, default=None, help=f"rounds per setting (default {ROUNDS}; "
                        f"--quick: {QUICK_ROUNDS})")
    parser.add_argument("--lengths", default=None, help="run lengths in seconds (default "
                        f"{','.join(f'{x:g}' for x in LENGTHS_S)}; --quick: "
                        f"{','.join(f'{x:g}' for x in QUICK_LENGTHS_S)})")
    parser.add_argument("--quick", action="store_true", help="tiny: a check that it works, not a measurement")
    parser.add_argument("--out", default=None, help="default: results/data/<machine label>/variance/")
    args = parser.parse_args(argv)
    args.claims = [w.strip() for w in args.claims.split(",") if w.strip()]
    unknown = [c for c in args.claims if c not in CLAIMS]
    if unknown or not args.claims:
        parser.error(f"--claims: {', '.join(unknown) or '(none)'}: expected some of {', '.join(CLAIMS)}")
    try:
        args.placements = cpu_placement.parse(args.placements)
    except ValueError as error:
        parser.error(str(error))
    args.rounds = args.rounds if args.rounds is not None else QUICK_ROUNDS if args.quick else ROUNDS
    if args.rounds < 2:
        parser.error("--rounds: at least 2 (an sd needs two rounds)")
    try:
        args.lengths = ([float(w) for w in args.lengths.split(",") if w.strip()] if args.lengths else
                        list(QUICK_LENGTHS_S if args.quick else LENGTHS_S))
    except ValueError:
        parser.error(f"--lengths: numbers of seconds, comma-separated, not {args.lengths!r}")
    if not args.lengths or any(x <= 0 for x in args.lengths):
        parser.error("--lengths: positive seconds")
    args.lengths = sorted(set(args.lengths))
    args.out = args.out or result_files.machine_folder(os.environ, "variance")
    return args


def main(argv):
    args = parse_args(argv)
    started = time.monotonic()
    env = run_environment.environment()
    env["machine_label"] = run_environment.machine_label()
    options = {"claims": args.claims, "placements": args.placements, "rounds": args.rounds, "lengths": args.lengths,
               "quick": args.quick}
    doc = {"schema": SCHEMA, "environment": env, "options": options,
           "claims": {name: claim_summary(STUDIES[name]().claim) for name in args.claims},
           "calibration": {}, "failed": [], "rows": [], "table": []}
    progress.log(f"variance: claims {', '.join(args.claims)}; placements {', '.join(args.placements)}; "
                 f"{args.rounds} rounds; lengths {', '.join(f'{x:g}' for x in args.lengths)} s; out {args.out}")
    runners = runners_for(args.placements)
    progress.log(f"variance: about {estimate_s(args.claims, list(runners), args.rounds, args.lengths) / 60:.0f} "
                 "min on a 2-core VM (--help: how long)")
    finished = each_claim(args.claims, runners,
                          lambda study, placement, runner: study_claim(study, placement, runner, options, doc, args.out))
    if not finished:
        doc["partial"] = True
    doc["elapsed_s"] = time.monotonic() - started
    doc["table"] = table(doc["rows"], {n: STUDIES[n]().claim for n in doc["claims"]}, options["lengths"])
    write(doc, args.out, final=True)
    print(markdown(doc))
    progress.log(f"variance: wrote {args.out}/variance.json, VARIANCE.md and charts in {doc['elapsed_s']:.0f} s"
                 + ("; interrupted: the settings that finished are kept" if not finished else ""))
    if not finished:
        return 130
    empty = [l for l in doc["table"] if l["factor"] != "noise" and l["sd"] is None]
    return 1 if doc["failed"] or empty else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
