"""The schema of the stored result documents (results/README.md explains every field), and their validation
when a run writes them and whenever one is read. A document names its schema and version
("netbench.writeup/4"); an older version still validates against the fields it had, and any mismatch is
reported with the path of the field that differs, so an old run that no longer fits says where.

    errors = result_schema.validate(document)             # [] when it matches
    document = result_schema.load("results/data/linux-x86_64-2cpu/echo_writeup.json")   # SchemaError if not
    result_schema.check(document)                         # SchemaError naming the first mismatches

A validator of our own rather than python3-jsonschema: a few dozen lines, no package to install on every
machine that stores or compares results, error paths in the form the README uses (`rows[3].msgs_per_s`),
and the version rule (a field new in version 2 is optional in a version-1 document) said once, in `Field`.
"""

import json
import re

from bench.analysis import sequential
from bench.reporting import old_documents

WRITEUP = "netbench.writeup"
BENCH = "netbench.bench"
CURRENT_VERSION = {WRITEUP: 4, BENCH: 2}
# Documents that tools beside the suite store among the results, each in a schema of its own that the tool
# documents: the suite neither reads nor compares them (results/README.md, "Other tools' documents").
# The stored documents of tools since replaced keep their tags, named with the command that measures it now.
OTHER_TOOLS = {"netbench.soak": "bench/studies/soak.py",
               "netbench.link_compare": "tools/link_compare.py (replaced: --only=websocket --server-host=HOST "
                                        "--compare-loopback over testnet hosts)",
               "netbench.uring_bench": "tools/uring_bench.py (replaced: --only=echo-models,websocket-models)",
               "netbench.uring_client_bench": "tools/uring_client_bench.py (replaced: --only=echo-models)",
               "netbench.variance": "bench/studies/variance_study.py",
               "netbench.dimensioning": "bench/studies/dimensioning_study.py",
               # A run's report as data (report.json): rendered from the documents above, never compared.
               "netbench.report": "bench/reporting/document.py"}
# Version 2 added to every environment: cpus_allowed, git_dirty, build_mode, sysctls; and to the echo and
# websocket detail benches the clients' latency histograms with every bucket, per case (mergeable exactly).
# Write-up version 3 added the placements (settings.placements, each row's placement), each side's
# configuration as it ran, its CPU saturation and the row's bottleneck, and the verdicts' placement and
# "same configuration here".
# Write-up version 4 is every scenario's document, write-up or detail (parts echo-models, websocket-models,
# httpfanout-models): the detail scenarios' rows (`client`, `status`), their cases' merged histograms and their
# comparisons as verdicts; a stored netbench.bench/2 document of a detail scenario is converted on read
# (old_documents.py).


class SchemaError(ValueError):
    """A document that does not match its schema; `errors` lists every mismatch as "path: what"."""

    def __init__(self, source, errors):
        shown = errors[:10] + ([f"... and {len(errors) - 10} more"] if len(errors) > 10 else [])
        super().__init__(f"{source} does not match its schema:\n  " + "\n  ".join(shown))
        self.errors = errors


class Field:
    """A field of an object: its kind, whether it must be present (from schema version `since` on; earlier
    versions may leave it out) and whether null is allowed."""

    def __init__(self, kind, required=True, nullable=False, since=1):
        self.kind, self.required, self.nullable, self.since = kind, required, nullable, since


def opt(kind, nullable=True, since=1):
    return Field(kind, required=False, nullable=nullable, since=since)


def nullable(kind):
    return Field(kind, required=True, nullable=True)


class Obj:
    """An object with the named fields and no others."""

    def __init__(self, name, fields):
        self.name, self.fields = name, fields


class ListOf:
    def __init__(self, item):
        self.item = item


class MapOf:
    """An object whose keys are free (contestant names, figure names) and whose values are all `value`."""

    def __init__(self, value):
        self.value = value


class Enum:
    """One of `values`, or a string that `pattern` (a regular expression) matches whole."""

    def __init__(self, *values, pattern=None):
        self.values, self.pattern = values, pattern

    def allows(self, value):
        return value in self.values or (self.pattern is not None and isinstance(value, str)
                                        and re.fullmatch(self.pattern, value) is not None)


class Pair:
    """A two-element list of integers: a histogram bucket [lowest value, count]."""


# Any JSON value: the cases of a bench this schema does not describe (a one-off study's).
ANY = object()

KIND_WORDS = {"str": "a string", "int": "an integer", "num": "a number", "bool": "true or false", "null": "null"}


