"""netbench's standard comparison: `bazel run //:bench` (or `/usr/bin/python3 -m bench` from the checkout).

Settles the three public write-ups netbench exists for. Every system compared is an entry of the contestant
registry (bench/registry/contestants.json): the write-ups' own programs (Racket, Go, Clojure on the JVM, curl,
nginx) and netbench's. The main job runs each write-up's load over every contestant, interleaved in rounds,
then the microbenchmarks, and writes a folder of its own, results/data/<machine>-<start time>/: the
run's document (report.json), rendered as REPORT.md and report.html, which open with one computed verdict per
claim, beside JSON with every sample; the same summary ends the terminal's output.

    bazel run //:bench                                    # micro, echo, websocket, fanout (about 26 min)
    bazel run //:bench -- --quick                         # smoke check: tiny loads, one round (3 min)
    bazel run //:bench -- --only=echo                     # one write-up
    bazel run //:bench -- --only=racket,go,go-spammer     # chosen contestants (and their scenario)
    bazel run //:bench -- --skip=jvm --placement=shared   # leave one out; servers and loads share the CPUs
    bazel run //:bench -- --contestants=my.json           # your own registry (README: add your contestant)
    bazel run //:bench -- --only=echo-models              # the detail benches: netbench's models against Go's
    bazel run //:bench -- --rerender=linux-x86_64-2cpu    # a stored run's report again from its report.json
    bazel run //:bench -- --compare=linux-x86_64-2cpu --compare=linux-x86_64-2cpu-xeon   # runs side by side
    bazel run //:bench -- --server-host=bench@10.0.0.11 --client-hosts=10.0.0.12,10.0.0.13 --compare-loopback
                                                          # echo and websocket over a network
                                                          # (docs/remote-hosts.md)
"""

import argparse
import dataclasses
import os
import sys
import time

from bench.analysis import histogram_merge
from bench.cli import compare
from bench.cli import plan as run_plan
from bench.analysis import sequential
from bench.registry import registry
from bench.reporting import document
from bench.reporting import history_report
from bench.reporting import markdown
from bench.reporting import remote_report
from bench.reporting import report
from bench.reporting import result_files
from bench.reporting import result_schema
from bench.reporting import run_environment
from bench.reporting import terminal
from bench.running import budget as budget_across_parts
from bench.running import checkout
from bench.running import contest
from bench.running import progress
from bench.running import remote_placement
from bench.running import rounds as round_policies
from bench.running import scheduler
from bench.running import ssh_host
from bench.scenarios import adaptive
from bench.scenarios import catalogue
from bench.scenarios import kernel_costs
from bench.scenarios import run_lengths
from bench.scenarios import scenarios
from bench.scenarios import writeup_definitions
from bench.scenarios import writeups

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

    def wants_more(self):
        """Adaptive and stopped by its budget with claims open: more of the budget would be spent on it."""
        return self.policy is not None and self.policy.wants_more()

    def next_round_s(self):
        """The expected length of its next round, where it wants more (its open claims' cases)."""
        return self.policy.next_round_s(self.cases)

    def cheapest_s(self):
        """The fewest seconds that would decide one of its open claims at the spread seen (rounds.UntilDecided)."""
        return self.policy.cheapest_s(self.cases)

    def adaptive(self):
        return self.settings.get("design") == "sequential"

    def round_s(self):
        return self.definition.round_s(self.settings, self.cases, self.runners)


def prepare_part(definition, plan, placement=None):
    """A scenario's Part over the plan's contestants: adaptive (settings "design": "sequential") where it has
    claims and the command line fixed no rounds for it."""
    runners = _runners(plan, placement, definition)
    settings = _settings(definition, plan, placement, runners)
    if plan.adaptive(definition):
        settings.update(design="sequential", margin=plan.margin)
    cases, fates = definition.cases(list(plan.contestants), runners, settings)
    return Part(definition, runners, settings, cases, fates)


