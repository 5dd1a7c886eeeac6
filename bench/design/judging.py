"""How any claim is judged, beside the round loop, its order and the error control that set its level: a claim as
data (Claim: cell A, cell B, the figure, which way is better; an A/A control among them), its verdict line from a
run's rows (claim_line: bench/analysis/verdict.py's, by the sequential rule where the run was adaptive), and a
scenario's claims judged together and grouped by question (judge, judged). The write-ups' sections
(bench/scenarios/writeup_sections.py), the detail scenarios, the adaptive round policy's questions
(bench/scenarios/adaptive.py) and a user's own claims (bench/scenarios/claim_files.py) all judge through here;
what their sections' tables share is bench/scenarios/section_parts.py.

    lines = judging.judge(claims, rows, fates)                             # claims: judging.Claim, as data
    line = judging.claim_line(claim, rows, fates, placement="shared", options=sequential.Options())

A claim line compares two cells of a table ("racket under go-spammer" vs "go under go-spammer"); its samples
are that cell's rows, one per round. A cell whose contestant is missing here gives "not measured" with the
reason; a claim about another operating system or more cores gives "not testable here" with the command to
run there. Beside its interval a line says how often its A ran first and over how many process pairs its rounds
came (the rows' slot and block), and the runs each side lost. Nothing in a verdict is written by hand.
"""

import collections
import dataclasses
import math
import statistics

from bench.analysis import drift
from bench.analysis import lost_runs
from bench.analysis import order_balance
from bench.analysis import paired_ratio
from bench.analysis import sequential
from bench.analysis import verdict
from bench.running import placement as cpu_placement
from bench.running import process_configuration


def _cells(rows, **match):
    return [r for r in rows if all(r.get(k) == v for k, v in match.items())]


# A figure a row may lack, and the one it stands for there: a row measured before runs had a series (a stored
# run, a fleet of hosts) has no steady state found, so its whole run's rate is what it measured. A row that has
# the figure as null (a run that reached no steady state) has none, and stays out.
STANDS_FOR = {"steady_msgs_per_s": "msgs_per_s"}


def figure_of(row, figure):
    """The row's `figure`, or where the row lacks it what it stands for (STANDS_FOR)."""
    return row.get(STANDS_FOR[figure]) if figure in STANDS_FOR and figure not in row else row.get(figure)


def _samples(cell_rows, figure):
    """The figure's samples (per-repetition lists are flattened) and its per-round medians."""
    samples, rounds = [], {}
    for row in cell_rows:
        if row.get("status") != "ok":
            continue
        value = figure_of(row, figure)
        values = value if isinstance(value, list) else [value]
        values = [v for v in values if v is not None]
        samples += values
        if values:
            rounds[row["round"]] = statistics.median(values)
    return samples, rounds


def _why_missing(fates, *names):
    reasons = []
    for fate in fates:
        if fate["name"] in names and fate["status"] != "ran":
            reasons.append(f"{fate['name']} {fate['status']}: {fate.get('why', '')}")
    return "; ".join(reasons) or None


@dataclasses.dataclass(frozen=True)
class Claim:
    """A claim as data: cell `a` beats cell `b` on `figure` (cells are dicts of row fields). `names` are the
    contestants whose fate explains a missing cell; `same_if` names configuration values (a probe's, such as
    "gomaxprocs"): when both sides ran every one of them alike, on server and load, the comparison is of one
    configuration with itself and gets no verdict. A claim `per_placement` is judged within each placement the
    rows ran under. `question` groups the lines of one claim in the summary (one line per load, condition and
    placement; default: `text`), `variant` says which load or condition a line is, and `headline` marks the
    write-up's own load: its line under the shared placement answers the question."""
    text: str
    a: dict
    b: dict
    figure: str
    higher_is_better: bool
    names: tuple = ()
    same_if: tuple = ()
    per_placement: bool = True
    question: str = None
    variant: str = None
    headline: bool = False
    control: bool = False


def control_placement(placements):
    """The one placement an A/A control is judged under: the write-ups' own (shared) where the run has it, else
    the first it ran."""
    placements = [p for p in placements if p]
    return cpu_placement.SHARED if cpu_placement.SHARED in placements else (placements[0] if placements else None)


def not_testable(text, why, command):
    """A claim this machine cannot test, as a judged line: why, and the command that tests it elsewhere."""
    return {"claim": text, **verdict.not_testable(why, command)}


