"""The contestant registry: every system the main job compares, as data (bench/registry/contestants.json).

A contestant is a server or a client of one scenario (echo, websocket, fanout): how to start it (a command
with placeholders), the line that says it is ready (a server without one is ready once its {port} accepts a
connection), its environment, the command that prints its version, and the Debian packages it needs.
netbench's own programs are entries like any other, so a person puts their own server in the tables by adding
an entry, without writing Python (docs/contestant-registry.md), or by naming its command line (command_line.py).

    contestants = registry.load("bench/registry/contestants.json")        # RegistryError names entry and field
    contestants, replaced = registry.added(contestants, registry.load("my.json"))   # --contestants=my.json
    chosen = registry.select(contestants, only=["echo"], skip=["racket"])
    missing = registry.unavailable(entry)                           # None, or why and how to install it
    argv = registry.expand(entry["command"], {"port": 7000, "host": "127.0.0.1"}, resolve)

Standard library only; run with /usr/bin/python3.
"""

import difflib
import json
import os
import re
import shutil
import subprocess

# The shipped registry, beside this file; its folder is the {results} placeholder (a folder of the checkout).
FOLDER = os.path.dirname(os.path.realpath(__file__))
DEFAULT_PATH = os.path.join(FOLDER, "contestants.json")

SCENARIOS = ("echo", "websocket", "fanout")
ROLES = ("server", "client")
SCHEMES = ("http", "https")

# The placeholders each kind of entry may use, beyond the ones every entry may use.
_EVERYWHERE = {"host", "results"}
PLACEHOLDERS = {
    ("echo", "server"): {"port"},
    ("echo", "client"): {"port", "clients", "duration_s"},
    ("websocket", "server"): {"port", "procs"},
    ("websocket", "client"): {"url", "clients", "messages", "procs"},
    ("fanout", "server"): {"port"},
    ("fanout", "client"): {"url", "requests", "reps", "warmup", "warmup_seconds"},
}
# What each client must report, as a regex with a group named `value` over its standard output.
RESULT_KEYS = {"echo": {"msgs_per_s", "messages"}, "websocket": {"msgs_per_s", "messages"},
               "fanout": {"wall_s"}}

_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_FIELDS = {
    # field: (type, required for which roles)
    "name": (str, ROLES), "system": (str, ROLES), "scenario": (str, ROLES), "role": (str, ROLES),
    "about": (str, ROLES), "command": (list, ROLES), "version": (list, ROLES), "packages": (list, ROLES),
    "env": (dict, ()), "reference": (bool, ()), "probe": (dict, ()), "requires": (list, ()),
    "ready": (str, ()), "stop": (list, ()), "pidfile": (str, ()), "schemes": (dict, ()),
    "result": (dict, ("client",)), "https_args": (list, ()), "conditions": (dict, ()),
}
_IDENTITY = ("name", "scenario", "role")
_SERVER_ONLY = {"ready", "stop", "pidfile", "schemes"}
_CLIENT_ONLY = {"result", "https_args", "conditions", "reference"}


class RegistryError(ValueError):
    """A registry that cannot be used; the message names the file, the entry and the field."""


def load(path):
    """The validated entries of the registry at `path` (a list of dicts, in file order)."""
    try:
        with open(path) as f:
            document = json.load(f)
    except OSError as error:
        raise RegistryError(f"{path}: cannot read the registry: {error.strerror}") from error
    except json.JSONDecodeError as error:
        raise RegistryError(f"{path}: not JSON: {error}") from error
    return validate(document, path)