def _matches(kind, value):
    if kind == "str":
        return isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "num":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    raise AssertionError(kind)


def _describe(value):
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check(kind, value, path, version, errors):
    if kind is ANY:
        return
    if isinstance(kind, str):
        if not _matches(kind, value):
            errors.append(f"{path}: expected {KIND_WORDS[kind]}, found {_describe(value)}")
    elif isinstance(kind, tuple):
        if not any(_matches(k, value) for k in kind):
            errors.append(f"{path}: expected {' or '.join(KIND_WORDS[k] for k in kind)}, found {_describe(value)}")
    elif isinstance(kind, Enum):
        if not kind.allows(value):
            errors.append(f"{path}: expected one of {', '.join(map(repr, kind.values))}, found {_describe(value)}")
    elif isinstance(kind, Pair):
        if not (isinstance(value, list) and len(value) == 2 and all(_matches("int", v) for v in value)):
            errors.append(f"{path}: expected [lowest value, count] (two integers), found {_describe(value)}")
    elif isinstance(kind, ListOf):
        if not isinstance(value, list):
            errors.append(f"{path}: expected a list, found {_describe(value)}")
            return
        for index, item in enumerate(value):
            _check(kind.item, item, f"{path}[{index}]", version, errors)
    elif isinstance(kind, MapOf):
        if not isinstance(value, dict):
            errors.append(f"{path}: expected an object, found {_describe(value)}")
            return
        for key, item in value.items():
            _check(kind.value, item, f"{path}.{key}", version, errors)
    elif isinstance(kind, Obj):
        _check_object(kind, value, path, version, errors)
    else:
        raise AssertionError(kind)


def _check_object(spec, value, path, version, errors):
    if not isinstance(value, dict):
        errors.append(f"{path or 'document'}: expected an object ({spec.name}), found {_describe(value)}")
        return
    prefix = f"{path}." if path else ""
    for name, field in spec.fields.items():
        if name not in value:
            if field.required and version >= field.since:
                errors.append(f"{prefix}{name}: missing (a field of {spec.name})")
            continue
        if value[name] is None and field.nullable:
            continue
        _check(field.kind, value[name], prefix + name, version, errors)
    for name in value:
        if name not in spec.fields:
            errors.append(f"{prefix}{name}: not a field of {spec.name} (results/README.md lists them)")


NUMBER = ("num", "null")
# Which clock gave a row's CPU figures: the scheduler's, or null where a host could not run netbench's reader
# (its figures null, not measured). "ticks" (/proc, 10 ms) is read only in documents stored before.
CPU_CLOCK = Enum("scheduler", "ticks")

ENVIRONMENT = Obj("the environment", {
    "os": Field("str"),
    "kernel": Field("str"),
    "machine": Field("str"),
    "cpu_model": Field("str"),
    "cores": Field("int"),
    "cpus_allowed": Field("int", since=2),
    "python": Field("str"),
    "git_commit": nullable("str"),
    "git_dirty": Field("bool", nullable=True, since=2),
    "build_mode": Field(Enum("opt", "dbg", "fastbuild"), nullable=True, since=2),
    "sysctls": Field(MapOf("str"), since=2),
    "timestamp_utc": Field("str"),
    "kernel_costs_us": opt(MapOf("num"), nullable=False),
})

HISTOGRAM = Obj("a latency histogram (common/README.md)", {
    "unit": Field(Enum("ns")),
    "count": Field("int"),
    "min": Field("int"),
    "max": Field("int"),
    "mean": nullable("num"),
    "stddev": nullable("num"),
    "percentiles": Field(MapOf("int")),
    "overflow_count": Field("int"),
    "highest_trackable": Field("int"),
    "significant_digits": Field("int"),
    "buckets": Field(ListOf(Pair())),
})

# A detail bench's clients' histograms of one case, merged over its rounds (histogram_merge.py).
CASE_HISTOGRAM = Obj("a case's latency histogram", {
    "server": Field("str"),
    "load": Field("str"),
    "name": Field("str"),
    "rounds": Field(ListOf("int")),
    "histogram": Field(HISTOGRAM),
})

CONTESTANT = Obj("a contestant's fate", {
    "name": Field("str"),
    "role": Field(Enum("server", "client")),
    "system": Field("str"),
    "about": Field("str"),
    "env": Field(MapOf("str")),
    "command": Field("str"),
    "status": Field(Enum("ran", "skipped", "failed")),
    "version": opt("str"),
    "why": opt("str"),
    "tail": opt("str"),
})