def claim_line(claim, rows, fates, placement=None, options=None):
    """One claim's verdict, within one `placement` (its name opens the claim when the rows have several): the
    fixed design's, or with `options` (sequential.Options) the sequential rule's, each with its bound
    (`reach_pct`) and its rounds' steal (`steal`). Rounds the host disturbed are set aside (`set_aside`), and
    every figure beside the verdict (medians, per-round span, steal, steady state) is of the rounds it paired;
    a sequential one's, of those up to its decision. A ratio that moved during the run says so (`drift`)."""
    a, b, figure = claim.a, claim.b, claim.figure
    if options is not None:  # the levels its family judged this claim at
        options = options.for_claim(_claim_text(claim, rows, placement))
    if placement is not None:
        a, b = {**a, "placement": placement}, {**b, "placement": placement}
    cells_a, cells_b = _cells(rows, **a), _cells(rows, **b)
    disturbed = verdict.disturbed_rounds(cells_a + cells_b)
    aside = verdict.set_aside_of(cells_a + cells_b) if disturbed else None
    measured = all(any(r.get("status") == "ok" for r in cells) for cells in (cells_a, cells_b))
    cells_a, cells_b = ([r for r in cells if r.get("round") not in disturbed] for cells in (cells_a, cells_b))
    log_ratios, paired = _log_ratios(cells_a, cells_b, figure)
    used = _rounds_used(log_ratios, paired, claim.higher_is_better, options)
    stopped = options is not None and used is not None and len(used) < len(paired)  # decided before its last round
    lost = _lost(cells_a, cells_b, figure, used if stopped else None, claim.higher_is_better)
    if used is not None:
        cells_a, cells_b = ([r for r in cells if r.get("round") in used] for cells in (cells_a, cells_b))
    samples_a, rounds_a = _samples(cells_a, figure)
    samples_b, rounds_b = _samples(cells_b, figure)
    judged = verdict.judge(samples_a, samples_b, rounds_a, rounds_b, claim.higher_is_better,
                           why_missing=_why_missing(fates, *claim.names))
    if options is not None:
        judged = verdict.sequential_of(judged, rounds_a, rounds_b, claim.higher_is_better, options)
    line = {"claim": _claim_text(claim, rows, placement), "figure": figure, "a": a, "b": b, **judged,
            **_bound_and_steal(judged, cells_a + cells_b), **_order_and_pairs(cells_a, cells_b, rounds_a, rounds_b),
            **lost}
    _add_context(line, claim, (cells_a, cells_b, rounds_a, rounds_b), disturbed, aside)
    if line["verdict"] == verdict.NOT_MEASURED and disturbed and measured:
        # Both sides ran, in rounds all set aside: a finding about the machine, and a claim still open.
        line.update(verdict=verdict.OPEN, why=verdict.set_aside_text(line["set_aside"]))
    found = drift.drift(log_ratios, paired, margin=(options or sequential.DEFAULT).margin)
    if found is not None and line["verdict"] != verdict.NOT_MEASURED:
        line["drift"] = found
    if placement is not None:
        line["placement"] = placement
    return line


def claim_rounds(line, rows):
    """The per-round log ratios a verdict `line` was judged on, from its run's `rows`: its cells' figure over
    the rounds both sides ran and the host did not disturb, in round order (every round, also those after a
    sequential verdict stopped)."""
    cells_a, cells_b = _cells(rows, **line["a"]), _cells(rows, **line["b"])
    disturbed = verdict.disturbed_rounds(cells_a + cells_b)
    cells_a, cells_b = ([r for r in cells if r.get("round") not in disturbed] for cells in (cells_a, cells_b))
    return _log_ratios(cells_a, cells_b, line["figure"])[0]


def _log_ratios(cells_a, cells_b, figure):
    """The per-round log ratios of two cells' figure over the rounds both have, and those rounds, in order."""
    _, rounds_a = _samples(cells_a, figure)
    _, rounds_b = _samples(cells_b, figure)
    paired = [i for i in sorted(set(rounds_a) & set(rounds_b)) if rounds_a[i] and rounds_b[i]]
    return [math.log(rounds_a[i] / rounds_b[i]) for i in paired], paired


def _rounds_used(log_ratios, paired, higher_is_better, options):
    """The rounds a verdict rests on: the paired ones (none when under two pair: the pooled test then takes
    every sample), a sequential verdict's up to its decision."""
    if len(paired) < 2:
        return None
    if options is None:
        return set(paired)
    return set(paired[:max(sequential.first_decision(log_ratios, higher_is_better, options)["rounds"], 2)])