def _plan(part, budget, whole):
    """The round loop's plan of a part: its fixed rounds, or the adaptive policy within `budget` (a
    rounds.Budget: the part's share of the `whole` run's); a part run before resumes its policy."""
    definition, settings = part.definition, part.settings
    if not part.adaptive():
        # The write-ups' long runs alternate A-B, B-A: a drift over a round's minutes favours neither side.
        policy = round_policies.Alternating() if settings.get("as_written") else round_policies.EveryCase()
        return scheduler.Plan(rounds=settings["samples"], policy=policy, name=definition.name)
    settings["budget_s"] = round(settings.get("budget_s", 0) + budget.seconds, 1)
    if part.policy is None:
        options = writeups.sequential_options(settings)
        questions = adaptive.questions(definition, part.cases, part.runners, part.fates, options)
        part.policy = round_policies.UntilDecided(questions, list(part.runners), budget, whole=whole,
                                                  name=definition.name)
    else:
        part.policy.resume(budget)
    return scheduler.Plan(rounds=None, policy=part.policy, name=definition.name)


def run_part(part, plan, context, budget=None, whole=None):
    """Runs one scenario (a write-up or a detail scenario: its Part) through the round loop, adaptive parts
    within `budget` (of the `whole` run's); writes <document>.json. Run again, an adaptive part goes on from
    its last round with its claims still open, and its document is written again with every round.
    Interrupted (Ctrl-C), it writes every row that finished, the document marked `partial`, and raises
    KeyboardInterrupt."""
    definition, runners, settings, fates = part.definition, part.runners, part.settings, part.fates
    env, placement = context.env, context.placement
    outcome = part.outcome = scheduler.run(part.cases, runners, _plan(part, budget, whole), resume=part.outcome)
    if part.adaptive():
        settings["samples"] = max((r["round"] + 1 for r in outcome.rows), default=0)
        if part.policy.out_of_reach:
            settings["out_of_reach"] = dict(part.policy.out_of_reach)
    scenarios.note_failures(fates, outcome.failed_servers)
    rows = outcome.rows
    section = definition.section(_on_the_link(rows), fates, settings)
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
    if outcome.interrupted:
        raise KeyboardInterrupt(f"{definition.name} interrupted after {len(rows)} run(s)")
    return 0 if all(r.get("status") == "ok" for r in rows) else 1


def _write_part(directory, definition, document_):
    errors = result_files.write_document(os.path.join(directory, f"{definition.document}.json"), document_)
    progress.log(f"wrote {directory}/{definition.document}.json")
    if errors:
        raise result_schema.SchemaError(f"{definition.document}.json", errors)
    for line in document_["verdicts"]:
        progress.log(f"  verdict: {line['claim']}: {line['verdict']}")


def _on_the_link(rows):
    """The rows the verdicts are computed from: with --compare-loopback, the remote link's."""
    return scheduler.on_the_judged_link(rows)


# What --help's usage line says: the suite is run as `bazel run //:bench -- FLAGS`, whatever file holds it.
PROG = "bazel run //:bench --"


def _flag(group, name, **kwargs):
    """Adds the flag `name`, spelled with dashes as --help shows it, and its spelling with underscores as a
    hidden alias (older instructions and scripts wrote --echo_seconds); both set the same attribute."""
    group.add_argument(name, **kwargs)
    alias = "--" + name[2:].replace("-", "_")
    if alias != name:
        group.add_argument(alias, **{**kwargs, "help": argparse.SUPPRESS, "default": argparse.SUPPRESS})


