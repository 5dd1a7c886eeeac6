"""The A/A control of a part: its reference pairing run against itself, so that a run can see a bias of its own
method beside the verdicts it vouches for.

A verdict assumes that every round is a fair coin about one median: that nothing but the two programs tells the
sides apart. The control tests that assumption on the run's own rounds: one case of the part (the write-up's
reference program under its own load) runs twice in every round the claims run, as two processes of the same
program with the same settings (a server started separately, or a client run again), and its claim, "the second
process beats the first", is judged by the same rule, in a family of its own. Open or equivalent is what a fair
design gives; holds or reversed is a finding about the run (its order, its process pairs, its machine), and it
marks the part's verdicts.

    cases = aa_control.with_twin(cases, control)       # control: a write-up file's [control] table
    claim = aa_control.claim(control)                  # judging.Claim, control=True
    claims += aa_control.claims_where_twin_ran(control, rows)   # the claim, where the rows ran the twin

The run adds the twin (bench/cli/pipeline.py) unless it runs a write-up as written or the command line says
--no-control; the claim follows the rows, so that a run without the twin has no control line.
"""

import dataclasses

from bench.design import judging

# What the twin's row field says after its program's name: the same program, a second process of it.
TWIN_SUFFIX = " (A/A twin)"


def twin_name(name):
    return f"{name}{TWIN_SUFFIX}"


def _matches(fields, cell):
    return all(fields.get(k) == v for k, v in cell.items())


def with_twin(cases, control):
    """`cases` with, after the first that matches the control's `cell`, its twin: the same case, its `twin` field
    (the contestant's: "server" or "client") named as a second process, and, for a server, one started apart
    (scheduler.ServerSpec's `instance`). Unchanged where no case matches (the reference program did not run)
    or `control` is None."""
    if not control:
        return list(cases)
    out, twinned = [], False
    for case in cases:
        out.append(case)
        if not twinned and _matches(case.fields, control["cell"]):
            key = control["twin"]
            fields = {**case.fields, key: twin_name(case.fields[key])}
            server = (dataclasses.replace(case.server, instance=1) if key == "server" and case.server is not None
                      else case.server)
            out.append(dataclasses.replace(case, fields=fields, server=server))
            twinned = True
    return out


def claim(control):
    """The control's claim: the twin (A) against the reference (B) on the control's figure, judged as any claim
    is, under one placement (judging.control_placement)."""
    cell, key = control["cell"], control["twin"]
    return judging.Claim(control["text"], {**cell, key: twin_name(cell[key])}, dict(cell), control["figure"],
                         higher_is_better=control["better"] == "higher", names=tuple(control.get("names", ())),
                         question=control["text"], control=True)


def claims_where_twin_ran(control, rows):
    """[the control's claim] where `rows` (rows, or cases' fields) ran its twin; [] otherwise."""
    if not control:
        return []
    twin = claim(control).a
    return [claim(control)] if any(_matches(row, twin) for row in rows) else []


# The row field that names the contestant of a scenario: a second process of it is the control's twin.
CONTESTANT_FIELD = {"echo": "server", "websocket": "server", "fanout": "client"}


def for_side(scenario, cell, figure, better, name):
    """A control for a user's question: its side `cell` (the B of --versus) against a second process of itself,
    on the question's figure; None for a scenario without a contestant field."""
    key = CONTESTANT_FIELD.get(scenario)
    if key is None or key not in cell:
        return None
    return {"text": f"A/A control: {name} against a second process of itself", "cell": dict(cell), "twin": key,
            "figure": figure, "better": better, "names": [cell[key]]}

