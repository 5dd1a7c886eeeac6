"""What a scenario is, as data: the shape every write-up (writeup_definitions.py) and detail scenario
(echo_bench.py, websocket_bench.py, httpfanout_bench.py) fills in, and that the command line runs through the
one round loop (bench/design/scheduler.py) without knowing which scenario it is.

    definition.settings_for({"seconds": 4.0}, quick=False)   # {"samples": 10, "seconds": 4.0, "clients": 3}
    cases, fates = definition.cases(entries, runners, settings)
    section = definition.section(rows, fates, settings) # {"verdicts": [...], "markdown": "..."}
"""

import dataclasses
from typing import Callable, Optional


@dataclasses.dataclass(frozen=True)
class Definition:
    """One scenario. `name` is the part the command line names (--only=echo); `document` the stem of its
    result files; `settings` its loads' defaults, `quick` what --quick changes, `flags` {setting: the
    command-line value it comes from} (`samples`, the rounds, among them); `cases(entries, runners, settings)`
    gives its scheduler.Cases and the contestants' fates; `section(rows, fates, settings)` its claims' verdicts
    and Markdown; `link_keys` the row fields of a case when it runs over other hosts (None: this machine only);
    `placements` the CPU placements it runs under (None: those the command line chose); `merge_histograms` the
    row fields of a case whose clients' latency histograms are merged over its rounds into the document (None:
    they stay in the rows); `claims(rows)` its claims (judging.Claim, from rows or from its cases' fields: the
    adaptive round policy's questions; None: a scenario judged by its fixed rounds only); `case_s(settings)`
    about how long one run of a case takes, in seconds (the stored runs' mean), to split a time budget among
    the parts in proportion to their rounds' lengths; `as_written` the settings the write-up itself ran (its run
    length, its messages, its harness's samples) and `writeup_contestants` the registry names of the systems it
    compared and its load, which `--as-written` runs and nothing else; `control` its A/A control (aa_control.py:
    the cell whose program runs against a second process of itself; None: none), which the run adds to its cases
    unless it runs a write-up as written or the command line says --no-control."""
    name: str
    document: str
    settings: dict
    quick: dict
    flags: dict
    cases: Callable
    section: Callable
    link_keys: Optional[tuple] = None
    placements: Optional[tuple] = None
    merge_histograms: Optional[tuple] = None
    claims: Optional[Callable] = None
    case_s: Optional[Callable] = None
    as_written: Optional[dict] = None
    writeup_contestants: tuple = ()
    control: Optional[dict] = None

    def round_s(self, settings, cases, runners):
        """About how long one round of every case under every runner takes (0 where `case_s` is unknown)."""
        if self.case_s is None:
            return 0.0
        runs = sum(1 for case in cases for key in runners if key not in case.skip_runners)
        return runs * self.case_s(settings)

    def settings_for(self, chosen, quick=False, as_written=False):
        """The settings of one run: the defaults, the write-up's own where `as_written`, then `chosen` (the
        settings the command line gave, by their names here: bench/cli/plan.py's Plan.overrides), then
        --quick's."""
        own = (self.as_written or {}) if as_written else {}
        return {**self.settings, **own, **chosen, **(self.quick if quick else {})}
