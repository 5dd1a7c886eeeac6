"""How a verdict reads in every report: its numbers as text, one format for the Markdown and HTML renderers
and the terminal's summary (bench/reporting/markdown.py, html_report.py, terminal.py).

    verdict_text.number(153002.5)               # "153,002"
    verdict_text.ratio_interval(line)           # "0.746 (0.641 .. 0.868)"
    verdict_text.table_row(line)                # the cells of one row of a verdict table
"""

import math

from bench.analysis import sequential

NOT_TESTABLE = "not testable here"
SAME_CONFIGURATION = "same configuration here"
SETTLED = ("holds", "reversed")  # the interval says why; so it does for "equivalent within ..."

# The verdict second: on a narrow screen it stays in sight beside its claim.
VERDICT_COLUMNS = ["claim", "verdict", "measured here (A vs B, medians)", "ratio A/B (interval, level)", "per round",
                   "rounds", "any difference below", "p (sign flip)", "could detect", "saturated (rounds)",
                   "steal (rounds)", "steady state (runs)", "why"]


def number(x, digits=3):
    """3 significant digits below 1,000, whole with thousands separators above; "-" for None."""
    if x is None:
        return "-"
    x = float(x)
    return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:,.0f}"


def span(values):
    """"lowest .. highest"; "-" when there are none."""
    values = [v for v in values if v is not None]
    return f"{number(min(values))} .. {number(max(values))}" if values else "-"


def ratio_interval(line, with_level=True):
    """The ratio A/B with its interval: a sequential verdict's median ratio and its confidence sequence's
    interval at the round it stopped, with the interval's level, "0.849 (0.723 .. 0.997) at 99%"; "0.94, 6
    rounds: not enough to bound it" where the interval is wider than a factor of 2; the ratio alone for a
    comparison of one configuration with itself (no experiment, no interval); a fixed design's geometric mean
    with its t interval; the ratio of medians where nothing paired. Without `with_level`, no level (a sentence
    that states its family's once)."""
    sequence = line.get("sequence") or {}
    if line.get("verdict") == SAME_CONFIGURATION:
        return number(sequence.get("median_ratio") or sequence.get("geomean_ratio") or line.get("geomean_ratio")
                      or line.get("ratio"))
    if "bounded" in sequence:  # the sign sequence's: the median ratio
        if not _finite(sequence):
            return f"{number(sequence['median_ratio'])}, {unbounded(sequence['rounds'])}"
        level = f" at {sequence['level'] * 100:.3g}%" if sequence.get("level") and with_level else ""
        return ratio_with_interval(sequence["median_ratio"], sequence["interval"]) + level
    if sequence.get("interval"):
        return ratio_with_interval(sequence["geomean_ratio"], sequence["interval"])
    if line.get("ci95"):
        return ratio_with_interval(line["geomean_ratio"], line["ci95"])
    return f"{number(line['ratio'])} (of medians)" if line.get("ratio") is not None else "-"


def _finite(sequence):
    """Whether a sign sequence's interval is one to print: a decided line's always (it excludes 1, or lies within
    the margin), an open line's where it bounds the ratio within a factor of 2."""
    interval = sequence.get("interval")
    if not interval or not interval[0] or interval[1] == math.inf:
        return False
    return sequence.get("bounded") or sequence.get("outcome") != "open"


def unbounded(rounds_):
    """What a line says in place of an interval too wide to read: "6 rounds: not enough to bound it"."""
    return f"{rounds_} round{'s' if rounds_ != 1 else ''}: not enough to bound it"


def ratio_with_interval(ratio, interval):
    """"1.31 (1.28 .. 1.35)"; the ratio alone without an interval, "-" without a ratio."""
    if ratio is None:
        return "-"
    return number(ratio) + (f" ({interval[0]:.3f} .. {interval[1]:.3f})" if interval else "")


def shown(line):
    """The verdict as a reader gets it: "holds", or "holds, by less than 5%" where the direction is decided
    but the ratio lies within the margin."""
    if line.get("small"):
        return f"{line['verdict']}, by less than {(line.get('sequence') or {}).get('margin', 0.05) * 100:g}%"
    return line.get("verdict", "-")


def why(line):
    """What the verdict rests on beyond its interval ("" for a settled one), and, where its ratio moved during
    the run, how (drift.py)."""
    if line.get("verdict") == NOT_TESTABLE:
        return f"{line.get('why', '')}; there: `{line.get('command', '')}`"
    settled = line.get("verdict") in SETTLED or str(line.get("verdict")).startswith("equivalent within")
    said = [line["why"]] if line.get("why") and not settled else []
    if line.get("drift"):
        said.append(_drift_text(line["drift"]))
    return "; ".join(said)