def command_line():
    """The suite's argparse parser: one spelling per flag (dashes), the underscore spelling kept as an alias."""
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    _flag(parser, "--budget", default=None, metavar="TIME",
          help="time for the whole run, e.g. 30m, 1800s, 1h (default 30m: the main job with both placements). "
               "Each write-up spends its share round by round on the claims still open, and stops a claim "
               "when the sequential rule decides it (holds, reversed, or equivalent within --margin); what the "
               "write-ups leave then goes to the ones with claims still open; a claim open when the budget "
               "is spent says the bound it reached")
    _flag(parser, "--rounds", type=int, default=None, metavar="N",
          help="the fixed design instead: N interleaved rounds of every case (the fan-out: --fanout-samples), "
               "each claim judged once by its paired t interval")
    _flag(parser, "--margin", default=None, metavar="PERCENT",
          help="a difference within +-PERCENT is declared equivalent by the sequential rule (default 5)")
    _flag(parser, "--samples", type=int, default=None, metavar="N",
          help="the older spelling of --rounds (given with it, the two must agree)")
    _flag(parser, "--quick", action="store_true", help="tiny loads, one round: a smoke check, not a measurement")
    _flag(parser, "--only", default="", metavar="WORDS",
          help="comma-separated parts (" + ",".join(run_plan.PARTS) + ") and/or contestant, system or scenario "
               "names of the registry (default: " + ",".join(run_plan.DEFAULT_PARTS) + ")")
    _flag(parser, "--skip", default="", metavar="WORDS", help="comma-separated parts or contestants to leave out")
    _flag(parser, "--contestants", default=run_plan.DEFAULT_REGISTRY, metavar="FILE",
          help="the contestant registry (default: bench/registry/contestants.json)")
    _flag(parser, "--placement", default=None, metavar="shared,split",
          help="where server and load run on this machine's CPUs, either or both (default both): "
               "shared = every CPU for both, as the write-ups ran them (the headline verdicts); "
               "split = disjoint halves, each side's efficiency with a core of its own")
    _flag(parser, "--pin", action=argparse.BooleanOptionalAction, default=None,
          help="the older spelling: --pin is --placement=split, --no-pin --placement=shared (given "
               "with --placement, the two must agree)")
    _flag(parser, "--echo-seconds", type=float, default=None, metavar="SECONDS",
          help=f"length of one echo run (default {writeup_definitions.ECHO.settings['seconds']:g}: "
               "bench/studies/dimensioning_study.py says why; the write-up ran 180)")
    _flag(parser, "--websocket-messages", type=int, default=None, metavar="N",
          help=f"messages per websocket client (default {writeup_definitions.WEBSOCKET.settings['messages']:,}; "
               "the write-up sent 100,000)")
    _flag(parser, "--fanout-samples", type=int, default=None, metavar="N",
          help="fixed rounds of the fan-out write-up (default 3 with --rounds; given alone, the fan-out runs "
               "these fixed rounds and the other write-ups adaptively)")
    _flag(parser, "--fanout-reps", type=int, default=None, metavar="N",
          help=f"timed fan-outs per client run (default {writeup_definitions.FANOUT.settings['reps']})")
    _flag(parser, "--as-written", action="store_true",
          help="each write-up exactly as it ran: its own systems and load only, its run length (echo 180 s, "
               "websocket 100,000 messages per client, the fan-out criterium's 60 samples after 10 s of "
               "warm-up), server and load sharing the CPUs; 3 fixed rounds, A-B then B-A (--rounds to change), "
               "in a run folder of its own")
    _flag(parser, "--list", action="store_true", help="list the registry's contestants and exit")
    _flag(parser, "--compare", action="append", default=None, metavar="RUN_FOLDER",
          help="compare stored runs side by side, running nothing (name two or more: --compare=A --compare=B): "
               "COMPARE.md, compare.html, compare.json and charts in results/data/compare/A_vs_B, or --out")
    _flag(parser, "--out", default=None, metavar="DIR", help="where --compare writes (default results/data/compare)")
    _flag(parser, "--rerender", nargs="?", const="", default=None, metavar="RUN_FOLDER",
          help="render a stored run's report again (REPORT.md, report.html, charts) "
               "from its report.json alone, running nothing: a folder, or a name under results/data (default: "
               "this machine's newest run)")
    _stored_run_flags(parser)
    _remote_flags(parser)
    return parser


def _stored_run_flags(parser):
    _flag(parser, "--history", action="store_true",
          help="every claim across the stored runs (results/data and this machine's), each run's verdict and the "
               "ratio pooled across machines, running nothing: printed, written to HISTORY.md beside the runs, "
               "and the headline's answer written to README.md's first screen")


def _remote_flags(parser):
    """The flags that place the servers and loads on other hosts."""
    remote = parser.add_argument_group(
        "remote hosts, over OpenSSH (echo and websocket write-ups; docs/remote-hosts.md)")
    _flag(remote, "--server-host", metavar="[USER@]HOST",
          help="run the servers there (ssh with BatchMode: a key the host accepts, no prompt)")
    _flag(remote, "--client-hosts", default="", metavar="H1,H2,...",
          help="run each load on every one of these at once, started together, merged into one row")
    _flag(remote, "--server-address", metavar="ADDR",
          help="the address the clients reach the server at (default: the HOST of --server-host)")
    _flag(remote, "--remote-dir", metavar="DIR",
          help="the binaries are installed there on every host (<package>/<target>); "
               "default: copy them to ~/.cache/netbench/bin there, when the host is this OS and CPU")
    _flag(remote, "--ssh-config", metavar="FILE", help="ssh's -F: the configuration for these connections")
    _flag(remote, "--compare-loopback", action="store_true",
          help="also run every case on loopback, in the same rounds, and report them side by side")


