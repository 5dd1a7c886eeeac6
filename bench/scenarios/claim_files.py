"""Claims as data: the write-ups' own (bench/registry/writeups/*.toml), the detail scenarios'
(bench/registry/details/*.toml) and a user's (--claims=FILE, --versus=A,B), read into judging.Claim values that
the one judging path (judging.py, adaptive.py) takes alike.

    writeup = claim_files.writeup("echo")            # its quote, settings, loads and claims, as stored
    claims = writeup.claims(rows)                    # judging.Claim (and not-testable lines), for these rows
    claims = claim_files.detail("echo").claims(rows) # the echo-models scenario's comparisons, for these rows
    questions = claim_files.user_file("my.toml", entries, placements)   # ClaimFileError naming a wrong field
    questions = claim_files.versus("asyncio-echo", "go", entries, placements, load=None)

A write-up file holds `scenario`, `quote`, its load's `settings` (and what `quick` changes), the `run_length`
(which setting and where its value came from), `as_written` (settings and contestants), its `load`s and its
`claim`s; each claim is judged under every load the run measured (`{load}` in its text is the load's words),
a claim with `each_load = false` once. A detail file holds its `part` and `claim`s whose cells depend on what
the rows ran: a claim is made once per binding of its `for_each` (`{name}` in any of its fields is the bound
value), where the rows ran its `if_ran` cells, with its `best` (the candidate of the best median) chosen from the
rows. A user's file holds `question`s: `a` and `b` (registry server entries, or tables of a case's row fields),
`load` (a registry client), `figure`, `better`, `placement`, `text`, and the load's `settings`.
docs/your-own-claims.md has every field.
"""

import dataclasses
import os
import statistics
import tomllib

from bench.scenarios import aa_control
from bench.design import judging

WRITEUPS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "registry", "writeups")
DETAILS = os.path.join(os.path.dirname(WRITEUPS), "details")

# What each scenario measures that a claim may compare: {figure: (which way is better, in words, the verb a
# question's default words give A where less is better, whether it is counted: fewer rather than less)}, its
# default first. A latency percentile is not among them: the write-ups' loads report no per-message latency.
FIGURES = {
    "echo": {"steady_msgs_per_s": ("higher", "msgs/s", "does", True),
             "msgs_per_s": ("higher", "msgs/s over the whole run", "does", True),
             "server_cpu_us_per_msg": ("lower", "server CPU per message", "spends", False),
             "client_cpu_us_per_msg": ("lower", "client CPU per message", "spends", False),
             "tcp_segs_per_msg": ("lower", "TCP segments per message", "sends", True)},
    "websocket": {"steady_msgs_per_s": ("higher", "msgs/s", "does", True),
                  "msgs_per_s": ("higher", "msgs/s over the whole run", "does", True),
                  "server_cpu_us_per_msg": ("lower", "server CPU per message", "spends", False),
                  "client_cpu_us_per_msg": ("lower", "client CPU per message", "spends", False)},
    "fanout": {"walls_s": ("lower", "wall time per fan-out", "takes", False),
               "server_cpu_us_per_req": ("lower", "server CPU per request", "spends", False),
               "client_cpu_us_per_req": ("lower", "client CPU per request", "spends", False)},
}
BETTER = ("higher", "lower")


class ClaimFileError(ValueError):
    """A claim file (or --versus) that asks for something this run cannot compare: the message names the field,
    what it said and the choices."""


# ------------------------------------------------------------------------------------------------- write-ups

@dataclasses.dataclass(frozen=True)
class WriteUp:
    """One write-up's file: its `scenario`, `quote`, `settings`, `quick`, `run_length`, `as_written`, `loads`
    and `claim` tables as stored, and its A/A `control` (aa_control.py; None: none)."""
    scenario: str
    quote: str
    settings: dict
    quick: dict
    run_length: dict
    as_written: dict
    loads: tuple
    claim_tables: tuple
    not_testable: tuple
    control: dict = None

    def claims(self, rows):
        """The claims over `rows`: every claim under each load the rows ran (every load where they ran none),
        load by load, then the claims judged once and the ones this machine cannot test."""
        ran = [load for load in self.loads if _ran(load.get("both", {}), rows)] or list(self.loads)
        out = [_claim(table, load) for load in ran for table in self.claim_tables if table.get("each_load", True)]
        for table in self.claim_tables:
            if table.get("each_load", True):
                continue
            cores = os.cpu_count() or 1
            if cores >= table.get("needs_cores", 1):
                out.append(_claim(table, {}))
            else:
                out.append(judging.not_testable(table["text"], _words(table["why_not"], cores=cores),
                                                table["command"]))
        for line in self.not_testable:
            out.append(judging.not_testable(line["text"], _words(line["why"], system=os.uname().sysname),
                                            line["command"]))
        return out + aa_control.claims_where_twin_ran(self.control, rows)