def validate(document, path="registry"):
    """Checks every entry before anything runs; raises RegistryError naming each problem's entry and field."""
    if not isinstance(document, dict) or not isinstance(document.get("contestants"), list):
        raise RegistryError(f'{path}: expected an object with a "contestants" list')
    problems = []
    seen = set()
    for index, entry in enumerate(document["contestants"]):
        label = f"{path}: contestant #{index + 1}"
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            label += f' "{entry["name"]}"'
        problems += [f"{label}: {p}" for p in _entry_problems(entry)]
        if isinstance(entry, dict):
            key = (entry.get("scenario"), entry.get("role"), entry.get("name"))
            if key in seen:
                problems.append(f"{label}: field 'name': a {key[0]} {key[1]} of that name comes earlier")
            seen.add(key)
    if problems:
        raise RegistryError("\n".join(problems))
    return document["contestants"]


def _entry_problems(entry):
    """What is wrong with one entry: its fields' names and types first, since every later check reads the
    fields as their types; then what it is (name, scenario, role), since that says which placeholders and
    fields it may use; then its values."""
    if not isinstance(entry, dict):
        return ["is not an object"]
    problems = _field_problems(entry)
    if problems:
        return problems
    problems = _identity_problems(entry)
    if entry["scenario"] not in SCENARIOS or entry.get("role") not in ROLES:
        return problems  # no placeholders to check against
    allowed = _EVERYWHERE | PLACEHOLDERS[(entry["scenario"], entry["role"])]
    problems += _list_problems(entry)
    problems += _placeholder_problems("command", entry["command"], allowed)
    problems += _env_problems(entry, allowed)
    if entry["role"] == "client":
        problems += _result_problems(entry)
    problems += _regex_problems("probe", entry.get("probe", {}))
    if "ready" in entry:
        try:
            re.compile(entry["ready"])
        except re.error as error:
            problems.append(f"field 'ready': not a regex: {error}")
    if entry["scenario"] == "fanout":
        problems += _fanout_problems(entry, allowed)
    if "pidfile" in entry and "stop" not in entry:
        problems.append("field 'stop': a server with a pidfile (a daemon) needs the command that stops it")
    if entry["role"] == "server" and "ready" not in entry:
        problems += _readiness_problems(entry)
    return problems


def _readiness_problems(entry):
    """A server without a `ready` line is ready once its port accepts a connection: its command must take the
    port ({port}), and a daemon (whose own process exits at once) must say it is ready in a line."""
    if "pidfile" in entry:
        return ["field 'ready': missing (a daemon says it is ready in a line of what its start command printed)"]
    if not any("{port}" in word for word in entry["command"]):
        return ["field 'ready': missing, and its command takes no {port} to wait on: give the regex of the line "
                "that says it listens, or pass it {port}"]
    return []


def _field_problems(entry):
    """Fields this registry does not know (with the likely one meant), required ones missing for the entry's
    role, and fields of the wrong JSON type."""
    problems = []
    role = entry.get("role")
    for field in entry:
        if field not in _FIELDS:
            close = difflib.get_close_matches(field, _FIELDS, n=1)
            problems.append(f"field '{field}': unknown" + (f" (did you mean '{close[0]}'?)" if close else ""))
    for field, (kind, required_for) in _FIELDS.items():
        if field not in entry:
            # What the entry is (its name, scenario and role) is needed whatever its role says.
            if role in required_for or field in _IDENTITY:
                problems.append(f"field '{field}': missing")
            continue
        if not isinstance(entry[field], kind):
            problems.append(f"field '{field}': expected {kind.__name__}, got {type(entry[field]).__name__}")
    return problems


def _identity_problems(entry):
    """The name, scenario and role, and fields only the other role has; stops at an unknown scenario or role,
    after which nothing says what the entry may hold."""
    problems = []
    role = entry.get("role")
    if not _NAME.match(entry["name"]):
        problems.append("field 'name': use lower-case letters, digits, '.', '_' and '-'")
    if entry["scenario"] not in SCENARIOS:
        problems.append(f"field 'scenario': '{entry['scenario']}' is not one of {', '.join(SCENARIOS)}")
        return problems
    if role not in ROLES:
        problems.append(f"field 'role': '{role}' is not one of {', '.join(ROLES)}")
        return problems
    wrong_role = _CLIENT_ONLY if role == "server" else _SERVER_ONLY
    for field in sorted(wrong_role & set(entry)):
        problems.append(f"field '{field}': only for {'clients' if role == 'server' else 'servers'}")
    return problems


