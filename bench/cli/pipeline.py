"""A run of the Plan, top to bottom: its run folder, the kernel's prices, each part (a scenario) prepared (its
runners: this machine's CPU placements or the remote hosts' executors; its settings; its cases and contestants),
run through the one round loop (bench/design/scheduler.py) within its share of the budget
(bench/design/budget.py), stored as its document, and the run's report written from them (bench/reporting/report.py).

    placement = pipeline.open_placement(plan)      # None on this machine; ssh_host.RemoteError naming a host
    code = pipeline.run(plan, placement)           # 0, 1 (a part failed) or 130 (Ctrl-C)
"""

import dataclasses
import math
import os
import time

from bench.analysis import histogram_merge
from bench.analysis import verdict
from bench.analysis import judged_link
from bench.cli import plan as run_plan
from bench.reporting import remote_report
from bench.reporting import report
from bench.reporting import result_files
from bench.reporting import result_schema
from bench.reporting import run_environment
from bench.reporting import terminal
from bench.design import budget as budget_across_parts
from bench.design import error_control
from bench.base import checkout
from bench.running import contest
from bench.running import noise
from bench.base import progress
from bench.running import remote_placement
from bench.design import rounds as round_policies
from bench.design import scheduler
from bench.scenarios import aa_control
from bench.scenarios import adaptive
from bench.scenarios import catalogue
from bench.scenarios import kernel_costs
from bench.scenarios import run_lengths
from bench.scenarios import writeup_cases
from bench.scenarios import your_claims

# Of the budget, the seconds kept for what runs after the last round: the report's charts, REPORT.md and
# report.html (about 2 s for the main job here), so that the whole run ends within --budget.
REPORT_S = 10


def open_placement(plan):
    """The plan's remote hosts, connected, checked and given their binaries; None without them. Raises
    ssh_host.RemoteError naming the host when one cannot be used."""
    hosts = plan.hosts
    if hosts is None:
        return None
    placement = remote_placement.RemotePlacement(
        hosts.server, list(hosts.clients), ssh_config=hosts.ssh_config, remote_dir=hosts.remote_dir,
        server_address=hosts.server_address)
    try:
        placement.open()
        placement.prepare([e for e in plan.contestants if e["scenario"] in run_plan.REMOTE_PARTS])
    except BaseException:
        placement.close()
        raise
    return placement


def _runners(plan, placement, definition):
    """{name: Runner}: the placements of this machine the part runs under, or the remote hosts' runner (and,
    with --compare-loopback, the loopback one beside it: {link: runner})."""
    if placement is None:
        # On a single CPU there is nothing to split: a split runner there is not pinned, and is left out.
        made = {name: contest.Runner(pin=name == "split") for name in definition.placements or plan.placements}
        return {name: runner for name, runner in made.items() if name == "shared" or runner.pin}
    # Programs started over SSH are not pinned, so neither is the loopback case they are compared with.
    compare_loopback = plan.hosts.compare_loopback
    remote = contest.Runner(pin=False, placement=placement, link="remote" if compare_loopback else None)
    if compare_loopback:
        return {"loopback": contest.Runner(pin=False, link="loopback"), "remote": remote}
    return {None: remote}


def _where(runners, placement, compare_loopback):
    """How the run placed its programs, for its section's `run` notes."""
    if placement is not None:
        return (placement.describe() + ("; every case also on loopback on this machine, in the same rounds"
                                        if compare_loopback else "") + "; nothing pinned to CPUs")
    return "; ".join(
        f"{r.placement_name}: servers on CPUs {','.join(map(str, sorted(r.server_cpus)))}, loads on "
        f"{','.join(map(str, sorted(r.client_cpus)))}" if r.pin else
        f"{r.placement_name}: servers and loads free to use every CPU" for r in runners.values())


def _settings(definition, plan, placement, runners):
    settings = definition.settings_for(plan.overrides(definition), quick=plan.quick, as_written=plan.as_written)
    settings["placements"] = [r.placement_name for r in runners.values()]
    settings["order"] = dict(plan.order)
    settings["block_rounds"] = plan.block_rounds
    if plan.as_written:
        settings["as_written"] = True
    study = run_lengths.study_for(definition.name) if definition in catalogue.WRITEUPS else None
    if study is not None:
        settings["run_length_study"] = study
    if placement is not None:
        settings["hosts"] = {"server": placement.server_target, "server_address": placement.server_address,
                             "clients": placement.client_targets, "compare_loopback": plan.hosts.compare_loopback}
    return settings