def _words(text, **values):
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def _ran(cell, rows):
    return any(all(r.get(k) == v for k, v in cell.items()) for r in rows)


def _claim(table, load):
    """A claim table under one load: the load's fields join each side, its names the claim's, its words the
    text's `{load}`."""
    both = load.get("both", {})
    return judging.Claim(
        _words(table["text"], load=load.get("words", "")),
        {**table["a"], **both, **load.get("a", {})}, {**table["b"], **both, **load.get("b", {})},
        table["figure"], higher_is_better=table["better"] == "higher",
        names=tuple(table.get("names", ())) + tuple(load.get("names", ())), same_if=tuple(table.get("same_if", ())),
        per_placement=table.get("per_placement", True), question=table.get("question"),
        variant=load.get("variant"), headline=bool(table.get("headline", load.get("headline", False))))


def writeup(name, folder=WRITEUPS):
    """The write-up `name`'s file (echo, websocket, fanout), read."""
    with open(os.path.join(folder, f"{name}.toml"), "rb") as f:
        data = tomllib.load(f)
    return WriteUp(scenario=data["scenario"], quote=data["quote"], settings=data["settings"],
                   quick=data.get("quick", {}), run_length=data.get("run_length", {}),
                   as_written=data.get("as_written", {}), loads=tuple(data.get("load", ())),
                   claim_tables=tuple(data.get("claim", ())), not_testable=tuple(data.get("not_testable", ())),
                   control=data.get("control"))


# ------------------------------------------------------------------------------------------- detail scenarios

@dataclasses.dataclass(frozen=True)
class Detail:
    """One detail scenario's file: its `part` and `claim` tables as stored."""
    part: str
    claim_tables: tuple

    def claims(self, rows):
        """The claims over `rows`: each table's, in the file's order, one per binding of its `for_each` (the
        first key outermost) where the rows ran its `if_ran` cells and each of its `best` has a candidate."""
        return [_claim(claim, {}) for table in self.claim_tables for claim in _bound(table, rows)]


def _values(source, rows):
    """A `for_each` or `best` source's values: a list as written, or a table `{ ran = FIELD }`: the values the
    rows have of that field (whatever their status), in their order, or only those `among` a list (in its
    order), then the `also` list's, whether they ran or not. `ran` a list of fields: each distinct combination,
    as a table of them."""
    if isinstance(source, list):
        return list(source)
    fields = source["ran"]
    if isinstance(fields, list):
        found = [dict(zip(fields, v)) for v in dict.fromkeys(tuple(r.get(f) for f in fields) for r in rows)]
    else:
        found = list(dict.fromkeys(r.get(fields) for r in rows))
    if "among" in source:
        found = [v for v in source["among"] if v in found]
    return found + list(source.get("also", ()))


def _fill(value, env):
    """`value` with each `{name}` of `env` replaced: a string, or each string of a table or list."""
    if isinstance(value, dict):
        return {k: _fill(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, env) for v in value]
    if isinstance(value, str):
        for key, said in env.items():
            value = value.replace("{" + key + "}", str(said))
    return value


def _median(rows, figure, cell):
    """The median of `figure` over the rows of one cell that ran; None when none did."""
    values = [r.get(figure) for r in rows if r.get("status") == "ok" and all(r.get(k) == v for k, v in cell.items())]
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _best(spec, env, rows):
    """The candidate a `best` table chooses: of its candidates (the one field given as a list or a `ran`
    table), the one whose cell (with the table's other fields) has the `highest` or `lowest` median of the
    figure; a cell with no median, or a median of 0 (a case that measured nothing), is never the best, and
    where none has one the first candidate is. None where there is no candidate."""
    spec = _fill(dict(spec), env)
    higher = "highest" in spec
    figure = spec.pop("highest") if higher else spec.pop("lowest")
    field = next(k for k, v in spec.items() if not isinstance(v, str))
    candidates = _values(spec.pop(field), rows)
    if not candidates:
        return None
    found = [(m, c) for c in candidates if (m := _median(rows, figure, {**spec, field: c}))]
    if not found:
        return candidates[0]
    top = (max if higher else min)(m for m, _ in found)
    return next(c for m, c in found if m == top)