def _lost(cells_a, cells_b, figure, used, higher_is_better):
    """{"lost": {"a": {why: runs}, "b": ...}} over the rounds up to the one that decided a sequential verdict
    (`used`, its rounds; None: every round) (lost_runs.why_lost), with
    "lost_ratio" (the median ratio with each round a side lost counted as its loss) where the sides lost
    unequally; {} where no run was lost."""
    last = max(used) if used else None
    lost, by_round, rounds = {}, {}, set()
    for side, cells in (("a", cells_a), ("b", cells_b)):
        counted, by_round[side] = {}, set()
        for row in cells:
            if last is not None and row.get("round", 0) > last:
                continue
            rounds.add(row.get("round"))
            why = lost_runs.why_lost(row, figure_of(row, figure), figure in STANDS_FOR)
            if why is not None:
                counted[why] = counted.get(why, 0) + 1
                by_round[side].add(row.get("round"))
        lost[side] = counted
    if not lost["a"] and not lost["b"]:
        return {}
    out = {"lost": lost}
    if lost_runs.unequal(lost["a"], lost["b"], len(rounds)):
        _, rounds_a = _samples(cells_a, figure)
        _, rounds_b = _samples(cells_b, figure)
        kept = {i: math.log(rounds_a[i] / rounds_b[i]) for i in set(rounds_a) & set(rounds_b)
                if (last is None or i <= last) and rounds_a[i] and rounds_b[i]}
        ratio = lost_runs.ratio_counting_losses(kept, by_round["a"], by_round["b"], higher_is_better)
        if ratio is not None:
            out["lost_ratio"] = ratio
    return out


def _order_and_pairs(cells_a, cells_b, rounds_a, rounds_b):
    """Over the rounds a verdict paired: how often A ran first (order_balance.balance, from the rows' `slot`)
    and over how many process pairs (the rows' `block`: each block starts the servers again); nothing for rows
    stored before rounds were drawn."""
    paired = set(rounds_a) & set(rounds_b)
    slots_a, slots_b = ({r["round"]: r["slot"] for r in cells if r.get("round") in paired and "slot" in r
                         and r.get("status") == "ok"} for cells in (cells_a, cells_b))
    out = {}
    order = order_balance.balance(slots_a, slots_b)
    if order is not None:
        out["order"] = order
    blocks = {r["block"] for r in cells_a + cells_b if r.get("round") in paired and r.get("block") is not None}
    if blocks:
        out["process_pairs"] = len(blocks)
    return out


def _add_context(line, claim, cells, disturbed, aside=None):
    """What a verdict line says beside its interval: the rounds set aside (with `aside`, verdict.set_aside_of:
    of how many, the share taken and the neighbours that took it), each side's configuration as it ran
    (and whether that makes the claim no experiment), which side was saturated, and the steady state."""
    cells_a, cells_b, rounds_a, rounds_b = cells
    if disturbed:
        line["set_aside"] = {"rounds": len(disturbed), "steal_above": verdict.DISTURBED_STEAL,
                             "other_above": verdict.DISTURBED_OTHER,
                             "why": dict(sorted(collections.Counter(disturbed.values()).items()))}
        if aside is not None:
            line["set_aside"].update(of=aside["of"], share=aside["share"], top=aside["top"])
    configuration = {f"{side}_{role}": config for side, cell in (("a", cells_a), ("b", cells_b))
                     for role, config in _configuration(cell).items()}
    if configuration:
        line["configuration"] = configuration
    same = _same_configuration(configuration, claim.same_if)
    if same and line["verdict"] != verdict.NOT_MEASURED:
        line.update(verdict=verdict.SAME_CONFIGURATION, why=same)
    line["bottleneck"] = _bottleneck_text(cells_a, cells_b)
    steady = (steady_summary(cells_a, cells_b, rounds_a, rounds_b) if claim.figure == "steady_msgs_per_s"
              else None)
    if steady is not None:
        line["steady"] = steady
    if claim.figure in THROUGHPUT and _load_saturated(cells_a) and _load_saturated(cells_b):
        note = "the load was saturated in most rounds of both sides: msgs/s measured the load generator"
        line["why"] = f"{line['why']}; {note}" if line.get("why") else note


# The figures that count a load's messages per second: the whole run's, and its steady state's.
THROUGHPUT = ("msgs_per_s", "steady_msgs_per_s")