# The rounds of a verdict that ran with the hypervisor's steal above a level (verdict.steal_rounds).
# A program beside ours, by its process: the one that took most of the CPU over a run or a run's rounds.
NEIGHBOUR = Obj("another program", {
    "pid": Field("int"),
    "name": Field("str"),
    "cpu_s": Field("num"),
})
QUIET = Obj("the machine's quiet level", {
    "share": Field("num"),
    "cpu_s": Field("num"),
    "seconds": Field("num"),
    "top": nullable(NEIGHBOUR),
})
STEAL = Obj("a verdict's rounds with steal", {
    "steal_level": Field("num"),
    "rounds_with_steal": Field("int"),
    "rounds_with_noise": Field("int"),
    "max_steal": nullable("num"),
})

# The sequential rule's decision on a claim (sequential.decide). The median ratio, its interval's level and
# whether it bounds, the anytime p-value, the best case's rounds and the direction's level come with the sign
# sequence; `tightest_at` with the runs stored before it.
SEQUENCE = Obj("a sequential decision", {
    "outcome": Field(Enum("holds", "reversed", "equivalent", "open")),
    "rounds": Field("int"),
    "median_ratio": opt("num"),
    "geomean_ratio": nullable("num"),
    "interval": nullable(ListOf("num")),
    "level": opt("num"),
    "bounded": opt("bool", nullable=False),
    "p_value": opt("num", nullable=False),
    "sd_log": nullable("num"),
    "reach_pct": nullable("num"),
    "rounds_to_decide": nullable("int"),
    "rounds_best_case": opt("int"),
    "margin": Field("num"),
    "alpha": Field("num"),
    "direction_alpha": opt("num", nullable=False),
    "tightest_at": opt("int", nullable=False),
    # The run's round (from 1) of the look that decided it; absent from open claims and older documents.
    "decided_at_round": opt("int", nullable=False),
    "rule": Field("str"),
})

VERDICT = Obj("a verdict", {
    "claim": Field("str"),
    "figure": opt("str", nullable=False),
    "a": opt(MapOf(("str", "int")), nullable=False),
    "b": opt(MapOf(("str", "int")), nullable=False),
    "samples_a": opt("int", nullable=False),
    "samples_b": opt("int", nullable=False),
    "median_a": opt("num"),
    "median_b": opt("num"),
    "ratio": opt("num"),
    "per_round_min": opt("num"),
    "per_round_max": opt("num"),
    "p_value": opt("num"),
    # The paired statistics (verdict.py, paired_ratio.py), absent from documents stored before them.
    "test": opt(Enum("two-sided Mann-Whitney U", "paired t on log ratios", sequential.RULE, *sequential.OLDER_RULES)),
    "rounds_paired": opt("int"),
    "geomean_ratio": opt("num"),
    "ci95": opt(ListOf("num")),
    "sign_flip_p": opt("num"),
    "sign_flip_method": opt("str"),
    "detectable_pct": opt("num"),
    "rounds_needed": opt(("int", "str")),
    "verdict": Field(Enum("holds", "reversed", "equivalent within \u00b12%", "not separable on this machine",
                          "not measured", "not testable here", "same configuration here", "open",
                          pattern="equivalent within \u00b1[0-9.]+%")),
    # The design that judged it, the bound its interval reached and its rounds' steal; a sequential verdict's
    # decision (sequential.py). Absent from documents stored before them.
    "design": opt(Enum("fixed", "sequential"), nullable=False),
    "reach_pct": opt("num"),
    "steal": opt(STEAL, nullable=False),
    # How often A ran first in the rounds the verdict paired, and the binomial test of that split against half
    # (`unbalanced`: far enough from half to mark the line); over how many process pairs (blocks) its rounds
    # came. Absent from documents stored before rounds were drawn.
    "order": opt(Obj("a verdict's order of sides", {
        "a_first": Field("int"), "rounds": Field("int"), "p_value": Field("num"), "unbalanced": Field("bool")}),
        nullable=False),
    "process_pairs": opt("int", nullable=False),
    # Each side's runs lost up to the verdict's last round, by why (failed, no steady state, zero, no figure), and
    # where the sides lost unequally the median ratio with each lost round counted as its side's loss.
    "lost": opt(Obj("the runs each side lost", {"a": Field(MapOf("int")), "b": Field(MapOf("int"))}),
                nullable=False),
    "lost_ratio": opt("num", nullable=False),
    # An A/A control's line (bench/scenarios/aa_control.py): the same program on both sides.
    "control": opt("bool", nullable=False),
    # What the claim's runs said of their steady state (scenarios/judging.steady_summary).
    "steady": opt(Obj("a claim's steady states", {
        "runs": Field("int"),
        "reached": Field("int"),
        "classes": Field(MapOf("int")),
        "warm_up_s": nullable("num"),
        "seconds": Field("num"),
        "whole_ratio": nullable("num"),
    }), nullable=False),
    "sequence": opt(SEQUENCE, nullable=False),
    # A direction decided by less than the margin; the rounds the host disturbed, set aside (verdict.py's
    # disturbed_rounds); the ratio's drift within the run (analysis/drift.py).
    "small": opt("bool", nullable=False),
    "set_aside": opt(Obj("the rounds set aside", {
        "rounds": Field("int"),
        "steal_above": Field("num"),
        "other_above": Field("num"),
        "why": Field(MapOf("int")),
        # Of how many rounds, the median share the set-aside rounds lost and the programs that took most
        # (verdict.set_aside_of); absent from lines judged before the rows named their neighbours.
        "of": opt("int", nullable=False),
        "share": opt("num"),
        "top": opt(ListOf(NEIGHBOUR), nullable=False),
    }), nullable=False),
    "drift": opt(Obj("a ratio's drift", {
        "at_rounds": Field(ListOf("int")),
        "ratios": Field(ListOf("num")),
    }), nullable=False),
    "placement": opt(Enum("shared", "split"), nullable=False, since=3),
    "configuration": opt(MapOf(MapOf(("int", "str"))), nullable=False, since=3),
    "bottleneck": opt("str", since=3),
    "why": opt("str"),
    "command": opt("str", nullable=False),
})

