"""A write-up's claims as the questions of the adaptive round policy (bench/design/rounds.py's UntilDecided):
one per claim and runner (placement, or link) it is judged under, each judged after every round by the
sequential rule exactly as its verdict line will be (judging.claim_line), so that the run stops a claim at
the verdict the report then shows.

    questions = adaptive.questions(definition, cases, runners, fates, sequential.Options(margin=0.05))
    policy = rounds.UntilDecided(questions, list(runners), rounds.Budget(600), name="echo")
"""

from bench.analysis import judged_link
from bench.design import rounds
from bench.design import scheduler
from bench.scenarios import judging


def questions(definition, cases, runners, fates, options):
    """The questions of `definition`'s claims over `cases` (its claims as its cases' fields name them) under
    `runners` ({key: Runner}); none for a scenario without claims."""
    if definition.claims is None:
        return []
    claims = [c for c in definition.claims([case.fields for case in cases]) if isinstance(c, judging.Claim)]
    out = []
    for claim in claims:
        for key in (list(runners) if claim.per_placement else [None]):
            runner = runners[key] if key is not None else None
            name = f"[{runner.placement_name}] {claim.text}" if runner is not None and len(runners) > 1 else claim.text
            out.append(rounds.Question(name, (claim.a, claim.b), key, _judge(claim, runner, fates, options)))
    return out


def _judge(claim, runner, fates, options):
    """The claim's verdict line from the rows so far: those of `runner` (None: every runner's on the judged
    link), as the section will judge them."""
    where = scheduler.placement_fields(runner) if runner is not None else None

    def judge(rows):
        if where is None:
            mine = judged_link.on_the_judged_link(rows)
            return judging.claim_line(claim, mine, fates, options=options)
        mine = [r for r in rows if all(r.get(k) == v for k, v in where.items())]
        return judging.claim_line(claim, mine, fates, placement=where["placement"], options=options)
    return judge