@dataclasses.dataclass
class Part:
    """One scenario made ready to run: its definition, runners, settings, cases and contestants' fates; once
    run, its scheduler Outcome and, adaptive, its round policy (which a later pass resumes)."""
    definition: object
    runners: dict
    settings: dict
    cases: list
    fates: list
    outcome: object = None
    policy: object = None
    questions: list = dataclasses.field(default_factory=list)
    others_wait: bool = False  # its claims other than the write-ups' own wait for theirs (hold_others)

    def wants_more(self):
        """Adaptive and stopped by its budget with claims open: more of the budget would be spent on it."""
        return self.policy is not None and self.policy.wants_more()

    def next_round_s(self):
        """The expected length of its next round, where it wants more (its open claims' cases)."""
        return self.policy.next_round_s(self.cases)

    def cheapest_s(self):
        """The fewest seconds that would decide one of its open claims at the rounds seen (rounds.UntilDecided)."""
        return self.policy.cheapest_s(self.cases)

    def spend_set_aside(self):
        """Its claims set aside as out of reach get rounds too (rounds.UntilDecided.spend_set_aside)."""
        if self.policy is not None:
            self.policy.spend_set_aside()

    def wants_more_for_summary(self):
        """Whether one of the write-ups' own claims is among its open ones."""
        return self.policy is not None and self.policy.wants_more_for_summary()

    def summary_within_reach(self):
        """Whether one of the write-ups' own claims is open and within reach among its claims."""
        return self.policy is not None and self.policy.summary_within_reach()

    def hold_others(self, held):
        """Its claims other than the write-ups' own wait (`held`) or go (rounds.UntilDecided.hold_others)."""
        self.others_wait = held
        if self.policy is not None:
            self.policy.hold_others(held)

    def tables_s(self):
        """About how long its round of the cases no claim compares takes (0 once it ran): from the policy's
        measured runs once it has some, else from the definition's expected run time."""
        if self.policy is not None and self.policy.durations:
            return self.policy.tables_s(self.cases)
        tables = round_policies.table_cases(self.cases, self.questions)
        return self.definition.round_s(self.settings, tables, self.runners)

    def adaptive(self):
        return self.settings.get("design") == "sequential"

    def round_s(self):
        return self.definition.round_s(self.settings, self.cases, self.runners)


def prepare_part(definition, plan, placement=None):
    """A scenario's Part over the plan's contestants: adaptive (settings "design": "sequential") where it has
    claims and the command line fixed no rounds for it; its A/A control's twin among its cases (aa_control.py)
    unless the plan runs without controls or the write-ups as written."""
    runners = _runners(plan, placement, definition)
    settings = _settings(definition, plan, placement, runners)
    if plan.adaptive(definition):
        settings.update(design="sequential", margin=plan.margin)
    cases, fates = definition.cases(list(plan.contestants), runners, settings)
    if plan.control and not settings.get("as_written"):
        cases = aa_control.with_twin(cases, definition.control)
    return Part(definition, runners, settings, cases, fates)


def _plan(part, budget, whole, control):
    """The round loop's plan of a part: its fixed rounds, or the adaptive policy within `budget` (a
    rounds.Budget: the part's share of the `whole` run's), its claims judged at the levels `control` (the run's
    error_control.ErrorControl) gives them; a part run before resumes its policy."""
    definition, settings = part.definition, part.settings
    if not part.adaptive():
        # The write-ups' long runs alternate A-B, B-A: a drift over a round's minutes favours neither side.
        policy = (round_policies.Alternating() if settings.get("as_written")
                  else round_policies.order_policy(settings.get("order"), definition.name))
        return scheduler.Plan(rounds=settings["samples"], policy=policy, name=definition.name,
                              quiet_share=_quiet_share(settings), block_rounds=settings.get("block_rounds"))
    if math.isfinite(budget.seconds):  # not the tables' round, which the budget kept aside
        settings["budget_s"] = round(settings.get("budget_s", 0) + budget.seconds, 1)
    if part.policy is None:
        part.policy = round_policies.UntilDecided(
            part.questions, list(part.runners), budget, whole=whole, name=definition.name, control=control,
            order=round_policies.order_policy(settings.get("order"), definition.name))
        part.policy.hold_others(part.others_wait)
    else:
        part.policy.resume(budget)
    return scheduler.Plan(rounds=None, policy=part.policy, name=definition.name, quiet_share=_quiet_share(settings),
                          block_rounds=settings.get("block_rounds"))


def _quiet_share(settings):
    return (settings.get("quiet") or {}).get("share")