# Where a run's programs ran when the suite used other hosts (--server-host, --client-hosts: README).
PLACEMENT = Obj("the hosts of a remote run", {
    "server": Field("str"),
    "server_address": Field("str"),
    "clients": Field(ListOf("str")),
    "compare_loopback": Field("bool"),
})

SETTINGS = Obj("the settings", {
    "samples": Field("int"),
    # The order of every round's cases (drawn from the seed, or as listed) and the rounds per block of server
    # processes (0: one block); absent from documents stored before rounds were drawn.
    "order": opt(Obj("the rounds' order", {"how": Field(Enum("drawn", "listed")), "seed": Field("int")}),
                 nullable=False),
    "block_rounds": opt("int", nullable=False),
    # An adaptive write-up's (--budget): the design, the equivalence margin, and its share of the budget, s.
    "design": opt(Enum("fixed", "sequential"), nullable=False),
    "margin": opt("num", nullable=False),
    "budget_s": opt("num", nullable=False),
    # The run's claims under error control: how many, the rate for each family together and the rule, and
    # the families (the write-ups' own claims, the others; absent from runs stored with one family); the levels
    # each claim was judged at ([claim, alpha, direction alpha]); the fallback rate; the claims the budget
    # could not decide even at their best case, set aside (rounds.UntilDecided's out_of_reach).
    "family": opt(Obj("the run's family of claims", {
        "claims": Field("int"),
        "alpha": Field("num"),
        "rule": Field("str"),
        "families": opt(MapOf(Obj("a family of claims", {
            "claims": Field("int"),
            "what": Field("str"),
        })), nullable=False),
    }), nullable=False),
    "levels": opt(ListOf(ListOf(("str", "num"))), nullable=False),
    "alpha": opt("num", nullable=False),
    "out_of_reach": opt(MapOf(Obj("a claim out of reach", {
        "rounds": Field("int"),
        "more": nullable("int"),
        "round_s": Field("num"),
        "left_s": Field("num"),
    })), nullable=False),
    # The machine's quiet level measured before the first round (noise.quiet_level), and the rounds the host
    # disturbed over the part's rows (verdict.set_aside_of), which the run's last screen names.
    "quiet": opt(QUIET, nullable=False),
    "set_aside": opt(Obj("the part's rounds set aside", {
        "rounds": Field("int"),
        "of": Field("int"),
        "why": Field(MapOf("int")),
        "share": nullable("num"),
        "top": Field(ListOf(NEIGHBOUR)),
    }), nullable=False),
    "pinned": opt("bool", nullable=False),
    "placements": opt(ListOf(Enum("shared", "split")), nullable=False, since=3),
    "seconds": opt("num", nullable=False),
    "clients": opt("int", nullable=False),
    "messages": opt("int", nullable=False),
    "requests": opt("int", nullable=False),
    "reps": opt("int", nullable=False),
    "warmup": opt("int", nullable=False),
    # The JVM fan-out clients' warm-up, at least this long (criterium-style), beside the `warmup` repetitions.
    "warmup_seconds": opt("num", nullable=False),
    "hosts": opt(PLACEMENT, nullable=False, since=2),
    "rate": opt("int", nullable=False),
    "echo_messages": opt("int", nullable=False),
    "server_threads": opt("int", nullable=False),
    # The microbenchmarks' --benchmark_min_time where the run set one (--quick).
    "min_time_s": opt("num", nullable=False),
    "notes": opt("str", nullable=False),
    # --as-written: the write-up's own lengths and systems, fixed rounds.
    "as_written": opt("bool", nullable=False),
    # The stored dimensioning study its run lengths came from (bench/scenarios/run_lengths.py).
    "run_length_study": opt(Obj("a run-length study", {
        "source": Field("str"),
        "machine": nullable("str"),
        "cpu": nullable("str"),
        "timestamp": nullable("str"),
        "claim": nullable("str"),
        "unit": Field("str"),
        "recommended": nullable("num"),
        "reference_length": nullable("num"),
        "points": Field(ListOf(Obj("a length's ratio", {
            "length": Field("num"),
            "servers": Field(Enum("kept", "per_run", "warmed")),
            "rounds": nullable("int"),
            "steady": nullable(ListOf("num")),
            "whole": nullable(ListOf("num")),
            "classes": Field(MapOf("int")),
        }))),
    }), nullable=False),
})