def _drift_text(found):
    """"drifting: 1.05 until round 12, 0.92 from round 13"."""
    ratios = [number(r) for r in found["ratios"]]
    steps = [f"{ratios[0]} until round {found['at_rounds'][0]}"]
    steps += [f"{ratio} from round {at + 1}" for ratio, at in zip(ratios[1:], found["at_rounds"])]
    return "drifting: " + ", ".join(steps)


def rounds(line):
    """The rounds a verdict rests on: a sequential one's until it was decided, else the paired rounds."""
    sequence = line.get("sequence")
    if sequence:
        return str(sequence["rounds"])
    return str(line["rounds_paired"]) if line.get("rounds_paired") is not None else "-"


def _level(alpha):
    """"99%", "99.7%": the confidence of an interval at `alpha`."""
    return f"{(1 - alpha) * 100:.3g}%"


def order(line):
    """"A first in 21 of 40, 5 process pairs": how often the verdict's A ran first in its rounds and over how many
    process pairs they came; a split far from half is marked ("A first in 38 of 40: unbalanced, the order may
    explain the verdict"); "" for a verdict stored before rounds were drawn."""
    counted, pairs = line.get("order"), line.get("process_pairs")
    said = []
    if counted:
        said.append(f"A first in {counted['a_first']} of {counted['rounds']}"
                    + (": unbalanced, the order may explain the verdict" if counted.get("unbalanced") else ""))
    if pairs:
        said.append(f"{pairs} process pair{'s' if pairs != 1 else ''}")
    return ", ".join(said)


def lost(line):
    """"runs lost: A 3 (no steady state 3), B 0; counting each as its side's loss 0.912": each side's runs that
    gave no figure, and where they lost unequally the ratio with those rounds counted; "" where none was lost."""
    counted = line.get("lost")
    if not counted:
        return ""

    def side(name, whys):
        total = sum(whys.values())
        return f"{name} {total}" + (f" ({', '.join(f'{why} {n}' for why, n in sorted(whys.items()))})" if total else "")
    said = f"runs lost: {side('A', counted['a'])}, {side('B', counted['b'])}"
    if line.get("lost_ratio") is not None:
        said += f"; counting each as its side's loss {number(line['lost_ratio'])}"
    return said


def percent(x):
    """"12%", "4.5%", "520%": two significant digits, never in e-notation; "-" for None."""
    if x is None:
        return "-"
    return f"{x:.2g}%" if abs(x) < 99.5 else f"{x:.0f}%"


def bound(line):
    """"12%": any difference is below this, the farther end of the verdict's interval from 1 (a verdict stored
    without it: its t interval's)."""
    reach = line.get("reach_pct")
    if "bounded" in (line.get("sequence") or {}) and not _finite(line["sequence"]):
        return "-"  # its interval is too wide to bound anything; the t interval beside it is no bound either
    if reach is None and line.get("ci95") and min(line["ci95"]) > 0:
        reach = math.expm1(max(abs(math.log(x)) for x in line["ci95"])) * 100
    return percent(reach) if reach is not None else "-"


def steal(line):
    """"2/14 above 5%": the rounds of the verdict whose runs lost more than the level to the hypervisor."""
    counted = line.get("steal") or {}
    aside = line.get("set_aside")
    aside_text = f"; {aside['rounds']} more set aside" if aside else ""
    if not counted.get("rounds_with_noise"):
        return aside_text[2:] or "-"
    return (f"{counted['rounds_with_steal']}/{counted['rounds_with_noise']} above {counted['steal_level'] * 100:g}%"
            + aside_text)


def steady(line):
    """"20/20 (flat 18, warm-up 2), warm-up left out up to 0.6 s of 10 s; over the whole run 1.02": how many of
    the claim's runs reached a steady state, their classes, and the ratio counted over whole runs where the
    steady state's differs from it; "-" where the runs had no series."""
    found = line.get("steady")
    if not found or line.get("figure") != "steady_msgs_per_s":  # a run of the first version kept it on every claim
        return "-"
    classes = ", ".join(f"{name} {count}" for name, count in sorted(found["classes"].items()))
    out = f"{found['reached']}/{found['runs']} ({classes})"
    if found.get("warm_up_s"):
        out += f", up to {found['warm_up_s']:.2g} s left out of {found['seconds']:.3g} s"
    whole, judged = found.get("whole_ratio"), (line.get("sequence") or {}).get("geomean_ratio") or \
        line.get("geomean_ratio")
    if whole is not None and judged and abs(math.log(whole / judged)) > 0.01:
        out += f"; whole runs: {number(whole)}"
    return out