def _list_problems(entry):
    """The list fields hold strings only; a command, a version command or requirements must not be empty."""
    problems = []
    for field in ("command", "version", "stop", "packages", "https_args", "requires"):
        non_empty = field in ("command", "version", "requires")
        if field in entry and (not all(isinstance(x, str) for x in entry[field]) or (non_empty and not entry[field])):
            problems.append(f"field '{field}': expected a {'non-empty ' if non_empty else ''}list of strings")
    return problems


def _env_problems(entry, allowed):
    problems = []
    for name, value in entry.get("env", {}).items():
        if not isinstance(value, str):
            problems.append(f"field 'env': {name} must be a string")
        else:
            problems += _placeholder_problems(f"env.{name}", [value], allowed)
    return problems


def _result_problems(entry):
    """A client's result regexes: one for each figure its scenario reports, each with its `value` group."""
    result = entry["result"]
    problems = [f"field 'result': missing the regex for '{key}'"
                for key in sorted(RESULT_KEYS[entry["scenario"]] - set(result))]
    return problems + _regex_problems("result", result)


def _regex_problems(field, patterns):
    """Regexes over a program's output ({key: pattern}) that compile and have the group named `value` the
    figure is read from."""
    problems = []
    for key, pattern in patterns.items():
        try:
            if "value" not in re.compile(pattern, re.MULTILINE).groupindex:
                problems.append(f"field '{field}.{key}': the regex needs a group named 'value'")
        except (re.error, TypeError) as error:
            problems.append(f"field '{field}.{key}': not a regex: {error}")
    return problems


def _fanout_problems(entry, allowed):
    problems = []
    if entry["role"] == "server":
        schemes = entry.get("schemes")
        if not schemes:
            return ["field 'schemes': a fan-out server needs at least one of http, https"]
        for scheme, spec in schemes.items():
            if scheme not in SCHEMES:
                problems.append(f"field 'schemes': '{scheme}' is not one of {', '.join(SCHEMES)}")
            elif not isinstance(spec, dict) or not isinstance(spec.get("url"), str) or not isinstance(
                    spec.get("args", []), list):
                problems.append(f"field 'schemes.{scheme}': expected {{\"args\": [...], \"url\": \"...\"}}")
            else:
                problems += _placeholder_problems(f"schemes.{scheme}.url", [spec["url"]], allowed)
    else:
        conditions = entry.get("conditions")
        if not conditions:
            return ["field 'conditions': a fan-out client needs 'fresh' and/or 'reuse' (extra arguments)"]
        for condition, args in conditions.items():
            if condition not in ("fresh", "reuse"):
                problems.append(f"field 'conditions': '{condition}' is not fresh or reuse")
            elif not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                problems.append(f"field 'conditions.{condition}': expected a list of strings")
    return problems


def _placeholder_problems(field, strings, allowed):
    problems = []
    for text in strings:
        for name in _PLACEHOLDER.findall(text):
            if name in allowed or name.startswith("//"):
                continue
            hint = (" ({peer:NAME} and {peers} are gone: the write-ups' programs are targets of contestants/, "
                    "e.g. {//contestants/go:spammer})" if name.startswith("peer") else "")
            problems.append(f"field '{field}': unknown placeholder {{{name}}} (this entry may use "
                            + ", ".join("{" + p + "}" for p in sorted(allowed)) + ", {//pkg:target})" + hint)
    return problems


