"""The one round loop: every scenario's cases, write-up or detail, run in rounds through the runners of its
placements, and handed back as rows as they come.

    cases = [scheduler.Case(fields={"server": "go", "client": "go-spammer"}, server=scheduler.ServerSpec(go),
                            client=spammer, values={"clients": 3, "duration_s": "1"}, bound_s=1)]
    outcome = scheduler.run(cases, {"shared": contest.Runner()}, scheduler.Plan(rounds=10, name="echo"))
    outcome.rows, outcome.failed_servers, outcome.interrupted

A case names its row (`fields`), its server (started once per runner and kept for a block of rounds, or, with
`per_run`, started for each run and stopped after it, so that its stop line can be read; None for a program
that runs alone, a microbenchmark) and its client run.

Blocks: a verdict over one server process per side is a verdict on that pair of processes (where each landed in
memory, which CPU its threads woke on, what its runtime sized itself to at start), one draw of many. With
`Plan.block_rounds`, every server is stopped after that many rounds and started again, in the order the next
round runs its cases (drawn, where the policy draws it), and warmed up again before its first measured run: a
run's rounds then come from several process pairs. Every row says its `block` (the servers' generation in this
part, counted across resumed runs too, which start their servers afresh) and its `slot` (its position in its
round, from 0).
Each round the plan's policy (bench/design/rounds.py) says which cases run and in what order; every chosen
case then runs under every runner (a placement of this machine's CPUs, or a network link) before the next case,
so drift hits them alike. A server that does not start or dies gives failed rows for its cases, and the other
cases still run. Ctrl-C ends the loop: the outcome keeps every row that finished, `interrupted` set. Every
server is stopped before `run` returns.
"""

import dataclasses
import itertools
import time
from typing import Callable, Optional

from bench.analysis import verdict
from bench.base import progress
from bench.design import rounds as round_policies


@dataclasses.dataclass(frozen=True)
class ServerSpec:
    """A server contestant to start: its registry entry, placeholder values, extra arguments, the URL template
    clients get, whether each run gets a server of its own (`per_run`), and which process of it (`instance`:
    two specs alike but for it start two processes)."""
    entry: dict
    values: dict = dataclasses.field(default_factory=dict)
    extra_args: tuple = ()
    url_template: Optional[str] = None
    per_run: bool = False
    instance: int = 0  # a second process of the same server (an A/A control's twin) has an instance of its own

    def key(self):
        return (self.entry["name"], tuple(sorted(self.values.items())), tuple(self.extra_args), self.url_template,
                self.instance)


@dataclasses.dataclass
class Measured:
    """What a case's `figures` hook may read beyond the row: the client's own ClientResult (None for a fleet's
    merged run), the run document the client wrote where the case asked for one (`report_flag`; None for a
    fleet's), and a per-run server's whole output, read after it stopped."""
    report_flag: Optional[str] = None
    result: object = None
    report: Optional[dict] = None
    server_output: Optional[str] = None


@dataclasses.dataclass
class Case:
    """One case of a scenario: the row fields that name it, its server (None: the client runs alone), and its
    client run. `figures(row,
    measured)` adds the scenario's figures to a row that ran; `shown` is the figure and unit the progress line
    gives; `skip_runners` names runners (placements, links) the case does not run under. `warmup`, where set, is
    the client's values (over `values`) for an untimed run of its load against each server the case starts,
    before the server's first measured run, and `warmup_s` that run's bound: a server that reaches its steady
    rate only after seconds of load (a runtime sizing itself, a cache filling) is measured in it."""
    fields: dict
    server: Optional[ServerSpec]
    client: dict
    values: dict = dataclasses.field(default_factory=dict)
    extra_args: tuple = ()
    bound_s: float = 60
    figures: Optional[Callable] = None
    report_flag: Optional[str] = None
    shown: tuple = ("msgs_per_s", "msgs/s")
    skip_runners: tuple = ()
    warmup: Optional[dict] = None
    warmup_s: float = 0

    def label(self):
        return " ".join(str(v) for v in self.fields.values())


@dataclasses.dataclass
class Plan:
    """How a scenario is run: at most `rounds` rounds (None: until the policy chooses no case), the policy that
    chooses each round's cases (rounds.EveryCase: the fixed design; a policy with `observe(case, runner key,
    seconds)` is told each run's duration on `clock`), the name progress lines carry, `on_row`, called with
    each row as it comes, and `quiet_share`, the machine's quiet level measured before the first round
    (bench/running/noise.py's quiet_level; None: not measured), which every row that names its neighbours
    carries (noise.neighbours.quiet_share), so that whether its round is set aside is read from the rows alone.
    `block_rounds`: the servers are started again after that many rounds (None or 0: kept for the whole run)."""
    rounds: Optional[int]
    policy: object = dataclasses.field(default_factory=round_policies.EveryCase)
    name: str = ""
    on_row: Optional[Callable] = None
    clock: Callable = time.monotonic
    quiet_share: Optional[float] = None
    block_rounds: Optional[int] = None