def table_row(line):
    """The cells of a verdict table's row (VERDICT_COLUMNS)."""
    if line.get("verdict") == NOT_TESTABLE:
        return [line["claim"], line["verdict"]] + ["-"] * (len(VERDICT_COLUMNS) - 3) + [why(line)]
    if line.get("test") == "two-sided Mann-Whitney U":  # under two rounds to pair: the pooled test decided
        p = f"{number(line.get('p_value'), 2)} (U test)"
    else:
        p = number(line.get("sign_flip_p"), 2)
    detect = f"> {percent(line['detectable_pct'])}" if line.get("detectable_pct") is not None else "-"
    return [line["claim"], shown(line), f"{number(line.get('median_a'))} vs {number(line.get('median_b'))}",
            ratio_interval(line), span([line.get("per_round_min"), line.get("per_round_max")]), rounds(line),
            bound(line), p, detect, line.get("bottleneck") or "-", steal(line), steady(line),
            "; ".join(text for text in (why(line), order(line), lost(line)) if text)]


def sides(line):
    """("racket", "go"): what A and B are, the fields of the two cells that differ ("procs 2" where the
    name alone says nothing)."""
    a, b = line.get("a") or {}, line.get("b") or {}
    keys = [k for k in dict.fromkeys(list(a) + list(b)) if a.get(k) != b.get(k) and k != "placement"]

    def name(cell):
        return ", ".join(str(cell.get(k)) if k in ("server", "client") else f"{k} {cell.get(k)}" for k in keys)

    return (name(a) or "A", name(b) or "B")


# The figures a verdict compares, as a reader names them.
FIGURES = {"msgs_per_s": "msgs/s", "steady_msgs_per_s": "msgs/s (steady state)", "server_cpu_us_per_msg": "us of server CPU per message",
           "client_cpu_us_per_msg": "us of client CPU per message", "walls_s": "s per fan-out"}


def measured(line):
    """"153,002 vs 186,267 msgs/s": the two medians and their unit."""
    figure = FIGURES.get(line.get("figure"), line.get("figure") or "")
    return f"{number(line.get('median_a'))} vs {number(line.get('median_b'))} {figure}".rstrip()


def error_control(run, rule=True):
    """The error rate a run states for its verdicts together, in words; with `rule`, how the rule reaches it
    (the terminal's summary leaves that to the report)."""
    family = run.get("family")
    if not family:
        return ("Each claim was judged at 5% on its own (a fixed design, or a run stored before error control "
                "across claims): among twenty claims, one wrong verdict is what chance allows.")
    if family.get("families"):
        rate = f"{family['alpha'] * 100:g}%"
        said = [f"at most {rate} chance that " + (f"any of the {group['claims']} verdicts on {group['what']} is "
                                                   "wrong, together" if group["claims"] != 1 else
                                                   f"the verdict on {group['what']} is wrong")
                for group in family["families"].values()]
        stated = "Error control: " + "; and ".join(said) + "."
        if not rule:
            return stated
        if family.get("rule") in sequential.OLDER_FAMILY_RULES:
            return (stated + " Holm's step-down on the claims' anytime p-values decides a direction, equivalence is "
                    "judged at the family's rate over its claims, and each interval is at the level its line was "
                    "judged at.")
        levels = ", ".join(f"{_level(family['alpha'] / group['claims'])} for each of {group['what'].split(' (')[0]}"
                           for group in family["families"].values())
        return (stated + f" Each claim has one interval ({levels}); its direction, its equivalence and an open "
                "claim's bound are all read from it.")
    each = family["alpha"] / max(family["claims"], 1)
    return (f"Error control: at most {family['alpha'] * 100:g}% chance that any of these verdicts is wrong, together "
            f"({family['claims']} claims judged; Bonferroni: each claim's sequence at {each * 100:.2g}%).")


# What a part's verdicts carry when its A/A control found a difference.
BIASED = "the A/A control found a difference: this part's rounds are biased"


def controls(run):
    """"controls: 3 of 3 open or equivalent", and each control that found a difference with its part; "" for a
    run without controls (stored before them, or --no-control)."""
    found = run.get("controls") or []
    if not found:
        return ""
    fair = [c for c in found if not c["found"]]
    said = f"controls (the same program on both sides): {len(fair)} of {len(found)} open or equivalent"
    for control in found:
        if control["found"]:
            said += f"; {control['section']}: {control['verdict']} {control['ratio']}: {BIASED}"
    return said

