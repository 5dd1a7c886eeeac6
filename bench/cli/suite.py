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
    bazel run //:bench -- --contestants=my.json           # your own contestants added to the registry
    bazel run //:bench -- --only=echo-models              # the detail benches: netbench's models against Go's
    bazel run //:bench -- --versus=netbench-epoll,go      # two servers, one question, a sentence to paste
    bazel run //:bench -- --versus="python3 $PWD/my_server.py {port}",go   # your server against Go's
    bazel run //:bench -- --claims=my.toml --contestants=my.json   # your own questions (docs/your-own-claims.md)
    bazel run //:bench -- --rerender=linux-x86_64-2cpu    # a stored run's report again from its report.json
    bazel run //:bench -- --compare=linux-x86_64-2cpu --compare=linux-x86_64-2cpu-xeon   # runs side by side
    bazel run //:bench -- --server-host=bench@10.0.0.11 --client-hosts=10.0.0.12,10.0.0.13 --compare-loopback
                                                          # echo and websocket over a network
                                                          # (docs/remote-hosts.md)
"""

import argparse
import os
import sys

from bench.cli import compare
from bench.cli import pipeline
from bench.cli import plan as run_plan
from bench.cli import versus_sides
from bench.registry import registry
from bench.reporting import document
from bench.reporting import history_report
from bench.reporting import markdown
from bench.reporting import readme_answer
from bench.reporting import report
from bench.reporting import result_files
from bench.reporting import terminal
from bench.base import checkout
from bench.base import progress
from bench.running import ssh_host
from bench.scenarios import question_reference
from bench.scenarios import writeup_definitions

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
          help=f"time for the whole run, e.g. 30m, 1800s, 1h (default {run_plan.DEFAULT_BUDGET}: the main job with "
               f"both placements, and --claims; --versus {run_plan.VERSUS_BUDGET}). "
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
    _flag(parser, "--compare", action="append", default=None, metavar="RUN_FOLDER",
          help="compare stored runs side by side, running nothing (name two or more: --compare=A --compare=B): "
               "COMPARE.md, compare.html, compare.json and charts in results/data/compare/A_vs_B, or --out")
    _flag(parser, "--out", default=None, metavar="DIR", help="where --compare writes (default results/data/compare)")
    _flag(parser, "--rerender", nargs="?", const="", default=None, metavar="RUN_FOLDER",
          help="render a stored run's report again (REPORT.md, report.html, charts) "
               "from its report.json alone, running nothing: a folder, or a name under results/data (default: "
               "this machine's newest run)")
    _registry_flags(parser)
    _stored_run_flags(parser)
    _your_flags(parser)
    _remote_flags(parser)
    _order_flags(parser)
    return parser


def _order_flags(parser):
    """The flags of the rounds' order and the servers' blocks (docs/methodology.md, "What a verdict assumes")."""
    design = parser.add_argument_group("the rounds' order and the servers' blocks (docs/methodology.md)")
    _flag(design, "--order", default=run_plan.DRAWN, choices=(run_plan.DRAWN, run_plan.LISTED),
          help="the order of the cases in every round: drawn afresh each round (default), or as the scenario "
               "lists them (for studies of the order's own effect: a claim's sides then run in the same order "
               "in every round)")
    _flag(design, "--seed", type=int, default=None, metavar="N",
          help="the seed the rounds' orders are drawn from (default: a new one each run, kept in its settings, "
               "so that a run's orders can be repeated)")
    _flag(design, "--no-control", action="store_true",
          help="run no A/A control: by default every part also runs its reference program against a second "
               "process of itself (--versus and --claims: side B), judged like the claims, to show whether the "
               "run's rounds are fair; a control that finds a difference marks its part and the run exits 3")
    _flag(design, "--block-rounds", type=int, default=None, metavar="N",
          help=f"start every server again after N rounds, so that a verdict rests on several process pairs "
               f"(default {run_plan.BLOCK_ROUNDS}; 0 keeps each server for the whole run)")


def _registry_flags(parser):
    """The flags that add to the contestant registry and list it."""
    _flag(parser, "--contestants", default=None, metavar="FILE",
          help="a file of your own contestants (docs/contestant-registry.md), added to the registry "
               "(bench/registry/contestants.json); an entry of a scenario, role and name the registry has "
               "replaces it, and the run says so")
    _flag(parser, "--list", action="store_true", help="list the registry's contestants and exit")


def _your_flags(parser):
    """The flags that ask a user's own questions (docs/your-own-claims.md)."""
    yours = parser.add_argument_group("your own claims (docs/your-own-claims.md)")
    _flag(yours, "--claims", default=None, metavar="FILE",
          help="judge the questions of this claim file (TOML: [[question]] a, b, load, figure, better, placement) "
               "over the registry (--contestants), with the write-ups' rounds, budget (default "
               f"{run_plan.DEFAULT_BUDGET}, as the main job), verdicts and report, and nothing else")
    _flag(yours, "--versus", default=None, metavar="A,B",
          help="one question without a file: does server A beat B under their scenario's reference load (or "
               "--load) on its default figure; until decided or --budget is spent (default "
               f"{run_plan.VERSUS_BUDGET}); ends with a sentence to paste. Each side is a registry server's name "
               "or a command line with {port} (and {host} where it takes an address), ready once its port "
               "accepts: --versus=\"python3 $PWD/my_server.py {port}\",go")
    _flag(yours, "--load", default=None, metavar="CLIENT", help="the registry client --versus runs its question under")
    _flag(yours, "--scenario", default=None, choices=registry.SCENARIOS,
          help=f"the scenario of --versus's command lines where no side is a registry server's (default "
               f"{versus_sides.DEFAULT_SCENARIO})")
    for letter in versus_sides.LETTERS:
        _flag(yours, f"--name-{letter}", default=None, metavar="NAME",
              help=f"the name of side {letter.upper()} where it is a command line (default: its script's or "
                   "program's file name, without folder and extension)")


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
        entries = contestants(args.contestants)
    except registry.RegistryError as error:
        progress.log(f"bench: the contestant registry is not usable; nothing ran:\n{error}")
        return 2
    if args.list:
        for e in entries:
            print(f"{e['scenario']:9} {e['role']:6} {e['name']:22} {e['about']}")
        return 0
    try:
        plan = run_plan.plan_of(flags, entries, os.environ)
    except (run_plan.NothingMatches, run_plan.ClaimsError) as error:
        progress.log(str(error))
        return 2
    except run_plan.PlanError as error:
        parser.error(str(error))
    refused = versus_sides.refusal(plan.commands)
    if refused:
        progress.log(f"{refused}\nnothing ran")
        return 2
    progress.log(f"bench: parts {', '.join(plan.parts) or '(none)'}; {len(plan.contestants)} contestant(s) from "
                 "the registry" + (f" and {args.contestants}" if args.contestants else ""))
    try:
        placement = pipeline.open_placement(plan)
    except ssh_host.RemoteError as error:
        progress.log(f"bench: {error}; nothing ran")
        return 1
    try:
        return pipeline.run(plan, placement)
    finally:
        if placement is not None:
            placement.close()


