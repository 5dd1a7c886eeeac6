"""Tests of the run's document and its renderers (bench/reporting/document.py, markdown.py, html_report.py,
terminal.py) on the stored runs under results/data: every stored run's document (report.json) survives its JSON
and renders to the stored REPORT.md and report.html, and is what the run's samples, of every schema version, give;
rendered again from report.json alone (--rerender: its charts drawn, its summary and history made again), a named
sample of the stored runs and the newest (testing/stored_run_sample.py) give the stored files; a run's report
holds only that run's documents; the summary comes first, one row per write-up claim, with the verdict the stored
JSON has for the write-up's own load and placement; each section's Markdown is made from its data."""

import json
import os
import shutil
import tempfile
import unittest

from bench.reporting import document
from bench.reporting import html_report
from bench.reporting import markdown
from bench.reporting import report
from bench.reporting import result_schema
from bench.reporting import terminal
from bench.scenarios import catalogue
from bench.design import judging
from testing import stored_run_sample

MAIN = os.path.join(stored_run_sample.DATA, "linux-x86_64-2cpu")


def stored_verdicts(directory, part):
    """A part's stored verdicts as the suite reads them (older words in today's: old_documents)."""
    return result_schema.load(os.path.join(directory, f"{part}_writeup.json"))["verdicts"]


class StoredRunsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # As --rerender reads a run: its report.json alone.
        cls.docs = {d: document.load(os.path.join(d, document.FILE)) for d in stored_run_sample.every_run()}

    def test_there_are_stored_runs(self):
        self.assertIn(os.path.normpath(MAIN), [os.path.normpath(d) for d in self.docs])
        self.assertGreaterEqual(len(self.docs), 3)

    def test_every_stored_run_renders_and_survives_its_json(self):
        for directory, doc in self.docs.items():
            with self.subTest(directory=directory), tempfile.TemporaryDirectory() as scratch:
                path = os.path.join(scratch, document.FILE)
                document.write(path, doc)
                again = document.load(path)
                self.assertEqual(markdown.render(again), markdown.render(doc))
                self.assertEqual(html_report.render(again, directory), html_report.render(doc, directory))
                self.assertIn(doc["run"]["commit"], terminal.render(again))

    def test_every_stored_run_is_what_its_document_renders_to(self):
        # Nothing edited by hand: REPORT.md and report.html (with the charts beside them) are report.json's.
        for directory, doc in self.docs.items():
            with self.subTest(directory=directory):
                with open(os.path.join(directory, "REPORT.md")) as stored:
                    self.assertEqual(stored.read(), markdown.render(doc))
                with open(os.path.join(directory, "report.html")) as stored:
                    self.assertEqual(stored.read(), html_report.render(doc, directory))

    def test_rerendering_the_stored_document_alone_gives_the_stored_renderings(self):
        # What is checked in is what --rerender gives from report.json alone: charts drawn, the summary and the
        # history made again (the charts' bytes: charts_test.py).
        for directory in stored_run_sample.runs():
            with self.subTest(directory=directory), tempfile.TemporaryDirectory() as scratch:
                shutil.copy(os.path.join(directory, document.FILE), scratch)
                report.rerender(scratch)
                for name in ("REPORT.md", "report.html", document.FILE):
                    with open(os.path.join(directory, name)) as stored, open(os.path.join(scratch, name)) as again:
                        self.assertEqual(stored.read(), again.read(), name)

    def test_a_version_1_document_rerenders_keeping_the_charts_it_names(self):
        # netbench.report/1 had no chart data: converted on read, its charts (already drawn) are kept as named.
        directory = os.path.normpath(MAIN)
        with open(os.path.join(directory, document.FILE)) as f:
            old = json.load(f)
        old["schema"] = "netbench.report/1"
        for section in old["sections"]:
            section.pop("chart_data", None)
        with tempfile.TemporaryDirectory() as scratch:
            document.write(os.path.join(scratch, document.FILE), old)
            doc = report.rerender(scratch)
            self.assertEqual(doc["schema"], document.SCHEMA)
            charts_folder = os.path.join(scratch, "charts")  # the sections' charts: nothing drawn, nothing removed
            self.assertEqual(os.listdir(charts_folder) if os.path.exists(charts_folder) else [], ["verdicts.svg"])
            with open(os.path.join(directory, "REPORT.md")) as stored, open(os.path.join(scratch, "REPORT.md")) as f:
                self.assertEqual(stored.read(), f.read())

    def test_the_stored_document_is_the_one_its_samples_give(self):
        # Nothing stale: the run's samples, and what report.json said of how the run placed its programs (which
        # the samples do not say), give the stored document, its charts aside (charts_test.py draws them).
        for directory, stored in self.docs.items():
            with self.subTest(directory=directory):
                doc = json.loads(document.to_json(document.read_run(directory, catalogue.ALL, previous=stored)))
                stored = json.loads(document.to_json(stored))
                for section in stored["sections"]:
                    section["charts"] = []
                for row in stored["summary"]:  # the earlier runs' count: attached from other runs' folders
                    row.pop("earlier", None)
                self.assertEqual(doc["sections"], stored["sections"])
                self.assertEqual(doc["summary"], stored["summary"])

    def test_each_section_keeps_every_stored_verdict_in_its_order(self):
        for directory, doc in self.docs.items():
            for section in doc["sections"]:
                if section["kind"] != "writeup":
                    continue
                with self.subTest(directory=directory, section=section["id"]):
                    stored = stored_verdicts(directory, section["id"])
                    self.assertCountEqual([v["claim"] for v in section["verdicts"]], [v["claim"] for v in stored])
                    for line in section["verdicts"]:
                        self.assertIn(line, stored)

    def test_the_summary_has_one_row_per_claim_with_the_headline_verdict(self):
        doc = self.docs[next(d for d in self.docs if os.path.normpath(d) == os.path.normpath(MAIN))]
        questions = [row["question"] for row in doc["summary"]]
        self.assertEqual(len(questions), len(set(questions)))
        echo = stored_verdicts(MAIN, "echo")
        headline = next(v for v in echo if v.get("placement") == "shared" and v["a"]["client"] == "go-spammer"
                        and v["a"]["server"] == "racket" and v["figure"] == "msgs_per_s")
        row = next(r for r in doc["summary"] if r["question"] == "Racket beats Go in msgs/s")
        self.assertEqual(row["verdict"], headline["verdict"])
        self.assertEqual((row["a"], row["b"]), ("racket", "go"))
        self.assertEqual(row["under"], "shared, go-spammer")
        self.assertIn("(of 3)", row["others"])
        # The stored fan-out ran the JDK's HttpClient as "jvm": its lines are kept as the older claims they are,
        # one row, not matched to today's claims of the same cells.
        fanout = [r["question"] for r in doc["summary"] if r["section"] == "fanout"]
        self.assertEqual(fanout, [f"Fan-out: {judging.OLDER_CLAIMS}"])

    def test_a_report_holds_only_its_own_runs_documents(self):
        doc = self.docs[next(d for d in self.docs if os.path.normpath(d) == os.path.normpath(MAIN))]
        commits = {doc["run"]["commit"]}
        for section in doc["sections"]:
            with open(os.path.join(MAIN, section["source"])) as f:
                commits.add(json.load(f)["environment"]["git_commit"])
        self.assertEqual(commits, {doc["run"]["commit"]})
        self.assertTrue(doc["other_documents"])  # the older detail benches stored in the same folder
        text = markdown.render(doc)
        for other in doc["other_documents"]:
            self.assertNotIn(f"## {other['file'][:-len('.json')]}", text)

    def test_the_summary_comes_first_and_the_methodology_once_at_the_end(self):
        for directory, doc in self.docs.items():
            text = markdown.render(doc)
            with self.subTest(directory=directory):
                lines = text.splitlines()
                first_verdict = next(i for i, line in enumerate(lines) if "**" in line and line.startswith("| ["))
                self.assertLess(first_verdict, 15)
                self.assertEqual(text.count("## How to read this report"), 1)
                self.assertGreater(text.index("## How to read this report"), text.index("## 1. "))
                run_line = f"Run {doc['run']['time']}, commit {doc['run']['commit']}"
                self.assertEqual(text.count(run_line), 1)  # which run it is: once, at the top
                self.assertTrue(lines[2].startswith(run_line), lines[2])
                self.assertNotIn("the issue", text.lower())