def run_part(part, plan, context, budget=None, whole=None):
    """Runs one scenario (a write-up or a detail scenario: its Part) through the round loop, adaptive parts
    within `budget` (of the `whole` run's); writes <document>.json. Run again, an adaptive part goes on from
    its last round with its claims still open, and its document is written again with every round.
    Interrupted (Ctrl-C), it writes every row that finished, the document marked `partial`, and raises
    KeyboardInterrupt."""
    definition, runners, settings, fates = part.definition, part.runners, part.settings, part.fates
    env, placement = context.env, context.placement
    outcome = part.outcome = scheduler.run(part.cases, runners, _plan(part, budget, whole, context.control),
                                           resume=part.outcome)
    interrupted = outcome.interrupted
    store_part(part, plan, context)
    if interrupted:
        raise KeyboardInterrupt(f"{definition.name} interrupted after {len(outcome.rows)} run(s)")
    return 0 if all(r.get("status") == "ok" for r in outcome.rows) else 1


def store_part(part, plan, context):
    """Writes a part's document from its rows so far, its verdicts judged at the levels the run's error control
    gives its claims now (the levels kept in its settings, so that a re-rendering judges alike)."""
    definition, runners, settings, fates = part.definition, part.runners, part.settings, part.fates
    env, placement, outcome = context.env, context.placement, part.outcome
    if part.adaptive():
        settings["samples"] = max((r["round"] + 1 for r in outcome.rows), default=0)
        settings["family"] = context.control.statement()
        settings["levels"] = context.control.levels_of(definition.name)
        if part.policy is not None and part.policy.out_of_reach:
            settings["out_of_reach"] = dict(part.policy.out_of_reach)
    writeup_cases.note_failures(fates, outcome.failed_servers)
    rows = outcome.rows
    aside = verdict.set_aside_of(judged_link.on_the_judged_link(rows))
    if aside is not None:  # the run's last screen names it (terminal.py)
        settings["set_aside"] = aside
    section = definition.section(judged_link.on_the_judged_link(rows), fates, settings)
    document_ = {"schema": result_schema.current(result_schema.WRITEUP), "part": definition.name,
                 "environment": env, "settings": settings,
                 "registry": os.path.relpath(os.path.abspath(plan.registry), checkout.repo_root()),
                 "contestants": fates, "verdicts": section["verdicts"], "rows": rows}
    if definition.merge_histograms:
        document_["histograms"] = histogram_merge.merge_case_histograms(rows, definition.merge_histograms)
    if placement is not None and definition.link_keys:
        links = remote_report.link_summary(rows, definition.link_keys)
        if links is not None:
            document_["links"] = links
    if outcome.interrupted:
        document_["partial"] = True
    context.notes[section["id"]] = {"how": _where(runners, placement, bool(plan.hosts and plan.hosts.compare_loopback)),
                                    **({"quick": True} if plan.quick else {})}
    _write_part(context.folder, definition, document_)


def _write_part(directory, definition, document_):
    errors = result_files.write_document(os.path.join(directory, f"{definition.document}.json"), document_)
    progress.log(f"wrote {directory}/{definition.document}.json")
    if errors:
        raise result_schema.SchemaError(f"{definition.document}.json", errors)
    for line in document_["verdicts"]:
        progress.log(f"  verdict: {line['claim']}: {line['verdict']}")


@dataclasses.dataclass
class RunContext:
    """What the parts of one run share beyond the plan: the run's `folder`, its environment (the kernel's prices
    among it), the remote placement (None on this machine), what each section will say of how it ran that its
    samples do not (where the programs were placed, a quick run), kept in the run's document (a section's
    "run"), the error control every part's claims are judged under (error_control.ErrorControl), and the
    `definitions` of the scenarios its documents may be (the catalogue's and a user's own claims')."""
    folder: str
    env: dict
    placement: object = None
    notes: dict = dataclasses.field(default_factory=dict)
    control: object = None
    definitions: tuple = catalogue.ALL


