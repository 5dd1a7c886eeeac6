"""Tests of the report's charts (bench/reporting/charts.py) on the stored runs under results/data: every stored
run's charts folder holds the charts its report names and no others, each well-formed SVG; and, drawn from each
run's document (report.json) alone, for a named sample of the stored runs and the newest
(testing/stored_run_sample.py), every section with chart data gets its charts, each a well-formed SVG that names
every contestant it shows, the same document gives the same bytes, and they are the stored charts. (The report
names them from its document: document_test.py.)"""

import json
import os
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

from bench.reporting import chart_data
from bench.reporting import charts
from bench.reporting import document
from testing import stored_run_sample

SVG = "{http://www.w3.org/2000/svg}"


def draw(doc, directory, out=None):
    """{source document's stem: [(chart path, alt)]} of `doc`'s sections with chart data, drawn into `out`."""
    charts.draw(doc, directory, out)
    return {s["source"][:-len(".json")]: [(c["path"], c["alt"]) for c in s["charts"]]
            for s in doc["sections"] if s.get("chart_data")}


def stored_document(directory):
    return document.load(os.path.join(directory, document.FILE))


def one_section(name, stored):
    """A document of one section charted from the stored-looking document `stored` (file stem `name`)."""
    return {"sections": [{"id": name, "source": f"{name}.json", "chart_data": chart_data.of(name, stored)}]}


def load(directory, section):
    with open(os.path.join(directory, f"{section}.json")) as f:
        return json.load(f)


def names_shown(section, document):
    """The contestants (servers, clients, loads, targets, binaries) a section's charts must name."""
    if section.endswith("_writeup"):
        return {row[key] for row in document["rows"] for key in ("server", "client")}
    if section == "httpfanout_bench":
        return {case[key] for case in document["cases"] for key in ("target", "client")}
    if section == "microbenchmarks":
        return set()  # one panel per binary with size families, named by test_microbenchmarks_name_their_binaries
    return {row[key] for row in document["cases"] for key in ("server", "load")}


def svg_text(path):
    """Every text of the SVG (it keeps text as text), and fails the test if it is not well-formed XML."""
    root = ElementTree.parse(path).getroot()
    assert root.tag == f"{SVG}svg", root.tag
    return "\n".join("".join(element.itertext()) for element in root.iter(f"{SVG}text"))


def named_charts(doc):
    """[{path, alt}] of every chart `doc` names: its sections' and the summary's."""
    return [c for s in doc["sections"] for c in s["charts"]] + [c for c in [doc.get("summary_chart")] if c]


class StoredChartsTest(unittest.TestCase):
    def test_every_stored_run_holds_the_charts_its_report_names_and_no_others(self):
        runs = stored_run_sample.every_run()
        self.assertTrue(runs, f"no {document.FILE} under {stored_run_sample.DATA}")
        for directory in runs:
            named = named_charts(stored_document(directory))
            with self.subTest(run=directory):
                self.assertEqual(sorted(os.listdir(os.path.join(directory, charts.CHARTS_FOLDER))),
                                 sorted(os.path.basename(c["path"]) for c in named))
            for chart in named:
                with self.subTest(run=directory, chart=chart["path"]):
                    self.assertTrue(chart["alt"])
                    svg_text(os.path.join(directory, chart["path"]))


class ChartsOfStoredRunsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory()
        # matplotlib keeps its font cache under MPLCONFIGDIR; the test's HOME may not be writable.
        os.environ.setdefault("MPLCONFIGDIR", os.path.join(cls.scratch.name, "matplotlib"))
        cls.runs = stored_run_sample.runs()
        cls.drawn = {}
        for index, directory in enumerate(cls.runs):
            out = os.path.join(cls.scratch.name, f"run{index}")
            cls.drawn[directory] = (out, draw(stored_document(directory), directory, out))

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def test_there_is_a_stored_run(self):
        self.assertTrue(self.runs, f"no {document.FILE} under {stored_run_sample.DATA}")

    def test_every_section_with_results_gets_charts_that_are_well_formed_svg(self):
        for directory, (out, drawn) in self.drawn.items():
            for section in drawn:
                with self.subTest(run=directory, section=section):
                    self.assertTrue(drawn.get(section), f"{section} drew nothing")
                    for path, alt in drawn[section]:
                        self.assertTrue(alt)
                        svg_text(os.path.join(out, os.path.basename(path)))

    def test_every_chart_names_every_contestant_of_its_section(self):
        for directory, (out, drawn) in self.drawn.items():
            for section, section_charts in drawn.items():
                names = names_shown(section, load(directory, section))
                for path, _ in section_charts:
                    if path.endswith(("_steal.svg", "_run_length.svg")):  # the machine's steal, the stored study
                        continue
                    text = svg_text(os.path.join(out, os.path.basename(path)))
                    if path.endswith("_latency.svg"):  # only the loads that measure latency have panels
                        document = load(directory, section)
                        names = {r["server"] for r in document["cases"]}
                    if path.endswith("_series.svg"):  # a typical run of each side of the first throughput claim
                        line = next(v for v in load(directory, section)["verdicts"]
                                    if v.get("figure") == "steady_msgs_per_s")
                        names = {line["a"]["server"], line["b"]["server"]}
                    for name in sorted(names):
                        with self.subTest(chart=os.path.basename(path), name=name):
                            self.assertIn(name, text)

    def test_titles_say_which_machine_and_run(self):
        for directory, (out, drawn) in self.drawn.items():
            for section, section_charts in drawn.items():
                env = load(directory, section)["environment"]
                for path, _ in section_charts:
                    text = svg_text(os.path.join(out, os.path.basename(path)))
                    self.assertIn(env["cpu_model"], text)
                    self.assertIn(env["git_commit"], text)

    def test_the_fanout_charts_mark_the_50ms_floor(self):
        for directory, (out, drawn) in self.drawn.items():
            for path, _ in drawn.get("fanout_writeup", []) + drawn.get("httpfanout_bench", []):
                if path.endswith("_steal.svg"):  # the machine's steal per round, not a fan-out's time
                    continue
                self.assertIn("50 ms: the origin's answer delay", svg_text(os.path.join(out, os.path.basename(path))))

    def test_microbenchmarks_name_their_binaries(self):
        for directory, (out, drawn) in self.drawn.items():
            for path, _ in drawn.get("microbenchmarks", []):
                text = svg_text(os.path.join(out, os.path.basename(path)))
                self.assertIn("//websocket:mask_benchmark", text)
                self.assertIn("MaskCopyWith/avx2", text)

    def test_the_charts_are_the_stored_ones(self):
        # What is checked in is what --rerender draws from the stored document: nothing stale.
        for directory, (out, drawn) in self.drawn.items():
            for section_charts in drawn.values():
                for path, _ in section_charts:
                    with self.subTest(chart=path), open(os.path.join(out, os.path.basename(path)), "rb") as new, \
                            open(os.path.join(directory, charts.CHARTS_FOLDER, os.path.basename(path)), "rb") as old:
                        self.assertEqual(new.read(), old.read())

    def test_the_same_document_gives_the_same_bytes(self):
        for directory, (out, drawn) in self.drawn.items():
            again = os.path.join(self.scratch.name, "again")
            redrawn = draw(stored_document(directory), directory, again)
            self.assertEqual({section: [(os.path.basename(path), alt) for path, alt in section_charts]
                              for section, section_charts in drawn.items()},
                             {section: [(os.path.basename(path), alt) for path, alt in section_charts]
                              for section, section_charts in redrawn.items()})
            for section_charts in drawn.values():
                for path, _ in section_charts:
                    name = os.path.basename(path)
                    with open(os.path.join(out, name), "rb") as first, open(os.path.join(again, name), "rb") as second:
                        self.assertEqual(first.read(), second.read(), f"{name} differs between two renderings")


class DrawTest(unittest.TestCase):
    def test_charts_no_section_gives_any_more_are_removed_and_others_kept(self):
        with tempfile.TemporaryDirectory() as directory:
            out = os.path.join(directory, charts.CHARTS_FOLDER)
            os.makedirs(out)
            for name in ("gone_part_rate.svg", "notes.txt"):
                with open(os.path.join(out, name), "w") as f:
                    f.write("<svg/>")
            drawn = draw(one_section("echo_writeup", load(stored_run_sample.runs()[0], "echo_writeup")), directory)
            self.assertEqual(list(drawn), ["echo_writeup"])
            self.assertEqual(sorted(os.listdir(out)), ["echo_writeup_cpu.svg", "echo_writeup_rate.svg", "notes.txt"])
            self.assertEqual([path for path, _ in drawn["echo_writeup"]],
                             ["charts/echo_writeup_rate.svg", "charts/echo_writeup_cpu.svg"])


    def test_failed_runs_leave_gaps_not_errors(self):
        """A smoke run of one round where one server failed every run, and a fan-out where every run failed."""
        env = {"cpu_model": "Test CPU", "cores": 2, "os": "Linux", "kernel": "6", "git_commit": "abc123",
               "timestamp_utc": "2026-01-01T00:00:00Z"}
        echo_rows = [{"status": "ok", "server": "go", "client": "go-spammer", "round": 0, "msgs_per_s": 1000.0,
                      "server_cpu_us_per_msg": 5.0, "client_cpu_us_per_msg": 6.0},
                     {"status": "failed", "server": "racket", "client": "go-spammer", "round": 0}]
        fanout_rows = [{"status": "failed", "server": "origin-50ms", "scheme": "http", "client": "jvm",
                        "condition": "fresh", "round": 0}]
        with tempfile.TemporaryDirectory() as directory:
            doc = {"sections": []}
            for part, rows, settings in (("echo", echo_rows, {"samples": 1, "seconds": 1.0, "clients": 3}),
                                         ("fanout", fanout_rows, {"samples": 1, "requests": 50, "reps": 1})):
                doc["sections"] += one_section(f"{part}_writeup", {"environment": env, "settings": settings,
                                                                   "rows": rows})["sections"]
            drawn = draw(doc, directory)
            self.assertEqual(drawn["fanout_writeup"], [])
            rate = svg_text(os.path.join(directory, drawn["echo_writeup"][0][0]))
            self.assertIn("go-spammer", rate)
            self.assertIn("racket", rate)  # its place on the axis stays, empty
            self.assertIn("Test CPU, 2 cores", rate)


if __name__ == "__main__":
    unittest.main()