def added(entries, extra):
    """(`entries` with `extra`'s entries added, the entries of `extra` that replaced a different one): an entry of
    `extra` takes the place of the entry of its scenario, role and name, and the others come after, in order
    (--contestants=FILE adds its entries to the shipped registry)."""
    def key(entry):
        return entry["scenario"], entry["role"], entry["name"]

    extras = {key(e): e for e in extra}
    replaced = [extras[key(e)] for e in entries if key(e) in extras and extras[key(e)] != e]
    known = {key(e) for e in entries}
    merged = [extras.get(key(e), e) for e in entries] + [e for e in extra if key(e) not in known]
    return merged, replaced


def select(entries, only=(), skip=()):
    """Entries picked by name, scenario or system: all of them when `only` is empty, then without `skip`.
    `only=["echo"]` keeps the echo scenario; `only=["racket", "go"]` keeps those contestants in every
    scenario (a scenario needs both a server and a client to run, so name the loads too)."""
    def matches(entry, words):
        return any(w in (entry["name"], entry["scenario"], entry["system"]) for w in words)

    chosen = [e for e in entries if not only or matches(e, only)]
    return [e for e in chosen if not matches(e, skip)]


def unknown_words(entries, words):
    """The words of --only/--skip that name no contestant, scenario or system of `entries`."""
    known = {e[k] for e in entries for k in ("name", "scenario", "system")}
    return [w for w in words if w not in known]


def expand(strings, values, resolve=None):
    """`strings` with every {placeholder} filled from `values`; {//pkg:target} goes to `resolve(token)`, which
    returns a path (or raises)."""
    def fill(match):
        token = match.group(1)
        if token in values:
            return str(values[token])
        if resolve is not None and token.startswith("//"):
            return resolve(token)
        raise KeyError(f"no value for placeholder {{{token}}}")

    return [_PLACEHOLDER.sub(fill, s) for s in strings]


def missing_packages(entry):
    """The entry's Debian packages that dpkg says are not installed ([] where there is no dpkg)."""
    if not entry["packages"] or shutil.which("dpkg-query") is None:
        return []
    result = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${db:Status-Status}\n"] + entry["packages"],
                            capture_output=True, text=True)
    installed = {line.split()[0] for line in result.stdout.splitlines() if line.endswith(" installed")}
    return [p for p in entry["packages"] if p not in installed]


def unavailable(entry, resolve=None):
    """None when the entry can run here, else why not: the command that installs what it needs, or what its
    `requires` command said (a check that exits 0 where it can run: `//echo:server --model=uring --check` on a
    machine whose kernel or seccomp filter refuses io_uring exits 2 naming the cause). A {//pkg:target} in it
    goes to `resolve`, as in expand."""
    missing = missing_packages(entry)
    if missing:
        return (f"not installed: {', '.join(missing)} (tools/bootstrap.sh installs every contestant's packages, "
                f"or apt-get install {' '.join(missing)})")
    program = entry["command"][0]
    if not _PLACEHOLDER.search(program) and shutil.which(program) is None:
        return f"'{program}' is not on PATH" + (f" (apt-get install {' '.join(entry['packages'])})"
                                               if entry["packages"] else "")
    if "requires" in entry:
        try:
            argv = expand(entry["requires"], {}, resolve)
            result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        except (KeyError, OSError, subprocess.TimeoutExpired) as error:
            return f"cannot run here: its check {' '.join(entry['requires'])} failed ({error})"
        if result.returncode != 0:
            said = (result.stderr.strip() or result.stdout.strip()).splitlines()
            return f"cannot run here: {said[-1] if said else ' '.join(entry['requires']) + ' failed'}"
    return None


def version_of(entry, values, resolve=None):
    """The first line the entry's version command prints (stdout, else stderr); None when it fails. A
    {//pkg:target} in it goes to `resolve`, as in expand."""
    try:
        argv = expand(entry["version"], values, resolve)
        result = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (KeyError, OSError, ValueError, subprocess.TimeoutExpired):
        return None
    for text in (result.stdout, result.stderr):
        for line in text.splitlines():
            if line.strip():
                return line.strip()
    return None