@dataclasses.dataclass
class Outcome:
    """The rows that finished, in the order they ran; {server entry name: contest.Failure} of the servers that
    did not start or died; whether Ctrl-C ended the run; how many blocks (server generations) it started."""
    rows: list
    failed_servers: dict
    interrupted: bool = False
    blocks: int = 0  # the server generations started so far: the next block's number


def placement_fields(runner):
    """The row fields that say where a runner ran it: its CPU placement and, where it has one, its link."""
    return {"placement": runner.placement_name, **({"link": runner.link} if getattr(runner, "link", None) else {})}


class _Loop:
    """The state of one run: its runners, the servers started so far, the rows and the failures."""

    def __init__(self, runners, plan, resume=None):
        self.runners, self.plan = runners, plan
        self.servers = {}  # (runner key, server key) -> Server, or None when it did not start
        self.warm = set()  # ids of the servers that had their warm-up run
        self.outcome = resume if resume is not None else Outcome(rows=[], failed_servers={})
        self.outcome.interrupted = False
        self.block, self.block_start = None, None  # the current block's number and its first round

    def enter_round(self, round_index):
        """Starts a block at the first round of a run, and a new one (every server stopped, to start again as
        the round's cases need them) once the current block has had its `block_rounds` rounds."""
        every = self.plan.block_rounds
        if self.block is not None and not (every and round_index - self.block_start >= every):
            return
        if self.block is not None:
            for runner in self.runners.values():
                runner.stop_all()
            self.servers.clear()
            self.warm.clear()
            progress.log(f"{self.plan.name + ': ' if self.plan.name else ''}block {self.outcome.blocks + 1}: "
                         "every server starts again")
        self.block, self.block_start = self.outcome.blocks, round_index
        self.outcome.blocks += 1

    def server_for(self, key, runner, spec):
        """(the started server, None) or (None, the Failure that kept it from starting)."""
        if (key, spec.key()) not in self.servers:
            try:
                self.servers[(key, spec.key())] = runner.start_server(
                    spec.entry, dict(spec.values), extra_args=list(spec.extra_args), url_template=spec.url_template)
            except Exception as failure:  # noqa: BLE001 - contest.Failure, or a remote host's error
                self.servers[(key, spec.key())] = None
                self._fail(spec, failure)
        server = self.servers[(key, spec.key())]
        return server, (None if server is not None else self.outcome.failed_servers.get(spec.entry["name"]))

    def _fail(self, spec, failure):
        if spec.entry["name"] not in self.outcome.failed_servers:
            self.outcome.failed_servers[spec.entry["name"]] = failure
            tail = getattr(failure, "tail", "")
            progress.log(f"  {spec.entry['name']} failed: {failure}" + (f"\n{tail}" if tail else ""))

    def run_case(self, round_index, case, key, runner, slot=0):
        base = {**case.fields, "round": round_index, "slot": slot, "block": self.block, **placement_fields(runner)}
        if case.server is None:
            row, measured = self._client(case, runner, None)
        elif case.server.per_run:
            try:
                server = runner.start_server(case.server.entry, dict(case.server.values),
                                             extra_args=list(case.server.extra_args),
                                             url_template=case.server.url_template)
            except Exception as failure:  # noqa: BLE001
                return _failed_row(base, f"the server did not start: {failure}", getattr(failure, "tail", ""))
            try:
                self.warm_up(case, runner, server)
                row, measured = self._client(case, runner, server)
            finally:
                output = runner.stop(server)
            measured.server_output = output
        else:
            server, failure = self.server_for(key, runner, case.server)
            if server is None:
                return _failed_row(base, f"the server did not start: {failure}", getattr(failure, "tail", ""))
            self.warm_up(case, runner, server)
            row, measured = self._client(case, runner, server)
            if not server.alive():
                self._fail(case.server, _Died("died during the run", server.output_tail()))
        row.update(base)
        if case.figures is not None:
            case.figures(row, measured)
        return row

    def warm_up(self, case, runner, server):
        """The case's untimed warm-up run against `server`, once per server; its row is not kept (a warm-up
        that failed is said, and the measured run that follows says the rest)."""
        if case.warmup is None or id(server) in self.warm:
            return
        self.warm.add(id(server))
        progress.log(f"{self.plan.name + ' ' if self.plan.name else ''}warming {case.server.entry['name']} up: "
                     f"{case.warmup} (not measured)")
        row = runner.run_client(case.client, server, {**case.values, **case.warmup}, extra_args=list(case.extra_args),
                                bound_s=case.warmup_s)
        if row.get("status") != "ok":
            progress.log(f"  the warm-up of {case.server.entry['name']} failed: {row.get('error')}")

    @staticmethod
    def _client(case, runner, server):
        """(row, Measured) of the case's client run against `server`, or alone where the case has none."""
        measured = Measured(report_flag=case.report_flag)
        options = {"extra_args": list(case.extra_args), "bound_s": case.bound_s, "measured": measured}
        if server is None:
            return runner.run_alone(case.client, dict(case.values), **options), measured
        return runner.run_client(case.client, server, dict(case.values), **options), measured