# One client host of a fleet's run (contest.Runner.run_fleet): its own figures and its share of the row's rate.
FLEET_HOST = Obj("a fleet host's part of a row", {
    "host": Field("str"),
    "returncode": Field(("int", "null")),
    "cpu_s": opt(NUMBER),
    "cpu_clock": opt(CPU_CLOCK),
    "found": Field(MapOf(ListOf("num"))),
    "error": opt("str"),
    "tail": opt("str"),
    "histogram_counts": Field(MapOf(("int", "null"))),
    "msgs_per_s": opt(NUMBER),
    "messages": opt(NUMBER),
    "share": opt(NUMBER),
})

# What else ran on the server's host while a row was measured (bench/running/noise.py; remote_noise.py for a
# server over SSH). The client and suite figures are null where the clients ran on other hosts.
SWITCHES = Obj("a side's context switches and migrations over a run", {
    "voluntary": Field("int"),
    "involuntary": Field("int"),
    "migrations": nullable("int"),
    "threads": opt("int", nullable=False),
    "threads_exited": opt("int", nullable=False),
    # The state of the round: which CPUs the server's threads ended on ({cpu: threads}), and page faults.
    "last_cpus": opt(MapOf("int"), nullable=False),
    "minor_faults": opt("int", nullable=False),
    "major_faults": opt("int", nullable=False),
})
NOISE = Obj("a run's noise", {
    "steal": Field("num"),
    "busy_cpu_s": Field("num"),
    "server_cpu_s": nullable("num"),
    "client_cpu_s": nullable("num"),
    "suite_cpu_s": nullable("num"),
    "other_cpu_s": Field("num"),
    "other_cpu_share": nullable("num"),
    "cpus": Field("int"),
    "wall_s": Field("num"),
    "server": nullable(SWITCHES),
    "client": nullable(SWITCHES),
    # The other programs by process (noise.py's neighbours) and the machine's quiet level the run measured
    # before its first round; absent from rows stored before them, null on a server over SSH.
    "neighbours": opt(Obj("the other programs over a run", {
        "cpu_s": Field("num"),
        "share": nullable("num"),
        "top": nullable(NEIGHBOUR),
        "next": Field(ListOf(NEIGHBOUR)),
        "quiet_share": opt("num", nullable=False),
    })),
})

