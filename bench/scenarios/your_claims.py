"""A user's own claims (--claims=FILE, --versus=A,B) as parts of the run: one definition per scenario their
questions ask about, whose cases are the write-up's own (writeup_cases.py) over the entries they name, whose
claims are their questions (claim_files.py) and whose section is judged as every write-up's is (judging.py): the
same rounds, budget, sequential verdicts, error control, steady state, history, report and charts.

    questions = claim_files.user_file("my.toml", entries, ["shared", "split"])
    definitions = your_claims.definitions(questions, catalogue.BY_PART)   # parts "your-echo", ...
    print(your_claims.sentence(line, family))   # "asyncio-echo beats go in msgs/s under go-spammer, shared ..."
"""

import collections

from bench.reporting import document
from bench.reporting import verdict_text
from bench.scenarios import section_parts
from bench.scenarios import aa_control
from bench.scenarios import claim_files
from bench.scenarios import definition
from bench.design import judging

PREFIX = document.YOURS_PREFIX


def part_of(scenario):
    return PREFIX + scenario


def definitions(questions, by_part):
    """One definition per scenario of `questions` (claim_files.Question), built on that scenario's write-up
    definition in `by_part`; ClaimFileError where two questions of one scenario ask for different settings of
    its load (one part runs one load's settings)."""
    grouped = collections.OrderedDict()
    for one in questions:
        grouped.setdefault(one.scenario, []).append(one)
    return tuple(_definition(by_part[scenario], scenario, group) for scenario, group in grouped.items())


def _definition(base, scenario, questions):
    settings = {}
    for one in questions:
        for key, value in one.settings.items():
            if key not in base.settings:
                raise claim_files.ClaimFileError(
                    f"settings.{key}: the {scenario} load has no such setting; the choices: "
                    f"{', '.join(base.settings)}")
            if settings.get(key, value) != value:
                raise claim_files.ClaimFileError(
                    f"settings.{key}: the {scenario} questions ask for {settings[key]!r} and {value!r}; the "
                    "questions of one scenario run under one load's settings")
            settings[key] = value
    names = {name for one in questions for name in one.entries}
    control = _control(scenario, questions[0].claim)
    claims = tuple(one.claim for one in questions)

    def claims_of(rows):
        return list(claims) + aa_control.claims_where_twin_ran(control, rows)

    def cases(entries, runners, settings):
        return base.cases([e for e in entries if e["name"] in names], runners, settings)

    def section(rows, fates, settings, stored=None):
        return _section(scenario, tuple(claims_of(rows)), rows, fates, settings, stored)

    return definition.Definition(
        name=part_of(scenario), document=f"your_{scenario}_writeup", settings={**base.settings, **settings},
        quick=dict(base.quick), flags=dict(base.flags), cases=cases, section=section, link_keys=base.link_keys,
        placements=base.placements, claims=claims_of, case_s=base.case_s, control=control)


def _control(scenario, claim):
    """The A/A control of a part of your questions: its first question's side B against a second process of
    itself (aa_control.for_side)."""
    cell = {k: v for k, v in claim.b.items() if k != "placement"}
    name = cell.get(aa_control.CONTESTANT_FIELD.get(scenario), "side B")
    return aa_control.for_side(scenario, cell, claim.figure, "higher" if claim.higher_is_better else "lower", name)


def _section(scenario, claims, rows, fates, settings, stored):
    """The section of a user's questions over one scenario: a table of every cell they compare (medians of the
    figures they ask about) and their verdicts, judged as the write-ups' are."""
    figures = list(dict.fromkeys(c.figure for c in claims))
    keys = [k for k in dict.fromkeys(k for c in claims for k in list(c.a) + list(c.b)) if k != "placement"]
    table = []
    for placement in judging.placements_of(rows):
        where = {"placement": placement} if placement else {}
        for cell in dict.fromkeys(tuple((k, r.get(k)) for k in keys) for r in rows):
            cell_rows = judging._cells(rows, **dict(cell), **where)
            if not cell_rows:
                continue
            ok = sum(1 for r in cell_rows if r.get("status") == "ok")
            table.append([placement or "-"] + [str(v) for _, v in cell]
                         + [section_parts._fmt(section_parts._median_of(cell_rows, f)) for f in figures] + [f"{ok}/{len(cell_rows)}"])
    columns = ["placement"] + keys + [verdict_text.FIGURES.get(f, f) + " (median)" for f in figures] + ["runs ok"]
    measured = (f"The {scenario} scenario's load with its settings ("
                + ", ".join(f"{k} {v}" for k, v in settings.items() if k in _load_settings(scenario))
                + f"), {section_parts.rounds_text(settings)}; the cells your questions compare, in each placement.")
    head = {"id": part_of(scenario), "title": f"Your claims: {scenario}", "claim": "", "measured": measured,
            "options": judging.sequential_options(settings)}
    return section_parts.section_of(head, rows, fates, list(claims), stored,
                              [section_parts._table("Medians over rounds.", columns, table)])


def _load_settings(scenario):
    return claim_files.writeup(scenario).settings


def sentence(line, family=None):
    """A verdict line as one sentence a person can paste: "asyncio-echo beats go in msgs/s under go-spammer,
    shared placement: 1.31 (1.22 .. 1.41) over 24 rounds, 95% together" (its verdict said where it is not
    "holds"). A fixed design's interval is a 95% t interval of its own claim: "..., at 95% on its own"."""
    text = line["claim"]
    if text.startswith("["):  # the placement's name, said at the end instead
        text = text[text.index("]") + 2:]
    placement = line.get("placement") or (line.get("a") or {}).get("placement")
    where = f", {placement} placement" if placement and f", {placement} placement" not in text else ""
    shown = verdict_text.shown(line)
    ratio = verdict_text.ratio_interval(line, with_level=False)
    if ratio == "-" or "not enough to bound it" in ratio:  # nothing paired, or too little: the verdict and why
        aside = line.get("set_aside") or {}
        kinds = ", ".join(f"{kind} {n}" for kind, n in (aside.get("why") or {}).items())
        said = f"{aside['rounds']} rounds set aside as disturbed ({kinds})" if aside.get("rounds") else None
        why = "; ".join(w for w in (line.get("why"), said) if w)
        return f"{text}{where}: {shown}" + (f" ({why})" if why else "")
    said = "" if shown == "holds" else f"{shown}, "
    together = (f", {(1 - family['alpha']) * 100:g}% together" if family else
                ", at 95% on its own" if (line.get("sequence") or {}).get("interval") or line.get("ci95") else "")
    return f"{text}{where}: {said}{ratio} over {verdict_text.rounds(line)} rounds{together}"