def steady_summary(cells_a, cells_b, rounds_a, rounds_b):
    """What a claim's runs said of their steady state (their rows' `steady`): how many runs had a series and
    how many reached a steady state, the classes counted, the longest warm-up left out, the runs' median
    length, and the ratio A/B over the paired rounds counted over the whole run as the write-up counted it
    (msgs_per_s), for the report to set beside the verdict's steady-state ratio. None where no row has a
    series."""
    rows = [r for r in cells_a + cells_b if r.get("status") == "ok" and r.get("steady")]
    if not rows:
        return None
    starts = [r["steady"]["steady_start_s"] for r in rows if r["steady"].get("steady_start_s") is not None]
    # The whole runs' rates of the very rounds the verdict paired.
    whole_a, whole_b = (_samples([r for r in cells if r.get("round") in rounds], "msgs_per_s")[1]
                        for cells, rounds in ((cells_a, rounds_a), (cells_b, rounds_b)))
    logs = [math.log(a / b) for a, b in paired_ratio.paired_rounds(whole_a, whole_b)]
    return {"runs": len(rows), "reached": len(starts),
            "classes": dict(collections.Counter(r["steady"]["class"] for r in rows)),
            "warm_up_s": max(starts) if starts else None,
            "seconds": statistics.median(r["steady"]["seconds"] for r in rows),
            "whole_ratio": math.exp(statistics.mean(logs)) if logs else None}


def _bound_and_steal(judged, cells):
    """The verdict's bound, "any difference is below reach_pct%" (from the sequence's interval, or the fixed
    design's t interval), and the steal of the rounds it used (`cells`: already those rounds)."""
    sequence = judged.get("sequence")
    out = {"design": "sequential" if sequence else "fixed"}
    if sequence:
        out["reach_pct"] = sequence["reach_pct"]
    elif judged.get("ci95"):
        out["reach_pct"] = math.expm1(max(abs(math.log(x)) for x in judged["ci95"])) * 100
    out["steal"] = verdict.steal_rounds(cells)
    return out


def _configuration(cells):
    """{"server": {...}, "client": {...}}: each side's configuration as it ran over its rows (the peak threads,
    the newest of the rest)."""
    found = {}
    for row in cells:
        for role in ("server", "client"):
            if row.get(f"{role}_config"):
                found[role] = process_configuration.merge(found.get(role), row[f"{role}_config"])
    return found


def _same_configuration(configuration, keys):
    """Why the two sides are one configuration, or None: every value of `keys` present on A's server and found
    alike on B's, and on the loads where they report it."""
    if not keys or not configuration:
        return None
    said = []
    for key in keys:
        for role in ("server", "client"):
            a, b = configuration.get(f"a_{role}", {}), configuration.get(f"b_{role}", {})
            if key not in a and key not in b:
                continue
            if a.get(key) is None or a.get(key) != b.get(key):
                return None
            cpus = a.get("cpus")
            said.append(f"{role} {key} {a[key]} on both sides" + (f" ({cpus} CPU{'s' if cpus != 1 else ''} it may "
                                                                  "use)" if cpus else ""))
    if not said:
        return None
    return ("both sides ran the same configuration: " + "; ".join(said)
            + ("; GOMAXPROCS unset follows the CPUs a process may use" if "gomaxprocs" in keys else ""))


def _bottlenecks(cells):
    """The bottleneck of each run of a cell that ran and has one."""
    return [r["bottleneck"] for r in cells if r.get("status") == "ok" and r.get("bottleneck")]


def _load_saturated(cells):
    marks = _bottlenecks(cells)
    return bool(marks) and sum(m in ("load", "both") for m in marks) * 2 > len(marks)


def _bottleneck_text(cells_a, cells_b):
    """"A: load 10/10; B: server 7/10": which side was saturated, in how many rounds of each cell."""
    parts = []
    for side, cells in (("A", cells_a), ("B", cells_b)):
        marks = _bottlenecks(cells)
        if not marks:
            continue
        counts = {m: marks.count(m) for m in ("load", "server", "both", "neither") if m in marks}
        parts.append(f"{side}: " + ", ".join(f"{m} {n}/{len(marks)}" for m, n in counts.items()))
    return "; ".join(parts) or None


def placements_of(rows):
    """The placements the rows ran under, in the order of placement.NAMES; [None] for rows without one."""
    found = [p for p in cpu_placement.NAMES if any(r.get("placement") == p for r in rows)]
    return found or [None]