def contestants(path):
    """The registry's entries with those of the file `path` (--contestants) added, each entry that replaces one
    of the registry's said on stderr; RegistryError naming the file, entry and field that are not usable."""
    entries = registry.load(registry.DEFAULT_PATH)
    if path is None:
        return entries
    entries, replaced = registry.added(entries, registry.load(path))
    for entry in replaced:
        progress.log(f"bench: {path} replaces the registry's {entry['scenario']} {entry['role']} {entry['name']}")
    return entries


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


def show_history():
    """--history: every claim across the stored runs, printed and written to HISTORY.md beside them; README.md's
    answers and its sample of a run's closing summary written from the runs stored in the checkout
    (bench/reporting/readme_answer.py), and docs/your-own-claims.md's list of each scenario's figures and
    settings from the write-ups' files (bench/scenarios/question_reference.py)."""
    parent = result_files.parent_from(os.environ)
    runs = history_report.stored_runs(history_report.parents_with(parent))
    text = markdown.history_alone(history_report.across(runs), len(runs),
                                  history_report.controls_text(history_report.controls_share(runs)))
    print(text, flush=True)
    path = os.path.join(parent, "HISTORY.md")
    result_files.write_text(path, text)
    readme = os.path.join(checkout.repo_root(), "README.md")
    with open(readme) as f:
        before = f.read()
    after = readme_answer.with_blocks(before, history_report.stored_runs([checkout.stored_runs()]))
    if after != before:
        result_files.write_text(readme, after)
    questions = _write_block(question_reference.page(), question_reference.with_block)
    progress.log(f"bench --history: {len(runs)} stored runs; wrote {path}"
                 + (" and README.md's answers" if after != before else "")
                 + (f" and {question_reference.PAGE}'s figures and settings" if questions else ""))
    return 0


def _write_block(path, with_block):
    """The page at `path` with its generated block written by `with_block`; whether it changed."""
    with open(path) as f:
        before = f.read()
    after = with_block(before)
    if after != before:
        result_files.write_text(path, after)
    return after != before


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
