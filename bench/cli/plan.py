"""A run as the command line asks for it, resolved into one frozen value that the rest of the suite is handed:
which parts and contestants, where they run (this machine's CPU placements, or remote hosts), the design that
decides the verdicts (fixed rounds, or a budget and a margin), each scenario's settings the command line
changed, and the name of the run's folder. Nothing below bench/cli/ reads argparse or a flag's name.

    plan = plan.plan_of(args, entries, os.environ)   # args: suite.command_line()'s; PlanError names a wrong flag
    plan.parts, plan.design, plan.budget_s, plan.overrides(definition)
"""

import dataclasses
import os
import random
import re
import types
from typing import Optional

from bench.analysis import sequential
from bench.cli import versus_sides
from bench.design import rounds as round_policies
from bench.registry import registry
from bench.reporting import result_files
from bench.reporting import run_environment
from bench.running import placement as cpu_placement
from bench.scenarios import catalogue
from bench.scenarios import claim_files
from bench.scenarios import your_claims


class PlanError(ValueError):
    """Flags that name no run: the message names the flag and what is wrong with it."""


@dataclasses.dataclass(frozen=True)
class RemoteHosts:
    """Where the servers and loads run when not on this machine (docs/remote-hosts.md)."""
    server: str
    clients: tuple
    server_address: Optional[str]
    remote_dir: Optional[str]
    ssh_config: Optional[str]
    compare_loopback: bool


# The order of every round's cases: drawn (rounds.Shuffled, seeded) unless --order=listed asks for the scenario's
# own order, which only a study of the order's effect wants.
DRAWN, LISTED = round_policies.DRAWN, round_policies.LISTED
# Rounds per block: every server starts again after this many rounds (--block-rounds), so that a run's rounds
# come from several process pairs. Eight gives the echo's own claims (about 40 to 80 rounds) five to ten pairs,
# and the websocket's (about 10) two, for a server start and a warm-up run per block.
BLOCK_ROUNDS = 8


def order_of(flags, draw=random.SystemRandom):
    """The run's order setting from --order and --seed: {"how": DRAWN or LISTED, "seed": the seed (drawn afresh
    where --seed does not give one, so that two runs draw different orders and each can be repeated)}."""
    seed = flags.seed if getattr(flags, "seed", None) is not None else draw().randrange(2 ** 31)
    return types.MappingProxyType({"how": getattr(flags, "order", DRAWN) or DRAWN, "seed": seed})


def block_rounds_of(flags):
    """--block-rounds, or BLOCK_ROUNDS; PlanError below 0."""
    given = getattr(flags, "block_rounds", None)
    if given is not None and given < 0:
        raise PlanError(f"--block-rounds={given}: expected 0 (servers kept for the whole run) or more rounds")
    return BLOCK_ROUNDS if given is None else given


@dataclasses.dataclass(frozen=True)
class Plan:
    """One run: its `parts` in order, the `contestants` (registry entries) they may use and the `registry`
    they came from; this machine's CPU `placements`, or `hosts`; the `design` ("fixed": `samples` rounds, the
    fan-out `fanout_samples`; "sequential": `budget_s` and the equivalence `margin`), `fixed_rounds` (the
    rounds flags that fix a part's rounds in a sequential run), `quick`, `as_written`; the scenario values the
    command line gave (`values`, read only through overrides()); where the run's folder goes: under
    `results_parent`, named `label` where the run chose one (None: the machine's label and start time); `yours`
    the definitions of a user's own claims (--claims, --versus: your_claims.py), which are then its parts, and
    `versus` whether they are --versus's one question; the `order` of every round's cases (order_of) and the
    rounds per block of server processes (`block_rounds`, 0: one block); whether each part runs its A/A
    `control`; `commands` the server entries --versus made of command lines (among `contestants`), which the
    command line checks listen before anything runs."""
    parts: tuple
    contestants: tuple
    registry: str
    placements: tuple
    design: str
    samples: int
    fanout_samples: int
    budget_s: float
    margin: float
    fixed_rounds: frozenset
    quick: bool
    as_written: bool
    values: types.MappingProxyType
    results_parent: str
    hosts: Optional[RemoteHosts] = None
    label: Optional[str] = None
    yours: tuple = ()
    versus: bool = False
    order: types.MappingProxyType = dataclasses.field(
        default_factory=lambda: types.MappingProxyType({"how": DRAWN, "seed": 0}))
    block_rounds: int = 0
    control: bool = True
    commands: tuple = ()

    def definitions(self):
        """{part: definition} of every part the plan can name: the catalogue's and the user's own claims'."""
        return {**catalogue.BY_PART, **{d.name: d for d in self.yours}}

    def overrides(self, definition):
        """{setting: value} of `definition`'s settings that the command line gave (its `flags` say which)."""
        return {name: self.values[flag] for name, flag in definition.flags.items()
                if self.values.get(flag) is not None}

    def adaptive(self, definition):
        """Whether `definition` is decided by the budget: a sequential run, a scenario with claims, and no
        rounds flag fixing its rounds."""
        return (self.design == "sequential" and definition.claims is not None
                and definition.flags.get("samples") not in self.fixed_rounds)


