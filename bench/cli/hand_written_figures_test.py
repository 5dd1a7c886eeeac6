"""README.md and the pages of docs/ quote no measured figure that a program did not write.

A result goes stale the day it is typed: the next run, a new machine or a changed contestant moves it, and
nothing checks prose. So every measured figure a reader sees is written by the suite (`--history` writes
README.md's answer and its sample; a study writes its own page) between markers, and this test reads the
rest of each page for figures that look measured:

- an interval ("0.831 .. 0.952"),
- a ratio or a factor ("0.89", "1.29x"),
- a rate or a per-message cost ("699,906 msg/s", "2.1 µs per message"),
- a share with decimals ("7.4%"), a count of rounds or runs ("30 of 75 rounds", "after 251 rounds").

Settings are not measured: the margin (±5%), the error rate (5%), a default (4 s, 20,000 messages) are
written as the settings they are and match none of the patterns above; the few constants that look like a
ratio (0.05, 0.95, 1.05) are listed in SETTINGS. A quotation of a write-up's own argument in double quotes
("Go websockets lose 100k msgs/s") is the question, not a result, and is left out. Generated blocks are
those between a line "<!-- ... written by `COMMAND` -->" and the next "<!-- end ... -->". Code blocks count:
a sample of output typed by hand is a hand-written result too.

    /usr/bin/python3 bench/cli/hand_written_figures_test.py --list   # every figure found, by page and line
"""

import glob
import os
import re
import sys
import unittest

PATTERNS = {
    "interval": re.compile(r"\b\d+(?:\.\d+)?\s*\.\.\s*\d+(?:\.\d+)?\b"),
    "factor": re.compile(r"\b\d+(?:\.\d+)?\s?[x×](?![\w-])"),
    "ratio": re.compile(r"(?<![\w.=/+-])[0-2]\.\d{2,}(?![\d%])"),
    "rate": re.compile(r"\b\d[\d,]*(?:\.\d+)?\s?[kM]?\s?(?:msgs?|messages|requests|req|GETs|ops)(?:/s| per second)"
                       r"|\b\d[\d,]*(?:\.\d+)?\s?(?:ns|µs|us|ms|s) (?:per|of CPU per) (?:message|request|GET)"),
    "share": re.compile(r"\b\d+\.\d+\s?%"),
    "count": re.compile(r"\b\d+ (?:of|out of) \d+ (?:rounds|runs|lines|claims|rows|pairs)\b"
                        r"|\b(?:after|over|from|took|spent|needed|needs) (?:about )?\d+(?:-\d+)? (?:rounds|runs)\b"),
}

# Constants of the method that read like ratios: the error rate, its complement, the margin's bounds.
SETTINGS = {"0.05", "0.95", "1.05", "0.025", "0.975"}

# A quotation may run over a line break, not over a paragraph's.
QUOTED = re.compile(r"\"(?:[^\"\n]|\n(?!\s*\n))*\"|“[^”]*”")
BEGIN = re.compile(r"<!--.*\bwritten by\b.*-->")
END = re.compile(r"<!--\s*end\b.*-->")


def pages(root):
    """README.md and the pages directly under docs/ (dated notes under docs/notes/ are records of their day)."""
    return [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))


def _setting(figure):
    """Whether `figure` is a constant of the method: one of SETTINGS, or an interval between two of them."""
    return all(end.strip().lstrip("1/") in SETTINGS or end.strip() in SETTINGS for end in figure.split(".."))


def figures(text):
    """[(line number, kind, the figure)] of `text` outside its generated blocks and its double quotes; a
    number inside a figure already found (the ends of an interval) is not found again."""
    unquoted = QUOTED.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    found, generated = [], False
    for number, line in enumerate(unquoted.splitlines(), 1):
        if generated:
            generated = not END.search(line)
            continue
        if BEGIN.search(line):
            generated = True
            continue
        taken = []
        for kind, pattern in PATTERNS.items():
            for match in pattern.finditer(line):
                if _setting(match.group(0)) or any(a <= match.start() < b for a, b in taken):
                    continue
                taken.append(match.span())
                found.append((number, kind, match.group(0)))
    return found


def _read(path):
    with open(path) as f:
        return f.read()


def _repo_root():
    from bench.base import checkout
    return checkout.repo_root()


class HandWrittenFiguresTest(unittest.TestCase):
    def test_no_page_quotes_a_measured_figure_outside_a_generated_block(self):
        root = _repo_root()
        found = [f"{os.path.relpath(page, root)}:{number}: {kind} {figure!r}"
                 for page in pages(root) for number, kind, figure in figures(_read(page))]
        self.assertEqual(found, [], "measured figures written by hand; let a program write them (a generated "
                                    "block, a study's page) or link to the stored run:\n" + "\n".join(found))

    def test_each_kind_of_figure_is_found(self):
        text = ("Racket/Go 0.89 (0.831 .. 0.952), Go's default 1.29x; 699,906 msg/s; 2.1 µs per message;\n"
                "no difference above 7.4%; steal above 5% in 30 of 75 rounds, decided after 251 rounds\n")
        self.assertEqual({kind for _, kind, _ in figures(text)}, set(PATTERNS))

    def test_settings_quotations_and_generated_blocks_are_not_figures(self):
        text = ("Each family is wrong at most 5% of the time, at least 3 rounds, within ±5% (0.95 .. 1.05, the\n"
                "margin's bounds), 0.5 .. 2, 4-s runs, 20,000 messages, `--budget=30m`, \"Go websockets\n"
                "lose 100k msgs/s\"\n"
                "<!-- the answer: written by `bazel run //:bench -- --history` -->\n"
                "Racket/Go 0.89 (0.831 .. 0.952)\n"
                "<!-- end of the answer -->\n")
        self.assertEqual(figures(text), [(2, "interval", "0.5 .. 2")])
        self.assertEqual(figures("a \"quotation\n\nis 0.89\" at most a paragraph\n"), [(3, "ratio", "0.89")])


if __name__ == "__main__":
    if sys.argv[1:] == ["--list"]:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        root = _repo_root()
        for page in pages(root):
            for number, kind, figure in figures(_read(page)):
                print(f"{os.path.relpath(page, root)}:{number}: {kind} {figure}")
        sys.exit(0)
    unittest.main()
