"""--versus's sides: each a registry server's name or a command line with {port}, which becomes a registry server
entry of the other side's scenario (bench/registry/command_line.py; echo, or --scenario, where both are command
lines); and the check, before anything runs, that each command line starts and listens.

    sides = versus_sides.resolve("python3 /x/my_server.py {port},go", entries)
    sides.names     # ("my_server", "go"): the registry names the question compares
    sides.made      # (the server entry made of the command line,): added to the run's registry
    why = versus_sides.refusal(sides.made)   # None, or the command line that does not listen and what it did
"""

import dataclasses

from bench.registry import command_line
from bench.registry import registry
from bench.running import contest

LETTERS = ("a", "b")
# The scenario of a question whose sides are both command lines, where --scenario does not name one.
DEFAULT_SCENARIO = "echo"


class SideError(ValueError):
    """A --versus side (or --scenario, --name-a, --name-b) that names no server: the message says which flag."""


@dataclasses.dataclass(frozen=True)
class Sides:
    """The registry names of the question's sides, in order, and the server entries made of command lines."""
    names: tuple
    made: tuple


def _plausible(side):
    """A side as it may stand: a registry name, or a command line with {port}."""
    return bool(side) and ("{port}" in side if command_line.is_command(side) else "," not in side)


def split(text):
    """The two sides of --versus=A,B, split at the comma that leaves each a registry name or a command line with
    {port} (a command line may hold commas of its own); SideError where no one comma, or several, do."""
    pieces = text.split(",")
    splits = [[",".join(pieces[:i]).strip(), ",".join(pieces[i:]).strip()] for i in range(1, len(pieces))]
    if len(splits) > 1:
        splits = [s for s in splits if all(_plausible(side) for side in s)]
    if len(splits) != 1 or not all(splits[0]):
        raise SideError(f"--versus={text}: expected two sides, A,B: each a registry server's name or a command line "
                        "with {port}")
    return splits[0]


def _scenario_of(name, entries, scenario):
    """The scenario of the registry server `name` (None where the registry has none: the question says so, with
    the choices); SideError where --scenario names another."""
    scenarios = [e["scenario"] for e in entries if e["role"] == "server" and e["name"] == name]
    if not scenarios or scenario is None:
        return scenarios[0] if scenarios else None
    if scenario not in scenarios:
        raise SideError(f"--scenario={scenario}: {name} is a server of the {' and '.join(scenarios)} scenario, and a "
                        "registry side's scenario is the question's: leave --scenario out, or name a "
                        f"{scenario} server")
    return scenario


def _names(sides, given, taken, folder):
    """Each side's registry name: a registry side's own; a command line's `given` (--name-a, --name-b) or its
    program's (command_line.name_of), with its side's letter added where the other side or a registry server
    `taken` has that name already."""
    proposed = [side if not command_line.is_command(side)
                else name or command_line.name_of(command_line.argv_of(side, folder))
                for side, name in zip(sides, given)]
    names = []
    for index, (letter, side, name) in enumerate(zip(LETTERS, sides, given)):
        own, others = proposed[index], proposed[:index] + proposed[index + 1:]
        if command_line.is_command(side) and not name and (own in taken or own in others):
            own = f"{own}-{letter}"
        elif command_line.is_command(side) and own in taken:
            raise SideError(f"--name-{letter}={name}: the registry has a server of that name; choose another")
        names.append(own)
    return tuple(names)


def resolve(text, entries, scenario=None, given=(None, None), folder=None):
    """The Sides of --versus=`text` over the registry `entries`: each command line a server entry of the registry
    side's scenario (else `scenario`, else DEFAULT_SCENARIO), named by `given` (--name-a, --name-b) or its
    program, its relative paths taken from `folder`; SideError naming the flag where a side cannot be one."""
    sides = split(text)
    for letter, side, name in zip(LETTERS, sides, given):
        if name and not command_line.is_command(side):
            raise SideError(f"--name-{letter}={name} names a command line's side, and side {letter} is the "
                            f"registry's {side}")
    found = [_scenario_of(side, entries, scenario) for side in sides if not command_line.is_command(side)]
    chosen = scenario or next((s for s in found if s), DEFAULT_SCENARIO)
    try:
        taken = {e["name"] for e in entries if e["role"] == "server" and e["scenario"] == chosen}
        names = _names(sides, given, taken, folder)
        made = tuple(command_line.server_entry(side, chosen, name, folder)
                     for side, name in zip(sides, names) if command_line.is_command(side))
    except registry.RegistryError as error:
        raise SideError(f"--versus: {error}") from None
    return Sides(names, made)


def refusal(made):
    """None when every entry of `made` starts here and accepts a connection on its port (within
    contest.LISTEN_S), else why the first that does not cannot be run: its command line and what it did."""
    for entry in made:
        runner = contest.Runner()
        why = runner.unavailable(entry)
        if why is None:
            try:
                runner.start_server(entry)
            except contest.Failure as failure:
                why = str(failure) + (f"; it printed last:\n{failure.tail}" if failure.tail else "")
            finally:
                runner.stop_all()
        if why:
            return f"bench: --versus: {entry['about']} ({entry['name']}) cannot be run: {why}"
    return None