# The question under which a re-rendered run's verdicts of claims this version no longer makes are kept.
OLDER_CLAIMS = "the claims as an older version of netbench made them (as stored)"


def _entries(claims, rows):
    """(claim, placement) in the order they are judged: each per-placement claim within every placement of the
    rows, then the others; a claim that is already a line (not testable here) comes with placement None. An A/A
    control is judged under one placement (control_placement)."""
    placements = placements_of(rows)
    entries = [(c, p) for p in placements for c in claims if isinstance(c, Claim) and c.per_placement
               and (not c.control or p == control_placement(placements))]
    return entries + [(c, None) for c in claims if not isinstance(c, Claim) or not c.per_placement]


def _line_of(claim, placement, rows, fates, stored, options=None):
    """A claim's verdict: computed from the rows (by the sequential rule with `options`), or, re-rendering
    (`stored`: the verdicts a run kept), the stored line of the same claim: its words, cells, figure and
    placement (a contestant's name can come to mean another program, so the cells alone do not say it is the
    same claim); a claim that is already a line, as it is (or its stored self)."""
    if not isinstance(claim, Claim):
        return dict(claim) if stored is None else next((s for s in stored if s.get("claim") == claim["claim"]), None)
    if stored is None:
        return claim_line(claim, rows, fates, placement=placement, options=options)
    a, b = _cell(claim.a, placement), _cell(claim.b, placement)
    text = _claim_text(claim, rows, placement)
    # A run stored before its rows had a steady state judged the whole run's rate, which stood for it.
    figures = (claim.figure, STANDS_FOR.get(claim.figure))
    return next((s for s in stored if s.get("a") == a and s.get("b") == b and s.get("figure") in figures
                 and s.get("claim") == text), None)


def _claim_text(claim, rows, placement):
    """A claim's words in its verdict line: its placement's name first when the rows have several."""
    several = len(placements_of(rows)) > 1
    return (f"[{placement}] " if placement and several else "") + claim.text


def _cell(cell, placement):
    return {**cell, "placement": placement} if placement is not None else cell


def _judged(claims, rows, fates, stored=None, options=None):
    """(lines, groups, where): each claim's verdict line (_line_of), the lines grouped by question
    ({question, headline, others}: indexes into lines, the headline the write-up's own load under the shared
    placement), and each line's placement and variant. A stored line no claim matches keeps its own group."""
    lines, groups, where = [], {}, []
    for claim, placement in _entries(claims, rows):
        line = _line_of(claim, placement, rows, fates, stored, options)
        if line is None or line in lines:
            continue
        is_claim = isinstance(claim, Claim)
        question = (claim.question or claim.text) if is_claim else claim["claim"]
        group = groups.setdefault(question, {"question": question, "headline": None, "others": [],
                                             **({"control": True} if is_claim and claim.control else {})})
        if is_claim and claim.control:
            line["control"] = True
        headline = not is_claim or (claim.headline and placement in (None, cpu_placement.SHARED))
        if headline and group["headline"] is None:
            group["headline"] = len(lines)
        else:
            group["others"].append(len(lines))
        lines.append(line)
        where.append({"placement": placement, "variant": claim.variant if is_claim else None})
    for line in stored or []:
        if line not in lines:  # a claim this version no longer makes: shown as stored, one group for them all
            group = groups.setdefault(OLDER_CLAIMS, {"question": OLDER_CLAIMS, "headline": len(lines), "others": []})
            if group["headline"] != len(lines):
                group["others"].append(len(lines))
            lines.append(line)
            where.append({"placement": line.get("placement"), "variant": None})
    for group in groups.values():
        if group["headline"] is None:  # the write-up's own placement did not run: the first that did speaks
            group["headline"] = group["others"].pop(0)
    return lines, list(groups.values()), where


def judge(claims, rows, fates):
    """The verdict lines of `claims` (Claim, or lines already judged), computed from `rows`."""
    return _judged(claims, rows, fates)[0]


def sequential_options(settings):
    """The sequential rule's options where the run was adaptive (settings "design": "sequential"), else None:
    with the levels the run's error control judged each claim at (settings "levels": [[claim, alpha, direction
    alpha], ...]), where it kept them."""
    if settings.get("design") != "sequential":
        return None
    return sequential.Options(margin=settings.get("margin", sequential.MARGIN),
                              alpha=settings.get("alpha", sequential.ALPHA),
                              levels=tuple(tuple(level) for level in settings.get("levels", ())))