# Every write-up row: one run of one client against one server in one round (contest.Runner.run_client).
WRITEUP_ROW = {
    "status": Field(Enum("ok", "failed")),
    "round": Field("int"),
    # The run's position in its round (from 0) and its block of server processes (bench/design/scheduler.py);
    # absent from documents stored before rounds were drawn.
    "slot": opt("int", nullable=False),
    "block": opt("int", nullable=False),
    "server": Field("str"),
    "client": Field("str"),
    "error": opt("str", nullable=False),
    "tail": opt("str"),
    "server_cpu_s": opt(NUMBER),
    "client_cpu_s": opt(NUMBER),
    "wall_s": opt(NUMBER),
    "cpu_clock": opt(CPU_CLOCK),
    "found": opt(MapOf(ListOf("num")), nullable=False),
    "link": opt(Enum("loopback", "remote"), nullable=False, since=2),
    "hosts": opt(ListOf(FLEET_HOST), nullable=False, since=2),
    "histograms": opt(MapOf(HISTOGRAM), nullable=False, since=2),
    "placement": opt(Enum("shared", "split"), nullable=False, since=3),
    "server_config": opt(MapOf(("int", "str")), nullable=False, since=3),
    "client_config": opt(MapOf(("int", "str")), nullable=False, since=3),
    "server_saturation": opt(NUMBER, since=3),
    "client_saturation": opt(NUMBER, since=3),
    "bottleneck": opt(("str", "null"), since=3),
    "noise": opt(NOISE, nullable=False, since=3),
}
# A load generator's counts per interval (its `series:` line) and the steady state found in them
# (bench/analysis/steady_state.py).
SERIES = Obj("a run's counts per interval", {
    "interval_s": Field("num"),
    "last_s": opt("num"),
    "sent": Field(ListOf("num")),
    "received": opt(ListOf("num"), nullable=False),
})
STEADY = Obj("a run's steady state", {
    "class": Field(Enum("flat", "warm-up", "slowdown", "no steady state")),
    "changepoints_s": Field(ListOf("num")),
    "segments": Field(ListOf(ListOf("num"))),
    "steady_start_s": nullable("num"),
    "steady_rate": nullable("num"),
    "whole_rate": nullable("num"),
    "seconds": Field("num"),
    "too_short": Field("bool"),
    "counted": opt(Enum("sent", "received"), nullable=False),
})
MESSAGE_FIGURES = {
    "msgs_per_s": opt(NUMBER),
    "series": opt(SERIES, nullable=False),
    "steady": opt(STEADY),
    "steady_msgs_per_s": opt(NUMBER),
    "messages": opt(NUMBER),
    "client_cpu_us_per_msg": opt(NUMBER),
    "server_cpu_us_per_msg": opt(NUMBER),
    "tcp_segs_per_msg": opt(NUMBER),
}
FANOUT_FIGURES = {
    "scheme": Field(Enum("http", "https")),
    "walls_s": opt(ListOf("num"), nullable=False),
    "wall_s_median": opt(NUMBER),
    "requests_made": opt("int", nullable=False),
    "client_cpu_us_per_req": opt(NUMBER),
    "client_rep_cpu_us_per_req": opt(NUMBER),
    "server_cpu_us_per_req": opt(NUMBER),
}
WRITEUP_ROWS = {
    "echo": Obj("an echo write-up row", {**WRITEUP_ROW, **MESSAGE_FIGURES}),
    "websocket": Obj("a websocket write-up row", {**WRITEUP_ROW, "procs": Field("int"), "clients": Field("int"),
                                                  **MESSAGE_FIGURES}),
    "fanout": Obj("a fan-out write-up row", {**WRITEUP_ROW, **FANOUT_FIGURES, "condition": Field("str")}),
}
# A user's own claims (--claims, --versus) over a write-up's scenario: its rows are that scenario's.
WRITEUP_ROWS.update({f"your-{part}": WRITEUP_ROWS[part] for part in ("echo", "websocket", "fanout")})


# A figure of one case on both links (remote_report.py): medians, their ratio (remote / loopback) and the
# same ratio within each round.
LINK_FIGURE = Obj("a figure on both links", {
    "loopback": Field(NUMBER),
    "remote": Field(NUMBER),
    "ratio": Field(NUMBER),
    "per_round": Field(ListOf("num")),
})
LINK_CASE = Obj("a case on both links", {
    "server": Field("str"),
    "client": Field("str"),
    "procs": opt("int", nullable=False),
    "clients": opt("int", nullable=False),
    "msgs_per_s": Field(LINK_FIGURE),
    "server_cpu_us_per_msg": Field(LINK_FIGURE),
    "client_cpu_us_per_msg": Field(LINK_FIGURE),
})


