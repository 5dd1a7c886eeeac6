"""A server given as a command line (`--versus="python3 $PWD/my_server.py {port}",go`) as a registry entry like
any other: the same fields, checked by the same validation (registry.validate), so that whatever runs it never
knows it came from a command line.

    entry = command_line.server_entry("python3 my_server.py {port}", "echo", folder="/home/me")
    entry["name"]      # "my_server": command_line.name_of's rule
    entry["command"]   # ["python3", "/home/me/my_server.py", "{port}"]: no `ready`, so ready once {port} accepts

The command is split as a POSIX shell splits words (shlex), with no shell run; {port} (and {host}, and the
scenario's other server placeholders) are filled per run. Its version is the SHA-256 of the file that names it,
so that a report says which version of a script ran and a comparison of two runs sees it change.
"""

import os
import re
import shlex
import shutil

from bench.registry import registry

# A fan-out server is fetched at its root over plain HTTP, as the registry's origins are.
_FANOUT_SCHEMES = {"http": {"args": [], "url": "http://{host}:{port}/"}}


def is_command(side):
    """Whether a --versus side is a command line rather than a registry name: it holds a placeholder, a space or
    a '/' (a registry name holds none of them)."""
    return "{" in side or "/" in side or any(c.isspace() for c in side)


def argv_of(text, folder=None):
    """The command line's words, split as a POSIX shell would, each relative path that names a file in `folder`
    (the folder the command was typed in) made absolute, since the suite starts servers elsewhere;
    RegistryError naming the text where it does not split (an unclosed quote)."""
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise registry.RegistryError(f"the command line {text!r}: {error}") from None
    if folder is None:
        return argv
    return [os.path.join(folder, word) if "{" not in word and not os.path.isabs(word)
            and os.path.isfile(os.path.join(folder, word)) else word for word in argv]


def naming_file(argv):
    """The file a command line is named by: the first word after the program that names a file (the script of
    `python3 /x/my_server.py {port}`, the jar of `java -jar /x/server.jar {port}`), else the program itself
    (`/opt/bin/echo-server --port={port}`); a word with a placeholder names none."""
    for word in argv[1:]:
        if "{" not in word and os.path.isfile(word):
            return word
    return argv[0]


def name_of(argv):
    """The registry name a command line gets: its naming file's name without folder and extension, in the
    registry's letters (lower case; any other character a '-')."""
    stem = os.path.splitext(os.path.basename(naming_file(argv).rstrip("/")))[0]
    name = re.sub(r"[^a-z0-9._-]", "-", stem.lower()).lstrip("._-")
    return name or "command"


def _version(argv):
    """The command that prints the naming file's SHA-256 (coreutils' sha256sum): a script's version is its
    contents. A program found on PATH is hashed where it lies."""
    path = naming_file(argv)
    if not os.path.isfile(path):
        path = shutil.which(path) or path
    return ["sha256sum", os.path.abspath(path) if os.path.isfile(path) else path]


def server_entry(text, scenario, name=None, folder=None):
    """The registry server entry of the command line `text` in `scenario`, named `name` (default: name_of's),
    its relative paths taken from `folder` (argv_of); RegistryError naming the command line and the field where
    it is no valid server of that scenario: no {port}, a placeholder the scenario's servers do not take, a name
    outside the registry's letters."""
    argv = argv_of(text, folder)
    if not argv:
        raise registry.RegistryError("an empty command line")
    if not any("{port}" in word for word in argv):
        raise registry.RegistryError(f"the command line {text!r} has no {{port}}: put it where the server takes its "
                                     "port (and {host} where it takes its address), so that it can be started and "
                                     "waited on")
    entry = {"name": name or name_of(argv), "system": "yours", "scenario": scenario, "role": "server",
             "about": f"the command line {text}", "command": argv, "version": _version(argv), "packages": []}
    if scenario == "fanout":
        entry["schemes"] = _FANOUT_SCHEMES
    return registry.validate({"contestants": [entry]}, path=f"the command line {text!r}")[0]
