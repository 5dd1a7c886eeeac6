"""What a question of a claim file may ask of each scenario, as docs/your-own-claims.md lists it: the figures it
measures (claim_files.FIGURES: which way is better, and the words a question gets where it gives none) and its
load's settings with their defaults (the write-ups' files, bench/registry/writeups/*.toml, and the flag of the
main job that changes each), written between the page's markers by `bazel run //:bench -- --history` so that
the page never lists a default the files no longer have (question_reference_test fails when it does).

    text = question_reference.with_block(page_text)
"""

import os
import textwrap

from bench.base import checkout
from bench.base import generated_block
from bench.scenarios import claim_files
from bench.scenarios import writeup_definitions

PAGE = os.path.join("docs", "your-own-claims.md")
COMMAND = "`bazel run //:bench -- --history`"
BEGIN = f"<!-- each scenario's figures and settings: written by {COMMAND} -->"
END = "<!-- end of each scenario's figures and settings -->"
WIDTH = 120


def _setting(name, value, flags):
    flag = flags.get(name)
    return f"`{name} = {value!r}`" + (f" (`--{flag.replace('_', '-')}`)" if flag else "")


def lines():
    """The block: per scenario, its load's settings and their defaults, then each figure (its default first)
    with which way is better and the question's default words; no line wider than WIDTH."""
    out = []
    for definition in (writeup_definitions.ECHO, writeup_definitions.WEBSOCKET, writeup_definitions.FANOUT):
        scenario = definition.name
        settings = claim_files.writeup(scenario).settings
        said = ", ".join(_setting(k, v, definition.flags) for k, v in settings.items())
        out += _wrapped(f"- **{scenario}**: its load's settings (their defaults) {said}; its figures:", "  ")
        for index, (figure, spec) in enumerate(claim_files.FIGURES[scenario].items()):
            words = claim_files.claim_text({"server": "A"}, {"server": "B"}, spec, spec[0], "LOAD")
            out += _wrapped(f"  - `{figure}`{' (the default)' if index == 0 else ''}: {spec[0]} is better; by "
                            f"default \"{words}\"", "    ")
    return out


def _wrapped(text, indent):
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)


def with_block(text):
    """`text` (docs/your-own-claims.md) with its block set to `lines()`."""
    return generated_block.replaced(text, BEGIN, END, lines(), f"{PAGE}'s figures and settings")


def page():
    return os.path.join(checkout.repo_root(), PAGE)