# Every scenario is a definition (bench/scenarios/catalogue.py) run by the one round loop: the write-ups, and the
# netbench-vs-Go detail scenarios, run when named.
WRITEUP_PARTS = [d.name for d in catalogue.WRITEUPS]
DETAIL_PARTS = [d.name for d in catalogue.DETAILS]
PARTS = [catalogue.MICRO.name] + WRITEUP_PARTS + DETAIL_PARTS
DEFAULT_PARTS = [catalogue.MICRO.name] + WRITEUP_PARTS
DEFAULT_REGISTRY = registry.DEFAULT_PATH


def split_words(text):
    return [w.strip() for w in text.split(",") if w.strip()]


class NothingMatches(PlanError):
    """--only or --skip names a word that is no part and nothing of the registry."""


def choose(args, entries):
    """(parts to run, contestants to use) from --only/--skip; NothingMatches naming any word that matches
    nothing."""
    only, skip = split_words(args.only), split_words(args.skip)
    unknown = [w for w in registry.unknown_words(entries, only + skip) if w not in PARTS]
    if unknown:
        raise NothingMatches(f"bench: --only/--skip: {', '.join(unknown)} names no part ({', '.join(PARTS)}) and "
                             "no contestant, system or scenario of the registry"
                             + (f" or {args.contestants}" if args.contestants else ""))
    contestant_only = [w for w in only if w not in PARTS or w in WRITEUP_PARTS]
    contestant_skip = [w for w in skip if w not in PARTS or w in WRITEUP_PARTS]
    chosen = registry.select(entries, contestant_only, contestant_skip)
    parts = [p for p in only if p in PARTS]
    if not parts:
        parts = DEFAULT_PARTS if not only else [s for s in WRITEUP_PARTS if any(e["scenario"] == s for e in chosen)]
    return [p for p in PARTS if p in parts and p not in skip], chosen


# The parts that run on remote hosts (--server-host, --client-hosts): those whose definition names a case's
# fields over a link; the fan-out's figure is one client's wall time, which a fleet does not sum.
REMOTE_PARTS = [d.name for d in catalogue.WRITEUPS + catalogue.DETAILS if d.link_keys]



# The fixed design's rounds where no flag says (the detail scenarios always, the write-ups with --quick), and
# the adaptive design's budget: the main job with both placements fits 30 minutes on a 2-core machine.
DEFAULT_ROUNDS = 10
DEFAULT_FANOUT_ROUNDS = 3
DEFAULT_BUDGET = "30m"
# --versus asks one question: its budget where --budget does not say.
VERSUS_BUDGET = "5m"
UNITS = {"": 1, "s": 1, "m": 60, "min": 60, "h": 3600}


def parse_duration(text):
    """Seconds of "30m", "1800s", "1800", "1.5h"; ValueError naming the text otherwise."""
    found = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(s|m|min|h|)\s*", text or "")
    if not found or float(found.group(1)) <= 0:
        raise ValueError(f"--budget={text}: expected a time above 0 such as 30m, 1800s or 1h")
    return float(found.group(1)) * UNITS[found.group(2)]


def parse_margin(text):
    """The margin as a fraction from a percentage, "5" or "5%"; ValueError otherwise."""
    found = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*%?\s*", text or "")
    if not found or not 0 < float(found.group(1)) <= 50:
        raise ValueError(f"--margin={text}: expected a percentage above 0 and at most 50, such as 5 or 2.5%")
    return float(found.group(1)) / 100


# --as-written's rounds where --rounds does not say: a paired interval needs 2, a third shows their spread.
AS_WRITTEN_ROUNDS = 3