def main(argv):
    parser = command_line()
    args = parser.parse_args(argv)
    if args.rerender is not None:  # stored runs, running nothing
        return rerender(args.rerender)
    if args.compare is not None:
        return compare.run(args.compare, args.out)
    if args.history:
        return show_history()
    try:
        return _run(parser, args)
    except KeyboardInterrupt:
        # A part's rounds keep what they measured themselves (run_part); this is Ctrl-C anywhere else.
        progress.log("bench: interrupted (Ctrl-C) outside a part's rounds; nothing more runs, and every part "
                     "that finished is in the run's folder")
        return 130


def _run(parser, args):
    """Checks the flags (parser.error names a wrong one, exit 2), then lists the registry or runs the plan."""
    try:
        flags = run_plan.resolve_flags(args)
    except run_plan.PlanError as error:
        parser.error(str(error))
    try:
        entries = registry.load(args.contestants)
    except registry.RegistryError as error:
        progress.log(f"bench: the contestant registry is not usable; nothing ran:\n{error}")
        return 2
    if args.list:
        for e in entries:
            print(f"{e['scenario']:9} {e['role']:6} {e['name']:22} {e['about']}")
        return 0
    try:
        plan = run_plan.plan_of(flags, entries, os.environ)
    except run_plan.NothingMatches as error:
        progress.log(str(error))
        return 2
    except run_plan.PlanError as error:
        parser.error(str(error))
    progress.log(f"bench: parts {', '.join(plan.parts) or '(none)'}; {len(plan.contestants)} contestant(s) from "
                 f"{plan.registry}")
    try:
        placement = open_placement(plan)
    except ssh_host.RemoteError as error:
        progress.log(f"bench: {error}; nothing ran")
        return 1
    try:
        return _run_parts(plan, placement)
    finally:
        if placement is not None:
            placement.close()


@dataclasses.dataclass
class RunContext:
    """What the parts of one run share beyond the plan: the run's `folder`, its environment (the kernel's prices
    among it), the remote placement (None on this machine) and what each section will say of how it ran that its
    samples do not (where the programs were placed, a quick run), kept in the run's document (a section's
    "run")."""
    folder: str
    env: dict
    placement: object = None
    notes: dict = dataclasses.field(default_factory=dict)


def _prepare_parts(plan, placement, failures):
    """The Parts of the scenarios to run, in the order they run: adaptive ones with the longest rounds first,
    so that what a quickly decided part leaves of the budget passes to the parts whose claims need more
    rounds; then the fixed ones. A part that cannot be prepared is named in `failures`."""
    prepared = []
    for name in [p for p in plan.parts if p in catalogue.BY_PART]:
        try:
            prepared.append(prepare_part(catalogue.BY_PART[name], plan, placement))
        except Exception as error:  # noqa: BLE001 - one failing part must not hide the others
            progress.log(f"{name} failed: {error!r}")
            failures.append(name)
    adaptive_parts = sorted((p for p in prepared if p.adaptive()), key=lambda p: -p.round_s())
    _control_the_family(adaptive_parts)
    return adaptive_parts + [p for p in prepared if not p.adaptive()]


def _control_the_family(adaptive_parts):
    """Every adaptive part's claims judged as one family: each claim's sequence at the family's rate divided by
    the number of claims the run judges (sequential.family_options), kept in each part's settings."""
    claims = sum(len(adaptive.questions(p.definition, p.cases, p.runners, p.fates, sequential.DEFAULT))
                 for p in adaptive_parts)
    for part in adaptive_parts:
        part.settings["family"] = {"claims": claims, "alpha": sequential.FAMILY_ALPHA, "rule": sequential.FAMILY_RULE}
        part.settings["alpha"] = sequential.family_options(claims).alpha


