"""The closing summary (terminal.py) as a reader meets it: no word cut at any width (a long claim wraps within
its column; where the columns do not fit, the last one goes), every claim under its write-up's title, a claim
that was not measured says why on its own line, and a run of a user's own questions speaks of them, not of the
write-ups."""

import unittest

from bench.reporting import document
from bench.reporting import terminal

# The families as the run's error control states them (bench/design/error_control.py's statement).
WRITEUPS = "the write-ups' own claims, under their own load, server and placement (the summary's lines)"
YOURS = "your questions, each under its load (the summary's lines)"
LONG = "JVM (the http-kit-design client) faster than Go fetching 500 URLs (origin 50 ms) and some more words"


def section(part, title, claims):
    """A write-up section of `claims`: [(question, verdict line)], each its own headline, its line shared."""
    return {"id": part, "kind": "writeup", "title": title, "claim": "", "measured": "", "placements": [],
            "verdicts": [line for _, line in claims],
            "claims": [{"question": q, "headline": i, "others": []} for i, (q, _) in enumerate(claims)],
            "where": [{"placement": "shared", "variant": "load"} for _ in claims], "tables": [], "charts": [],
            "notes": [], "failures": [], "contestants": []}


def line(verdict, **more):
    return {"claim": "c", "verdict": verdict, "median_a": 2.0, "median_b": 1.0, "ratio": 2.0, "figure": "msgs_per_s",
            "a": {"server": "a"}, "b": {"server": "b"}, "design": "sequential",
            "sequence": {"rounds": 12, "median_ratio": 2.0, "interval": [1.5, 2.5], "bounded": True,
                         "outcome": verdict, "level": 0.975}, **more}


def run_of(sections, words=WRITEUPS):
    doc = document.new({"git_commit": "abc", "timestamp_utc": "2026-12-03T00:00:00Z"}, "test", sections)
    claims = sum(len(s["claims"]) for s in sections)
    doc["run"]["family"] = {"claims": claims, "alpha": 0.05, "families": {"summary": {"claims": claims,
                                                                                      "what": words}}}
    for row in doc["summary"]:
        row["others"] = "1 open; 2 same configuration here (of 3)"
    return doc


class TerminalTest(unittest.TestCase):
    def setUp(self):
        self.doc = run_of([
            section("echo", "Echo: does Racket beat Go?", [("Racket beats Go in msgs/s", line("holds"))]),
            section("fanout", "Fan-out: does the JVM fetch 500 URLs faster than Go?", [(LONG, line("reversed"))])])

    def test_no_word_is_cut_at_120_columns_and_the_last_column_goes(self):
        text = terminal.render(self.doc, "x/REPORT.md", width=120)
        self.assertNotIn("…", text)
        self.assertEqual([ln for ln in text.splitlines() if len(ln) > 120], [])
        words = text.split()
        self.assertTrue(all(word in words for word in LONG.split()), "the long claim, wrapped, whole")
        self.assertNotIn("under other conditions", text)
        self.assertNotIn("same configuration here (of 3)", text)

    def test_a_wide_terminal_keeps_every_column(self):
        text = terminal.render(self.doc, width=200)
        self.assertIn("under other conditions", text)
        self.assertIn("1 open; 2 same configuration here (of 3)", text)

    def test_every_claim_sits_under_its_write_ups_title(self):
        lines = terminal.render(self.doc, width=120).splitlines()
        at = {key: next(i for i, ln in enumerate(lines) if key in ln) for key in
              ("Echo: does Racket beat Go?", "Racket beats Go in msgs/s", "Fan-out: does the JVM", "JVM (the http")}
        self.assertLess(at["Echo: does Racket beat Go?"], at["Racket beats Go in msgs/s"])
        self.assertLess(at["Racket beats Go in msgs/s"], at["Fan-out: does the JVM"])
        self.assertLess(at["Fan-out: does the JVM"], at["JVM (the http"])

    def test_a_claim_not_measured_says_why(self):
        why = "netbench-uring skipped: io_uring is disabled here (kernel.io_uring_disabled = 2)"
        missing = {"claim": "c", "verdict": "not measured", "why": why, "a": {"server": "netbench-uring"},
                   "b": {"server": "go"}, "figure": "msgs_per_s"}
        doc = run_of([section("your-echo", "Your claims: echo", [("uring beats go", missing)])],
                     YOURS)
        self.assertIn(why, " ".join(terminal.render(doc, width=120).split()))

    def test_a_run_of_your_questions_speaks_of_them_not_of_the_write_ups(self):
        doc = run_of([section("your-echo", "Your claims: echo", [("mine beats go", line("holds"))])],
                     YOURS)
        text = terminal.render(doc, width=120)
        self.assertIn("your question, under its load (shared placement)", text)
        self.assertIn("your questions", text)
        self.assertNotIn("write-up", text)
        self.assertIn("claim, as its write-up ran it", terminal.render(self.doc, width=120))
        self.assertEqual(document.summary_words(doc)[0], "Summary: your questions on this run")


if __name__ == "__main__":
    unittest.main()