class SectionFromDataTest(unittest.TestCase):
    """The Markdown of a section comes from its data: change the data, the text follows; nothing is spliced."""

    def section(self):
        return {"id": "echo", "kind": "writeup", "title": "Echo: does Racket beat Go?", "claim": "Racket wins.",
                "measured": "3 connections.", "placements": [], "run": {"quick": True},
                "verdicts": [{"claim": "Racket beats Go", "verdict": "holds", "median_a": 2.0, "median_b": 1.0,
                              "ratio": 2.0, "figure": "msgs_per_s", "a": {"server": "racket"},
                              "b": {"server": "go"}}],
                "claims": [{"question": "Racket beats Go", "headline": 0, "others": []}],
                "where": [{"placement": "shared", "variant": "go-spammer"}],
                "tables": [{"caption": "The table", "columns": ["server", "msgs/s"], "rows": [["racket", "2"]]}],
                "charts": [{"path": "charts/echo_writeup_rate.svg", "alt": "Echo rate"}], "notes": ["A note."],
                "failures": [], "contestants": [{"name": "racket", "role": "server", "status": "ran",
                                                 "version": "8.7", "command": "racket echo.rkt"}]}

    def test_every_part_of_a_section_is_rendered_from_its_fields(self):
        text = markdown.section(self.section(), 1)
        order = ["## 1. Echo: does Racket beat Go?", "> Racket wins.", "Quick smoke run", "Measured here: 3",
                 "| Racket beats Go | **holds** | 2 vs 1 |", "The table\n", "| racket | 2 |",
                 "![Echo rate](charts/echo_writeup_rate.svg)", "A note.", "| racket | server | ran | 8.7 |"]
        positions = [text.index(part) for part in order]
        self.assertEqual(positions, sorted(positions))

    def test_a_pipe_in_the_data_does_not_break_a_table(self):
        section = self.section()
        section["tables"][0]["rows"] = [["a | b", "2"]]
        self.assertIn("| a \\| b | 2 |", markdown.section(section))

    def test_the_summary_row_and_the_page_say_the_same_verdict(self):
        doc = document.new({"git_commit": "abc", "timestamp_utc": "2026-12-03T00:00:00Z"}, "test", [self.section()])
        (row,) = doc["summary"]
        self.assertEqual((row["verdict"], row["a"], row["b"], row["under"]), ("holds", "racket", "go",
                                                                              "shared, go-spammer"))
        page = html_report.render(doc, tempfile.gettempdir())
        self.assertIn('data-verdict="holds"', page)
        self.assertIn("(chart not drawn: Echo rate)", page)  # no file: said, not a broken image
        self.assertNotIn("http://", page.replace("http://www.w3.org", ""))  # nothing fetched from a network
        lines = terminal.render(doc).splitlines()
        self.assertTrue(any(line.strip().startswith(row["question"][:40]) and "holds" in line for line in lines))
        self.assertIn("judged at 5% on its own", " ".join(line.strip() for line in lines))


if __name__ == "__main__":
    unittest.main()