def _run_parts(plan, placement):
    started = time.monotonic()
    whole = round_policies.Budget(max(plan.budget_s - REPORT_S, 0.0)).start()
    folder = result_files.start_run(plan.results_parent, plan.label)
    progress.log(f"bench: this run's folder: {folder}")
    failures = []
    try:
        # The kernel's prices of this run, beside every scenario's rows; the microbenchmarks run the same
        # benchmark in full.
        costs = kernel_costs.measure_kernel_costs() if set(plan.parts) - {catalogue.MICRO.name} else None
        context = RunContext(folder, run_environment.environment(costs), placement)
        prepared = _prepare_parts(plan, placement, failures)
    except KeyboardInterrupt:
        progress.log("bench: interrupted (Ctrl-C) before the first round (measuring the kernel's costs, building "
                     f"and checking the contestants); no round ran. The run's folder: {folder}")
        return 130
    interrupted = []

    def run_one(part, budget):
        name = part.definition.name
        progress.log(f"==== {name}" + (" (again: its claims still open)" if part.outcome else "")
                     + (f" (adaptive: {budget.seconds:.0f} s of the budget's {max(whole.left(), 0):.0f} s "
                        "left)" if budget else ""))
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
        codes = budget_across_parts.spend_budget(prepared, whole, run_one)
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
        print(terminal.render(doc, os.path.join(folder, "REPORT.md")), flush=True)
    return 1 if failures else 0


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


def run_folder(text, environ):
    """The stored run --rerender names: a folder, a name under the runs' parent folder (result_files.parent_from
    `environ`), or (empty) this machine's newest run there."""
    parent = result_files.parent_from(environ)
    if text:
        base = environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd()
        for candidate in (os.path.join(base, text), os.path.join(parent, text)):
            if os.path.isdir(candidate):
                return os.path.normpath(candidate)
        return None
    return result_files.latest_run(parent, result_files.label_from(environ))


def rerender(folder=""):
    """A stored run's report again from its document (report.json) alone, running nothing: its charts,
    REPORT.md and report.html (bench/reporting/report.py)."""
    directory = run_folder(folder, os.environ)
    if directory is None:
        progress.log(f"bench --rerender: no stored run {folder or 'of this machine'} in "
                     f"{result_files.parent_from(os.environ)}")
        return 1
    doc = report.rerender(directory)
    if doc is None:
        progress.log(f"bench --rerender: no {document.FILE} in {directory}")
        return 1
    print(terminal.render(doc, os.path.join(directory, "REPORT.md")), flush=True)
    return 0


# README.md's first screen holds the headline's answer across the stored runs between these lines, written by
# --history (history_report.answer_lines); readme_answer_test checks that it matches the stored runs.
README_BEGIN = "<!-- the answer across the stored runs: written by `bazel run //:bench -- --history` -->"
README_END = "<!-- end of the answer across the stored runs -->"


def readme_with_answer(text, runs):
    """README.md's `text` with the block between README_BEGIN and README_END set to the stored runs' answer."""
    begin, end = text.index(README_BEGIN) + len(README_BEGIN), text.index(README_END)
    return text[:begin] + "\n" + "\n".join(history_report.answer_lines(runs)) + "\n" + text[end:]


def show_history():
    """--history: every claim across the stored runs, printed and written to HISTORY.md beside them; the
    headline's answer across the runs stored in the checkout written to README.md."""
    parent = result_files.parent_from(os.environ)
    runs = history_report.stored_runs(list(dict.fromkeys([checkout.stored_runs(), parent])))
    text = markdown.history_alone(history_report.across(runs), len(runs))
    print(text, flush=True)
    path = os.path.join(parent, "HISTORY.md")
    result_files.write_text(path, text)
    readme = os.path.join(checkout.repo_root(), "README.md")
    with open(readme) as f:
        before = f.read()
    after = readme_with_answer(before, history_report.stored_runs([checkout.stored_runs()]))
    if after != before:
        result_files.write_text(readme, after)
    progress.log(f"bench --history: {len(runs)} stored runs; wrote {path}"
                 + (" and README.md's answer" if after != before else ""))
    return 0


def write_report(context):
    """This run's document from the documents stored in its folder, its charts and renderings, with what each
    section says of how it ran (RunContext.notes)."""
    return report.write_run(context.folder, catalogue.ALL, context.notes)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
