"""A write-up's claims as the questions of the adaptive round policy (bench/design/rounds.py's UntilDecided):
one per claim and runner (placement, or link) it is judged under, each judged after every round by the
sequential rule exactly as its verdict line will be (writeups.claim_line), at the levels the run's error control
(bench/design/error_control.py) gives it at that look, so that the run stops a claim at the verdict the report
then shows.

    questions = adaptive.questions(definition, cases, runners, fates, control)
    policy = rounds.UntilDecided(questions, list(runners), rounds.Budget(600), name="echo", control=control)

A question is one of the write-ups' own claims (family sequential.SUMMARY, the summary's lines) where its claim is
the write-up's own load (`headline`) under the placement the write-up ran (shared), or the only placement.
"""

from bench.analysis import judged_link
from bench.analysis import sequential
from bench.design import error_control
from bench.design import rounds
from bench.design import scheduler
from bench.running import placement as cpu_placement
from bench.scenarios import writeups


def questions(definition, cases, runners, fates, control=None):
    """The questions of `definition`'s claims over `cases` (its claims as its cases' fields name them) under
    `runners` ({key: Runner}), each added to `control` (an error_control.ErrorControl; None: a control of their
    own, at the default margin); none for a scenario without claims."""
    if definition.claims is None:
        return []
    control = control if control is not None else error_control.ErrorControl()
    claims = [c for c in definition.claims([case.fields for case in cases]) if isinstance(c, writeups.Claim)]
    out = []
    for claim in claims:
        for key in (list(runners) if claim.per_placement else [None]):
            runner = runners[key] if key is not None else None
            name = f"[{runner.placement_name}] {claim.text}" if runner is not None and len(runners) > 1 else claim.text
            placement = runner.placement_name if runner is not None else None
            family = (sequential.SUMMARY if claim.headline and placement in (None, cpu_placement.SHARED)
                      else sequential.OTHER)
            control_key = (definition.name, name)
            control.add(control_key, family)
            out.append(rounds.Question(name, (claim.a, claim.b), key,
                                       _judge(claim, runner, fates, lambda k=control_key: control.options(k)),
                                       family=family, key=control_key))
    return out


def _judge(claim, runner, fates, options_now):
    """The claim's verdict line from the rows so far: those of `runner` (None: every runner's on the judged
    link), as the section will judge them, at the levels `options_now()` gives at that look."""
    where = scheduler.placement_fields(runner) if runner is not None else None

    def judge(rows):
        options = options_now()
        if where is None:
            mine = judged_link.on_the_judged_link(rows)
            return writeups.claim_line(claim, mine, fates, options=options)
        mine = [r for r in rows if all(r.get(k) == v for k, v in where.items())]
        return writeups.claim_line(claim, mine, fates, placement=where["placement"], options=options)
    return judge