def as_written_flags(args):
    """--as-written fixes the design: the write-ups' placement (shared), fixed rounds (AS_WRITTEN_ROUNDS unless
    --rounds says), its own run folder; ValueError where another flag asks for something else."""
    if not args.as_written:
        return
    for flag, given in (("--quick", args.quick), ("--budget", args.budget is not None),
                        ("--margin", args.margin is not None)):
        if given:
            raise ValueError(f"--as-written runs the write-ups' own lengths in fixed rounds; {flag} is for the "
                             "main job: name one")
    if args.placements != ["shared"] and args.placement is not None:
        raise ValueError(f"--as-written runs server and load sharing the CPUs, as the write-ups did; "
                         f"--placement={args.placement} asks otherwise: name one")
    args.placements = ["shared"]
    if args.rounds is None and args.samples is None:
        args.rounds = AS_WRITTEN_ROUNDS
    if args.fanout_samples is None:  # the fan-out's rounds too: the same design for every write-up
        args.fanout_samples = args.rounds if args.rounds is not None else args.samples


def as_written_choice(parts, chosen):
    """The write-up parts among `parts`, and of `chosen` only the systems and loads the write-ups compared."""
    definitions = [catalogue.BY_PART[p] for p in parts if p in WRITEUP_PARTS]
    names = {name for d in definitions for name in d.writeup_contestants}
    return [d.name for d in definitions], [e for e in chosen if e["name"] in names]


def design_flags(args):
    """Resolves the flags that bound the rounds into `design` ("fixed" or "sequential"), `samples`,
    `fanout_samples`, `fixed_rounds` (the rounds flags given), `budget_s` and `margin`; ValueError where two of
    them disagree: --rounds and --samples with different values, --budget or --margin with fixed rounds."""
    if args.rounds is not None and args.samples is not None and args.rounds != args.samples:
        raise ValueError(f"--rounds={args.rounds} and --samples={args.samples} name the same thing: give one")
    rounds = args.rounds if args.rounds is not None else args.samples
    fixed = rounds is not None or args.quick
    if fixed and (args.budget is not None or args.margin is not None):
        given = "--quick" if rounds is None else f"--rounds={rounds}"
        named = "--budget" if args.budget is not None else "--margin"
        raise ValueError(f"{given} fixes the rounds, {named} is for the adaptive design that spends a budget "
                         "until each claim is decided: name one")
    args.design = "fixed" if fixed else "sequential"
    args.fixed_rounds = {"fanout_samples"} if args.fanout_samples is not None else set()
    args.samples = rounds if rounds is not None else DEFAULT_ROUNDS
    args.fanout_samples = args.fanout_samples if args.fanout_samples is not None else DEFAULT_FANOUT_ROUNDS
    args.budget_s = parse_duration(args.budget if args.budget is not None else DEFAULT_BUDGET)
    args.margin = parse_margin(args.margin) if args.margin is not None else sequential.MARGIN




def resolve_flags(args):
    """A copy of the parsed flags with the ones that bound the same thing reconciled (placements, rounds,
    budget, margin, --as-written's); PlanError where two of them disagree or one is out of range."""
    flags = types.SimpleNamespace(**vars(args))
    try:
        flags.placements = cpu_placement.parse(flags.placement or ",".join(cpu_placement.NAMES))
    except ValueError as error:
        raise PlanError(str(error)) from None
    if flags.pin is not None:
        implied = ["split" if flags.pin else "shared"]
        if flags.placement is not None and flags.placements != implied:
            raise PlanError(f"--{'' if flags.pin else 'no-'}pin means --placement={implied[0]}, but --placement="
                            f"{flags.placement} was given too: name one")
        flags.placements = implied
    try:
        yours_flags(flags)
        as_written_flags(flags)
        design_flags(flags)
    except ValueError as error:
        raise PlanError(str(error)) from None
    if flags.samples < 1 or flags.fanout_samples < 1 or (flags.fanout_reps is not None and flags.fanout_reps < 1):
        raise PlanError("--rounds, --fanout_samples and --fanout_reps must be at least 1")
    remote = [f for f in ("client_hosts", "server_address", "remote_dir", "ssh_config", "compare_loopback")
              if getattr(flags, f)]
    if remote and not flags.server_host:
        raise PlanError(f"--{remote[0].replace('_', '-')} needs --server-host (the server's machine; it may be "
                        "this one's address)")
    return flags


class ClaimsError(PlanError):
    """--claims or --versus asks a question the registry cannot answer: the message names the field and the
    choices."""