def _prepare_parts(plan, placement, failures, control, quiet=None):
    """The Parts of the scenarios to run, in the order they run: adaptive ones with the longest rounds first,
    so that what a quickly decided part leaves of the budget passes to the parts whose claims need more
    rounds; then the fixed ones. Every adaptive part's claims join the run's error `control`, and every part
    keeps the machine's `quiet` level in its settings. A part that cannot be prepared is named in `failures`."""
    prepared = []
    by_part = plan.definitions()
    for name in [p for p in plan.parts if p in by_part]:
        try:
            prepared.append(prepare_part(by_part[name], plan, placement))
        except Exception as error:  # noqa: BLE001 - one failing part must not hide the others
            progress.log(f"{name} failed: {error!r}")
            failures.append(name)
    adaptive_parts = sorted((p for p in prepared if p.adaptive()), key=lambda p: -p.round_s())
    for part in adaptive_parts:
        part.questions = adaptive.questions(part.definition, part.cases, part.runners, part.fates, control)
    if adaptive_parts:
        sizes = control.sizes()
        progress.log("bench: error control: " + "; ".join(
            f"{n} claim(s) of {control.words.get(name, name)}, at most {control.family_alpha * 100:g}% chance "
            "that any of them is wrong" for name, n in sizes.items()))
    for part in adaptive_parts:
        part.settings["family"] = control.statement()
        part.settings["alpha"] = control.family_alpha / max(len(control.family), 1)
    for part in prepared if quiet is not None else []:  # the machine's quiet level, kept in each part's settings
        part.settings["quiet"] = quiet
    return adaptive_parts + [p for p in prepared if not p.adaptive()]


def _spend(prepared, whole, run_one):
    """The `whole` run's budget spent: on the claims (budget.spend_budget), less the time kept for the cases no
    claim compares, then on those cases, once. Returns spend_budget's codes."""
    tables_s = sum(p.tables_s() for p in prepared if p.adaptive())
    claims_budget = round_policies.Budget(max(whole.seconds - tables_s, 0.0), clock=whole.clock,
                                          started=whole.started)
    if tables_s:
        progress.log(f"bench: about {tables_s:.0f} s of the budget kept for the cases no claim compares, "
                     "which run once after the claims")
    codes = budget_across_parts.spend_budget(prepared, claims_budget, run_one)
    _run_the_tables(prepared, run_one)
    if whole.left() > 0 and any(p.wants_more() for p in prepared):
        # The tables took less than was kept for them: what is left goes to the claims still open.
        progress.log(f"bench: {whole.left():.0f} s left after the tables; the claims still open get them")
        wanting = [p for p in prepared if p.wants_more()]
        again = budget_across_parts.spend_budget(wanting, whole, run_one, first_pass=False)
        codes.update({prepared.index(wanting[i]): code for i, code in again.items()})
    return codes


def _run_the_tables(prepared, run_one):
    """The round of the cases no claim compares, for each adaptive part that has them, after the claims: their
    rows fill the tables, and no claim waited for them."""
    for part in prepared:
        if part.adaptive() and part.policy is not None and part.tables_s() > 0:
            part.policy.tables()
            run_one(part, round_policies.Budget(math.inf))


def _measure_quiet_level():
    """The machine's own level (noise.quiet_level: what other programs take while nothing of ours runs), said,
    and kept in each part's settings: a round is set aside when its neighbours take clearly more
    (verdict.disturbance)."""
    quiet = noise.quiet_level()
    top = quiet["top"]
    named = f" ({top['name']}, pid {top['pid']})" if top else ""
    level, share = verdict.neighbours_level(quiet["share"]), verdict.share_text(quiet["share"])
    if quiet["share"] > verdict.QUIET_CAP:
        progress.log(f"bench: this machine is busy: other programs took {share} of the CPUs over "
                     f"{quiet['seconds']:g} s before the first round{named}; a round in which they take more than "
                     f"{verdict.share_text(level)} is set aside")
    else:
        progress.log(f"bench: the machine's quiet level: other programs took {share} of the CPUs over "
                     f"{quiet['seconds']:g} s{named}; a round in which they take more than "
                     f"{verdict.share_text(level)} is set aside")
    return quiet