class _Died(RuntimeError):
    def __init__(self, message, tail=""):
        super().__init__(message)
        self.tail = tail


def _failed_row(base, why, tail=""):
    return {**base, "status": "failed", "error": why, "tail": tail}


def _log(plan, round_index, case, key, row):
    total = f"/{plan.rounds}" if plan.rounds is not None else ""
    where = f" [{key}]" if key is not None else ""
    figure, unit = case.shown
    value = row.get(figure)
    if row["status"] != "ok":
        said = f"FAILED: {row.get('error')}"
    elif isinstance(value, (int, float)):
        said = f"{value:,.0f} {unit}" if abs(value) >= 1000 else f"{value:.3g} {unit}"
    else:
        said = f"- {unit}"
    found = verdict.disturbance(row)
    if found is not None:  # a finding, said as it happens: the claims' verdicts leave this round out
        said += f"; set aside: {verdict.disturbance_text(found)}"
    progress.log(f"{plan.name + ' ' if plan.name else ''}round {round_index + 1}{total}: {case.label()}{where}: {said}")


def _with_quiet_level(row, quiet_share):
    """The row, its neighbours' reading given the machine's quiet level where it was measured."""
    near = (row.get("noise") or {}).get("neighbours")
    if near is not None and quiet_share is not None:
        near["quiet_share"] = quiet_share
    return row


def run(cases, runners, plan, resume=None):
    """Runs `cases` in rounds under every runner of `runners` ({name: contest.Runner}, or one Runner) as `plan`
    says; returns an Outcome. Ctrl-C ends it with the rows that finished; every server is stopped.

    `resume`: the Outcome of an earlier run of the same cases, which this one goes on from: its rounds are
    numbered after that one's last, its rows come first in the Outcome returned (the same object), and its
    servers start afresh (the earlier run stopped them)."""
    runners = dict(runners) if isinstance(runners, dict) else {None: runners}
    loop = _Loop(runners, plan, resume)
    first_round = max((r["round"] + 1 for r in loop.outcome.rows), default=0)
    try:
        for round_index in (range(first_round, plan.rounds) if plan.rounds is not None
                            else itertools.count(first_round)):
            chosen = plan.policy.cases(round_index, cases, loop.outcome.rows)
            if not chosen:
                break
            loop.enter_round(round_index)
            first_row = len(loop.outcome.rows)
            for case in chosen:
                for key, runner in runners.items():
                    if key in case.skip_runners:
                        continue
                    started = plan.clock()
                    slot = len(loop.outcome.rows) - first_row
                    row = _with_quiet_level(loop.run_case(round_index, case, key, runner, slot), plan.quiet_share)
                    if hasattr(plan.policy, "observe"):
                        plan.policy.observe(case, key, plan.clock() - started)
                    loop.outcome.rows.append(row)
                    _log(plan, round_index, case, key, row)
                    if plan.on_row is not None:
                        plan.on_row(row)
            ran = loop.outcome.rows[first_row:]
            if ran and all(r["status"] != "ok" for r in ran):
                # Its servers died or will not start: the next round would fail as fast, and an adaptive
                # policy would repeat such rounds until its budget is spent, since nothing gets decided.
                progress.log(f"{plan.name + ': ' if plan.name else ''}every run of round {round_index + 1} "
                             "failed; no more rounds")
                break
    except KeyboardInterrupt:
        loop.outcome.interrupted = True
        progress.log(f"{plan.name} interrupted: keeping the {len(loop.outcome.rows)} run(s) that finished "
                     "(partial)")
    finally:
        for runner in runners.values():
            runner.stop_all()
    return loop.outcome
