"""A write-up's claims as the questions of the adaptive round policy (bench/design/rounds.py's UntilDecided):
one per claim and runner (placement, or link) it is judged under, each judged after every round by the
sequential rule exactly as its verdict line will be (judging.claim_line), at the levels the run's error control
(bench/design/error_control.py) gives it at that look, so that the run stops a claim at the verdict the report
then shows.

    questions = adaptive.questions(definition, cases, runners, fates, control)
    policy = rounds.UntilDecided(questions, list(runners), rounds.Budget(600), name="echo", control=control)

A question is one of the write-ups' own claims (family sequential.SUMMARY, the summary's lines) where its claim is
the write-up's own load (`headline`) under the placement the write-up ran (shared), or the only placement; an A/A
control's is of the family sequential.CONTROL (aa_control.py).
"""

from bench.analysis import judged_link
from bench.analysis import sequential
from bench.design import error_control
from bench.design import rounds
from bench.design import scheduler
from bench.running import placement as cpu_placement
from bench.design import judging


def questions(definition, cases, runners, fates, control=None):
    """The questions of `definition`'s claims over `cases` (its claims as its cases' fields name them) under
    `runners` ({key: Runner}), each added to `control` (an error_control.ErrorControl; None: a control of their
    own, at the default margin); none for a scenario without claims."""
    if definition.claims is None:
        return []
    control = control if control is not None else error_control.ErrorControl()
    claims = [c for c in definition.claims([case.fields for case in cases]) if isinstance(c, judging.Claim)]
    out = []
    for claim in claims:
        for key in _runner_keys(claim, runners):
            runner = runners[key] if key is not None else None
            name = f"[{runner.placement_name}] {claim.text}" if runner is not None and len(runners) > 1 else claim.text
            placement = runner.placement_name if runner is not None else None
            family = (sequential.CONTROL if claim.control else
                      sequential.SUMMARY if claim.headline and placement in (None, cpu_placement.SHARED)
                      else sequential.OTHER)
            control_key = (definition.name, name)
            control.add(control_key, family)
            out.append(rounds.Question(name, (claim.a, claim.b), key,
                                       _judge(claim, runner, fates, lambda k=control_key: control.options(k)),
                                       family=family, key=control_key))
    return out


def _runner_keys(claim, runners):
    """The runners a claim is a question under: each of them for a claim judged per placement, the one of
    judging.control_placement for an A/A control, and None (every runner's rows) for the others."""
    if not claim.per_placement:
        return [None]
    if claim.control:
        chosen = judging.control_placement([r.placement_name for r in runners.values()])
        return [k for k, r in runners.items() if r.placement_name == chosen][:1]
    return list(runners)


def _judge(claim, runner, fates, options_now):
    """The claim's verdict line from the rows so far: those of `runner` (None: every runner's on the judged
    link), as the section will judge them, at the levels `options_now()` gives at that look."""
    where = scheduler.placement_fields(runner) if runner is not None else None

    def judge(rows):
        options = options_now()
        if where is None:
            mine = judged_link.on_the_judged_link(rows)
            return judging.claim_line(claim, mine, fates, options=options)
        mine = [r for r in rows if all(r.get(k) == v for k, v in where.items())]
        return judging.claim_line(claim, mine, fates, placement=where["placement"], options=options)
    return judge