def _writeup_document(part):
    return Obj(f"a {part} write-up", {
        "schema": Field("str"),
        "part": Field(Enum(*WRITEUP_ROWS)),
        "environment": Field(ENVIRONMENT),
        "settings": Field(SETTINGS),
        "registry": Field("str"),
        "contestants": Field(ListOf(CONTESTANT)),
        "verdicts": Field(ListOf(VERDICT)),
        "rows": Field(ListOf(WRITEUP_ROWS[part])),
        "links": opt(ListOf(LINK_CASE), nullable=False, since=2),
        "histograms": opt(ListOf(DETAIL_HISTOGRAM), nullable=False),
        "converted_from": opt("str", nullable=False),
        "partial": opt("bool", nullable=False),
    })


# A detail bench's case: one run of one load against one server model in one round (bench/scenarios/*_bench.py).
MESSAGE_CASE = {
    "server": Field("str"),
    "load": Field("str"),
    "round": Field("int"),
    "returncode": Field("int"),
    "msgs_per_s": nullable("num"),
    "client_cpu_s": opt(NUMBER),
    "server_cpu_s": opt(NUMBER),
    "wall_s": opt(NUMBER),
    "messages_written": opt(("int", "null")),
    "errors": opt(("int", "null")),
    "client_cpu_us_per_msg": opt(NUMBER),
    "client_sys_us_per_msg": opt(NUMBER),
    "server_cpu_us_per_msg": opt(NUMBER),
    "server_sys_us_per_msg": opt(NUMBER),
    "tcp_segs_per_msg": opt(NUMBER),
    "p50_us": opt(NUMBER),
    "p99_us": opt(NUMBER),
    "error": opt("str", nullable=False),
    "server_messages": opt(("int", "null")),
    "server_syscalls": opt(("int", "null")),
    "server_syscalls_per_msg": opt(NUMBER),
    "client_syscalls": opt(("int", "null")),
    "client_syscalls_per_msg": opt(NUMBER),
}
# A detail scenario's row (schema 4): a write-up row, `client` naming the load, with the figures of a detail
# bench's case (MESSAGE_CASE: what the write-up row names otherwise) and those of its echo and websocket cases.
DETAIL_FIGURES = {
    **{name: field for name, field in MESSAGE_CASE.items() if name not in WRITEUP_ROW
       and name not in ("load", "returncode", "msgs_per_s")},
    "messages_echoed": opt(("int", "null")),
    "echoed_per_s": opt(NUMBER),
    "p999_us": opt(NUMBER),
    "messages_received_by_client": opt(("int", "null")),
    "messages_received_by_server": opt(("int", "null")),
}
WRITEUP_ROWS["echo-models"] = Obj("an echo-models row", {**WRITEUP_ROW, **MESSAGE_FIGURES, **DETAIL_FIGURES})
WRITEUP_ROWS["websocket-models"] = Obj("a websocket-models row",
                                       {**WRITEUP_ROW, **MESSAGE_FIGURES, **DETAIL_FIGURES})
WRITEUP_ROWS["httpfanout-models"] = Obj("an httpfanout-models row", {**WRITEUP_ROW, **FANOUT_FIGURES,
                                                                      "failed": opt(("int", "null"))})
# A microbenchmark's row (bench/scenarios/microbenchmarks.py): one benchmark of one binary, run alone, per round.
WRITEUP_ROWS["micro"] = Obj("a microbenchmark row", {
    **{name: field for name, field in WRITEUP_ROW.items() if name not in ("server", "client")},
    "binary": Field("str"),
    "benchmark": Field("str"),
    "cpu_ns": opt(NUMBER),
    "real_ns": opt(NUMBER),
    "GB_per_s": opt("num", nullable=False),
    "M_items_per_s": opt("num", nullable=False),
})
# A detail scenario's clients' histograms of one case, merged over its rounds: a detail bench's, the load
# named `client` as in its rows.
DETAIL_HISTOGRAM = Obj("a case's latency histogram", {"client" if name == "load" else name: field
                                                     for name, field in CASE_HISTOGRAM.fields.items()})