def _bound(table, rows):
    """A detail claim table bound to the rows: one claim table, its placeholders filled, per binding of its
    `for_each`, where the rows ran its `if_ran` cells and each of its `best` has a candidate."""
    bindings = [{}]
    for name, source in table.get("for_each", {}).items():
        values = _values(source, rows)
        bindings = [{**env, **(v if isinstance(v, dict) else {name: v})} for env in bindings for v in values]
    out = []
    for env in bindings:
        if not all(_ran(_fill(cell, env), rows) for cell in table.get("if_ran", ())):
            continue
        bests = {name: _best(spec, env, rows) for name, spec in table.get("best", {}).items()}
        if None in bests.values():
            continue
        env = {**env, **bests}
        env = _fill(env, env)  # a value that names a best ("{curl}")
        out.append({k: _fill(v, env) for k, v in table.items() if k not in ("for_each", "if_ran", "best")})
    return out


def detail(name, folder=DETAILS):
    """The detail scenario `name`'s claims file (echo, websocket, httpfanout), read."""
    with open(os.path.join(folder, f"{name}.toml"), "rb") as f:
        data = tomllib.load(f)
    return Detail(part=data["part"], claim_tables=tuple(data.get("claim", ())))


# ---------------------------------------------------------------------------------------------- a user's own

@dataclasses.dataclass(frozen=True)
class Question:
    """A user's question as it will be judged: its `scenario`, the `claim` (judging.Claim), the registry
    `entries` it needs run (its sides' servers and its load) and the load's `settings`."""
    scenario: str
    claim: judging.Claim
    entries: tuple
    settings: dict


def _choices(values):
    return ", ".join(sorted(values)) or "(none)"


def _entry(entries, name, field, role=None, scenario=None):
    """The registry entry `name` names, as `field` of a question; ClaimFileError naming the choices."""
    wanted = [e for e in entries if (role is None or e["role"] == role)
              and (scenario is None or e["scenario"] == scenario)]
    # One name may be an entry of several scenarios (go: an echo server and a fan-out client): the one that fits.
    found = ([e for e in wanted if e["name"] == name] or [e for e in entries if e["name"] == name
                                                          and (role is None or e["role"] == role)]
             or [e for e in entries if e["name"] == name])
    if not found:
        raise ClaimFileError(f"{field} = {name!r}: no contestant of the registry has that name; the choices: "
                             f"{_choices(e['name'] for e in wanted)}")
    entry = found[0]
    if role is not None and entry["role"] != role:
        raise ClaimFileError(f"{field} = {name!r} is a {entry['role']} of the registry, not a {role}; the "
                             f"choices: {_choices(e['name'] for e in wanted)}")
    if scenario is not None and entry["scenario"] != scenario:
        raise ClaimFileError(f"{field} = {name!r} is a load of the {entry['scenario']} scenario, and the sides are "
                             f"{scenario} servers; the {scenario} loads: {_choices(e['name'] for e in wanted)}")
    return entry


def reference_load(entries, scenario):
    """The load a question of `scenario` runs under where it names none: the registry's first client of the
    scenario marked `reference` (the write-up's own load: go-spammer for echo), None where none is."""
    return next((e["name"] for e in entries if e["scenario"] == scenario and e["role"] == "client"
                 and e.get("reference")), None)


def _side(value, field, entries):
    """A side's cell and its server entry: a registry server's name, or a table of row fields with `server`."""
    if isinstance(value, str):
        return {"server": value}, _entry(entries, value, field, role="server")
    if isinstance(value, dict) and isinstance(value.get("server"), str):
        return dict(value), _entry(entries, value["server"], f"{field}.server", role="server")
    raise ClaimFileError(f"{field}: expected a registry server's name or a table with `server` (and the row "
                         f"fields of a case, such as procs), got {value!r}")