def run(plan, placement):
    """Runs the plan's parts (placed by `placement`: open_placement's, or None on this machine) within its budget
    into a run folder of their own, then writes the run's report and prints its summary. Returns the exit code:
    0, 1 when a part failed, CONTROL_FOUND_EXIT when an A/A control found a difference, 130 on Ctrl-C."""
    started = time.monotonic()
    whole = round_policies.Budget(max(plan.budget_s - REPORT_S, 0.0)).start()
    folder = result_files.start_run(plan.results_parent, plan.label)
    progress.log(f"bench: this run's folder: {folder}")
    failures = []
    try:
        # The kernel's prices of this run, beside every scenario's rows; the microbenchmarks run the same
        # benchmark in full.
        costs = kernel_costs.measure_kernel_costs() if set(plan.parts) - {catalogue.MICRO.name} else None
        control = error_control.ErrorControl(margin=plan.margin,
                                             words=error_control.YOUR_QUESTIONS if plan.yours else None)
        context = RunContext(folder, run_environment.environment(costs), placement, control=control,
                             definitions=catalogue.ALL + tuple(plan.yours))
        quiet = _measure_quiet_level() if placement is None and costs is not None else None
        prepared = _prepare_parts(plan, placement, failures, control, quiet)
    except KeyboardInterrupt:
        progress.log("bench: interrupted (Ctrl-C) before the first round (measuring the kernel's costs, building "
                     f"and checking the contestants); no round ran. The run's folder: {folder}")
        return 130
    interrupted = []

    def run_one(part, budget):
        name = part.definition.name
        progress.log(_banner(part, budget, whole))
        try:
            return run_part(part, plan, context, budget, whole)
        except KeyboardInterrupt:
            interrupted.append(part)
            raise
        except result_files.ResultWriteError as error:
            progress.log(f"{name}: its results could not be stored: {error}")
        except Exception as error:  # noqa: BLE001 - one failing part must not hide the others
            progress.log(f"{name} failed: {error!r}")
        part.policy = None  # not run again
        return 1

    try:
        codes = _spend(prepared, whole, run_one)
    except KeyboardInterrupt:
        if not interrupted:
            raise  # between parts: main's line
        # The part wrote what finished, marked partial; the report links it, and nothing more runs.
        part = interrupted[0]
        return _interrupted(context, part.definition.name, f"{part.definition.document}.json")
    failures += [prepared[index].definition.name for index, code in sorted(codes.items()) if code]
    doc = None
    try:
        doc = write_report(context)
    except OSError as error:  # its charts' files too (a full disk)
        progress.log(f"bench: REPORT.md could not be written: {error}")
        failures.append("REPORT.md")
    progress.log(f"suite finished in {time.monotonic() - started:.0f} s"
                 + (f"; parts with failed runs: {', '.join(failures)}" if failures else ""))
    if doc is not None:
        _print_summary(doc, plan, folder)
    return _exit_code(doc, failures)


def _exit_code(doc, failures):
    """1 where a part failed; CONTROL_FOUND_EXIT, said, where every part ran but an A/A control found a
    difference; 0 otherwise."""
    if failures:
        return 1
    biased = [c["section"] for c in ((doc or {}).get("run") or {}).get("controls", []) if c["found"]]
    if biased:
        progress.log(f"bench: the A/A control of {', '.join(biased)} found a difference between two processes of "
                     f"the same program: that part's verdicts rest on biased rounds (exit {CONTROL_FOUND_EXIT})")
        return CONTROL_FOUND_EXIT
    return 0


# The exit status of a run whose parts all ran but whose A/A control found a difference (aa_control.py): its
# verdicts were measured, and the run says they may not be trusted.
CONTROL_FOUND_EXIT = 3


def _banner(part, budget, whole):
    """The line that opens a part's turn: the tables' round, or its share of the `whole` run's budget."""
    name = part.definition.name
    if budget is not None and math.isinf(budget.seconds):
        return f"==== {name} (the cases no claim compares, once)"
    return (f"==== {name}" + (" (again: its claims still open)" if part.outcome else "")
            + (f" (adaptive: {budget.seconds:.0f} s of the budget's {max(whole.left(), 0):.0f} s left)"
               if budget else ""))


def _print_summary(doc, plan, folder):
    """The run's closing screen, and with --versus the sentences to paste and the report's folder."""
    print(terminal.render(doc, os.path.join(folder, "REPORT.md")), flush=True)
    if plan.versus:
        for said in versus_sentences(doc):
            print(said, flush=True)
        print(f"report: {folder}", flush=True)


def versus_sentences(doc):
    """--versus's answer, a sentence per placement (the shared one first), then the A/A control's (were the rounds
    fair?), from the run's document."""
    family = doc["run"].get("family")
    lines = [line for section in doc["sections"] if section["id"].startswith(your_claims.PREFIX)
             for line in section["verdicts"]]
    return [your_claims.sentence(line, family) for line in sorted(lines, key=lambda line: bool(line.get("control")))]


def _interrupted(context, what, document):
    """Ctrl-C during `what`, which wrote what finished to `document`, marked partial: the report links it,
    nothing more runs, and the suite exits 130 (128 + SIGINT), as the shell reports an interrupted program."""
    try:
        write_report(context)
    except OSError as error:
        progress.log(f"bench: REPORT.md could not be written: {error}")
    progress.log(f"bench: interrupted during {what}; its finished runs are kept, marked partial, in "
                 f"{context.folder}/{document}; later parts did not run")
    return 130


def write_report(context):
    """This run's document from the documents stored in its folder, its charts and renderings, with what each
    section says of how it ran (RunContext.notes)."""
    return report.write_run(context.folder, context.definitions, context.notes)