def yours_flags(args):
    """--claims and --versus run a user's own questions and nothing else; --load goes with --versus; --versus
    spends VERSUS_BUDGET where no flag bounds its rounds. ValueError where flags ask for two things."""
    claims, versus, load = getattr(args, "claims", None), getattr(args, "versus", None), getattr(args, "load", None)
    if load and not versus:
        raise ValueError(f"--load={load} names the load of --versus's question (a claim file names its own)")
    for flag in ("scenario", "name_a", "name_b"):
        if getattr(args, flag, None) and not versus:
            raise ValueError(f"--{flag.replace('_', '-')}={getattr(args, flag)} is for --versus's command lines")
    if not claims and not versus:
        return
    given = "--claims" if claims else "--versus"
    if claims and versus:
        raise ValueError("--claims and --versus both ask your own questions: name one (a claim file can hold "
                         "--versus's question too)")
    for flag, value in (("--only", args.only), ("--skip", args.skip), ("--as-written", args.as_written),
                        ("--server-host", args.server_host)):
        if value:
            raise ValueError(f"{given} runs your questions and nothing else; {flag} is for the main job: name one")
    if versus and args.budget is None and args.rounds is None and args.samples is None and not args.quick:
        args.budget = VERSUS_BUDGET


def yours_of(flags, entries, folder=None):
    """(the definitions of the user's own questions (--claims, --versus) over the registry `entries`, the server
    entries --versus made of command lines, their relative paths taken from `folder`); ClaimsError naming a
    field that asks for what the registry or the run cannot give."""
    made = ()
    try:
        if getattr(flags, "claims", None):
            questions = claim_files.user_file(flags.claims, entries, flags.placements)
        else:
            sides = versus_sides.resolve(flags.versus, entries, getattr(flags, "scenario", None),
                                         (getattr(flags, "name_a", None), getattr(flags, "name_b", None)), folder)
            made = sides.made
            questions = claim_files.versus(*sides.names, list(entries) + list(made), flags.placements,
                                           load=flags.load)
        return your_claims.definitions(questions, catalogue.BY_PART), made
    except (claim_files.ClaimFileError, versus_sides.SideError) as error:
        raise ClaimsError(f"bench: {error}; nothing ran") from None


def plan_of(flags, entries, environ):
    """The run's Plan from resolve_flags()'s `flags` over the registry's `entries`, its folder where `environ`
    (the process's environment) puts it (result_files.parent_from, label_from: a label named there wins, and
    a folder named there holds the run under its default name); PlanError (NothingMatches for an unknown word)
    where they name no run."""
    parts, chosen = choose(flags, entries)
    label = None
    if flags.as_written:
        parts, chosen = as_written_choice(parts, chosen)
        label = run_environment.machine_label() + "-as-written"  # beside the main job's
    hosts = None
    if flags.server_host:
        named = [p for p in split_words(flags.only) if p in PARTS and p not in REMOTE_PARTS]
        if named:
            raise PlanError(f"--server-host runs {', '.join(REMOTE_PARTS)}; {', '.join(named)} runs on this "
                            "machine only")
        parts = [p for p in parts if p in REMOTE_PARTS]
        label = run_environment.machine_label() + "-over-ssh"  # beside this machine's loopback results
        hosts = RemoteHosts(flags.server_host, tuple(split_words(flags.client_hosts)), flags.server_address,
                            flags.remote_dir, flags.ssh_config, bool(flags.compare_loopback))
    yours, made = (), ()
    if getattr(flags, "claims", None) or getattr(flags, "versus", None):
        # A command line of --versus is typed where the user stands, which `bazel run` says.
        yours, made = yours_of(flags, entries, environ.get("BUILD_WORKING_DIRECTORY") or os.getcwd())
        parts, chosen = [d.name for d in yours], list(entries) + list(made)
    values = {k: v for k, v in vars(flags).items() if isinstance(v, (int, float, str, type(None)))}
    return Plan(parts=tuple(parts), contestants=tuple(chosen), registry=flags.contestants or DEFAULT_REGISTRY,
                placements=tuple(flags.placements), design=flags.design, samples=flags.samples,
                fanout_samples=flags.fanout_samples, budget_s=flags.budget_s, margin=flags.margin,
                fixed_rounds=frozenset(flags.fixed_rounds), quick=bool(flags.quick), as_written=bool(flags.as_written),
                values=types.MappingProxyType(values), hosts=hosts,
                results_parent=result_files.parent_from(environ),
                label=result_files.label_from(environ, label), yours=yours,
                versus=bool(getattr(flags, "versus", None)), order=order_of(flags),
                block_rounds=block_rounds_of(flags), control=not getattr(flags, "no_control", False),
                commands=made)