def question(table, entries, placements, where="question"):
    """One question (a table of a claim file) checked against the registry `entries` and the run's
    `placements`: a Question, or ClaimFileError naming the field, what it said and the choices."""
    known = {"a", "b", "load", "figure", "better", "placement", "text", "settings", "same_if"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ClaimFileError(f"{where}: unknown field {', '.join(unknown)}; the fields: {_choices(known)}")
    for side in ("a", "b"):
        if side not in table:
            raise ClaimFileError(f"{where}.{side}: missing; name a registry server (or a table of a case's row "
                                 "fields with `server`)")
    a, entry_a = _side(table["a"], f"{where}.a", entries)
    b, entry_b = _side(table["b"], f"{where}.b", entries)
    scenario = entry_a["scenario"]
    if entry_b["scenario"] != scenario:
        raise ClaimFileError(f"{where}.b = {entry_b['name']!r} is a {entry_b['scenario']} server and a = "
                             f"{entry_a['name']!r} an {scenario} one: both sides run under one load")
    if a == b:
        raise ClaimFileError(f"{where}: a and b are the same entry ({entry_a['name']}): a claim compares two "
                             "different cells")
    load_name = table.get("load") or reference_load(entries, scenario)
    if load_name is None:
        loads = [e["name"] for e in entries if e["scenario"] == scenario and e["role"] == "client"]
        raise ClaimFileError(f"{where}.load: missing, and the registry marks no {scenario} load as the reference; "
                             f"the choices: {_choices(loads)}")
    load = _entry(entries, load_name, f"{where}.load", role="client", scenario=scenario)
    figures = FIGURES[scenario]
    figure = table.get("figure", next(iter(figures)))
    if figure not in figures:
        raise ClaimFileError(f"{where}.figure = {figure!r}: the {scenario} scenario does not measure it; the "
                             f"choices: {', '.join(figures)}")
    better = table.get("better", figures[figure][0])
    if better not in BETTER:
        raise ClaimFileError(f"{where}.better = {better!r}: the choices: {', '.join(BETTER)}")
    placement = table.get("placement")
    if placement is not None and placement not in placements:
        raise ClaimFileError(f"{where}.placement = {placement!r}: this run's placements are "
                             f"{', '.join(placements)} (--placement chooses them)")
    a, b = {**a, "client": load["name"]}, {**b, "client": load["name"]}
    if placement is not None:
        a, b = {**a, "placement": placement}, {**b, "placement": placement}
    text = table.get("text") or claim_text(a, b, figures[figure], better, load["name"], placement)
    claim = judging.Claim(text, a, b, figure, higher_is_better=better == "higher",
                          names=(entry_a["name"], entry_b["name"], load["name"]),
                          same_if=tuple(table.get("same_if", ())), per_placement=placement is None,
                          question=text, headline=True)
    return Question(scenario, claim, (entry_a["name"], entry_b["name"], load["name"]), dict(table.get("settings", {})))


def claim_text(a, b, figure, better, load, placement=None):
    """A question's words where the file gives none, from its `figure` (a FIGURES value) and which way is
    `better`: "asyncio-echo beats go in msgs/s under go-spammer" (a rate, more is better), "asyncio-echo spends less
    server CPU per message than go under go-spammer" (a cost, less is better), and the other way round where the
    question says so ("... does fewer msgs/s than ...", "... spends more server CPU per message than ...")."""
    own, words, verb, counted = figure

    def name(cell):
        extra = ", ".join(f"{k} {v}" for k, v in cell.items() if k not in ("server", "client", "placement"))
        return cell["server"] + (f" ({extra})" if extra else "")
    if own == "higher" and better == "higher":
        said = f"{name(a)} beats {name(b)} in {words}"
    else:
        amount = "more" if better == "higher" else "fewer" if counted else "less"
        said = f"{name(a)} {verb} {amount} {words} than {name(b)}"
    return said + f" under {load}" + (f", {placement} placement" if placement else "")


def user_file(path, entries, placements):
    """The questions of a user's claim file over the registry `entries`; ClaimFileError where it cannot be read
    or compares nothing."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as error:
        raise ClaimFileError(f"--claims={path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ClaimFileError(f"--claims={path}: not TOML: {error}") from None
    tables = data.get("question")
    unknown = sorted(set(data) - {"question", "settings"})
    if unknown:
        raise ClaimFileError(f"--claims={path}: unknown table {', '.join(unknown)}; a claim file holds "
                             "[[question]] tables (and [settings] for every question's load)")
    if not tables or not isinstance(tables, list):
        raise ClaimFileError(f"--claims={path}: compares nothing: it has no [[question]] with `a` and `b` "
                             "(docs/your-own-claims.md shows one)")
    common = data.get("settings", {})
    out = []
    for index, table in enumerate(tables):
        one = question(table, entries, placements, where=f"question {index + 1}")
        out.append(dataclasses.replace(one, settings={**common, **one.settings}))
    return out


def versus(a, b, entries, placements, load=None):
    """--versus=A,B: one question of two registry servers under `load` (default: their scenario's reference
    load), on the scenario's default figure."""
    table = {"a": a, "b": b, **({"load": load} if load else {})}
    return [question(table, entries, placements, where="--versus")]