SCALAR_ROW = MapOf(("str", "num", "bool", "null"))
BENCH_CASES = {
    "echo_bench": Obj("an echo_bench case", {**MESSAGE_CASE, "messages_echoed": opt(("int", "null")),
                                              "echoed_per_s": opt(NUMBER)}),
    "websocket_bench": Obj("a websocket_bench case", {**MESSAGE_CASE,
                                                      "messages_received_by_client": opt(("int", "null")),
                                                      "messages_received_by_server": opt(("int", "null")),
                                                      "p999_us": opt(NUMBER)}),
    "httpfanout_bench": Obj("an httpfanout_bench case", {
        "target": Field("str"),
        "scheme": Field(Enum("http", "https")),
        "client": Field("str"),
        "requests": Field("int"),
        "repetitions": Field("int"),
        "samples": Field(ListOf(Obj("an httpfanout_bench sample (one round)", {
            "wall_s": nullable("num"),
            "client_cpu_us_per_request": nullable("num"),
            "server_cpu_us_per_request": nullable("num"),
            "failed": nullable("int"),
        }))),
        "summary": Field(SCALAR_ROW),
    }),
}


def _bench_document(name):
    return Obj(f"the {name} document", {
        "schema": Field("str"),
        "benchmark": Field("str"),
        "environment": Field(ENVIRONMENT),
        # A bench not listed in BENCH_CASES (a one-off before/after study) keeps free-form cases.
        "cases": Field(ListOf(BENCH_CASES.get(name, ANY))),
        "summary": Field(ListOf(SCALAR_ROW)),
        "notes": Field("str"),
        "histograms": opt(ListOf(CASE_HISTOGRAM), nullable=False, since=2),
        "partial": opt("bool", nullable=False),
    })


def schema_of(document):
    """(name, version) of a document's "schema" field, e.g. ("netbench.writeup", 2); raises SchemaError."""
    tag = document.get("schema") if isinstance(document, dict) else None
    name, _, version = (tag or "").partition("/")
    if name not in CURRENT_VERSION or not version.isdigit():
        raise SchemaError("the document", [f"schema: expected one of {', '.join(f'{n}/N' for n in CURRENT_VERSION)}"
                                           f", found {_describe(tag)}"])
    if not 1 <= int(version) <= CURRENT_VERSION[name]:
        raise SchemaError("the document", [f"schema: version {version} of {name} is unknown here (this checkout "
                                           f"reads 1 to {CURRENT_VERSION[name]}): update netbench"])
    return name, int(version)


def other_tool(document):
    """The tool that wrote `document` when its schema is one of OTHER_TOOLS' (not the suite's), else None."""
    tag = document.get("schema") if isinstance(document, dict) else None
    return OTHER_TOOLS.get((tag or "").partition("/")[0]) if isinstance(tag, str) else None


def current(name):
    """The tag a new document of `name` carries: "netbench.writeup/4"."""
    return f"{name}/{CURRENT_VERSION[name]}"


def validate(document):
    """Every mismatch of `document` with its schema, as "path: what"; [] when it matches."""
    try:
        name, version = schema_of(document)
    except SchemaError as error:
        return error.errors
    if name == WRITEUP:
        part = document.get("part")
        if part not in WRITEUP_ROWS:
            return [f"part: expected one of {', '.join(map(repr, WRITEUP_ROWS))}, found {_describe(part)}"]
        spec = _writeup_document(part)
        if isinstance(document.get("converted_from"), str):
            # Converted on read: the fields it must have are those of the version it was stored in.
            try:
                version = schema_of({"schema": document["converted_from"]})[1]
            except SchemaError as error:
                return [f"converted_from: {e.partition(': ')[2]}" for e in error.errors]
    else:
        spec = _bench_document(document.get("benchmark"))
    errors = []
    _check_object(spec, document, "", version, errors)
    return errors


def check(document, source="the document"):
    """Raises SchemaError listing every mismatch; returns the document when it matches."""
    errors = validate(document)
    if errors:
        raise SchemaError(source, errors)
    return document


def load(path):
    """The document stored at `path`, validated; SchemaError (naming the file and each field) if it does not
    match, ValueError if it is not JSON."""
    with open(path) as f:
        try:
            document = json.load(f)
        except ValueError as error:
            raise SchemaError(path, [f"not JSON: {error}"]) from error
    return check(old_documents.upgrade(document), path)


def every_field():
    """The name of every field the schema describes (results/README.md must document each)."""
    names = set()

    def walk(kind):
        if isinstance(kind, Obj):
            for name, field in kind.fields.items():
                names.add(name)
                walk(field.kind)
        elif isinstance(kind, (ListOf,)):
            walk(kind.item)
        elif isinstance(kind, MapOf):
            walk(kind.value)

    for part in WRITEUP_ROWS:
        walk(_writeup_document(part))
    for name in BENCH_CASES:
        walk(_bench_document(name))
    return names
