"""report.html in a real browser: Debian's Chromium, headless, loads the page rendered from the stored run
(results/data/linux-x86_64-2cpu) and the page's script runs to its end with no error on the console; the
verdicts the page shows, in its summary and in each section, are the ones in the run's JSON; a click on a
column's heading sorts the table. tools/bootstrap.sh installs chromium."""

import html.parser
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from bench.reporting import document
from bench.reporting import html_report
from bench.reporting import result_schema

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results", "data")
STORED = os.path.join(DATA, "linux-x86_64-2cpu")
# A console message at error level, or an uncaught exception, as Chromium logs them with --enable-logging.
CONSOLE_ERROR = re.compile(r"CONSOLE\(\d+\)\].*|Uncaught .*|:ERROR:CONSOLE.*")


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def load(page, profile, *flags):
    """(the DOM after the page's scripts ran, the console messages Chromium logged)."""
    command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
               "--virtual-time-budget=3000", *flags, "--dump-dom", "file://" + page]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "HOME": profile})
    console = [line for line in result.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    return result.stdout, console


class Verdicts(html.parser.HTMLParser):
    """The verdicts shown: per summary row (its section) and per section's verdict table, in page order."""

    def __init__(self):
        super().__init__()
        self.summary, self.sections, self.section, self.in_summary_row = [], {}, None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and "claim" in (attrs.get("class") or ""):
            self.in_summary_row = attrs.get("data-section")
        elif tag == "details":
            self.section = attrs.get("id")
        elif tag == "span" and "data-verdict" in attrs:
            if self.in_summary_row:
                self.summary.append((self.in_summary_row, attrs["data-verdict"]))
            elif self.section:
                self.sections.setdefault(self.section, []).append(attrs["data-verdict"])

    def handle_endtag(self, tag):
        if tag == "tr":
            self.in_summary_row = None
        elif tag == "details":
            self.section = None


class ReportPageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not chromium():
            raise unittest.SkipTest if os.environ.get("NETBENCH_NO_BROWSER") else AssertionError(
                "chromium is not installed: tools/bootstrap.sh installs it (NETBENCH_NO_BROWSER=1 skips this test)")
        cls.scratch = tempfile.mkdtemp()
        cls.doc = document.load(os.path.join(STORED, document.FILE))
        cls.page = os.path.join(cls.scratch, "report.html")
        with open(cls.page, "w") as f:
            f.write(html_report.render(cls.doc, STORED))
        cls.dom, cls.console = load(cls.page, os.path.join(cls.scratch, "profile"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def test_the_page_loads_and_its_script_runs_without_console_errors(self):
        self.assertIn('data-script="ran"', self.dom[:2000], self.console)
        self.assertEqual([line for line in self.console if CONSOLE_ERROR.search(line)], [])

    def test_a_script_error_would_be_seen(self):
        broken = os.path.join(self.scratch, "broken.html")
        with open(broken, "w") as f:
            f.write("<!DOCTYPE html><html><body><script>console.error('broken on purpose'); "
                    "noSuchFunction();</script></body></html>")
        _, console = load(broken, os.path.join(self.scratch, "profile-broken"))
        self.assertTrue([line for line in console if CONSOLE_ERROR.search(line)], console)

    def test_the_verdicts_shown_are_the_ones_in_the_json(self):
        shown = Verdicts()
        shown.feed(self.dom)
        for part in ("echo", "websocket", "fanout"):
            stored = result_schema.load(os.path.join(STORED, f"{part}_writeup.json"))["verdicts"]  # today's words
            with self.subTest(part=part):
                self.assertCountEqual(shown.sections[part], [v["verdict"] for v in stored])
                headlines = [stored[[v["claim"] for v in stored].index(
                    section["verdicts"][group["headline"]]["claim"])]["verdict"]
                    for section in self.doc["sections"] if section["id"] == part for group in section["claims"]]
                self.assertEqual([v for s, v in shown.summary if s == part], headlines)

    def test_the_summary_is_on_the_first_screen(self):
        # Above the first section, after the run's line: nothing but the summary's heading and its table.
        summary = self.dom.index("Summary: the write-ups")
        self.assertLess(summary, self.dom.index('<details id="echo"'))
        self.assertLess(self.dom.index("<h1>"), summary)

    def test_a_click_on_a_heading_sorts_its_table(self):
        # The page, opened with a script that clicks the summary's "verdict" heading and notes the order.
        probe = os.path.join(self.scratch, "probe.html")
        with open(self.page) as f:
            page = f.read()
        click = ("<script>var t=document.querySelector('table.sortable');t.querySelectorAll('th')[1].click();"
                 "document.documentElement.setAttribute('data-order',Array.prototype.map.call(t.tBodies[0].rows,"
                 "function(r){return r.cells[1].querySelector('[data-verdict]').dataset.verdict;}).join('|'));"
                 "</script></body>")
        with open(probe, "w") as f:
            f.write(page.replace("</body>", click))  # a test page around the report, not the report
        dom, console = load(probe, os.path.join(self.scratch, "profile-probe"))
        order = re.search(r'data-order="([^"]*)"', dom).group(1).split("|")
        self.assertEqual(len(order), len(self.doc["summary"]), console)
        self.assertEqual(order, sorted(order))


class HistorySectionTest(unittest.TestCase):
    """The report of a run with runs stored before it: the forest plot opens the summary and the browser draws
    it, and the section on the runs before shows each earlier run's verdict and relation as report.json has
    them."""

    @classmethod
    def setUpClass(cls):
        if not chromium():
            raise unittest.SkipTest if os.environ.get("NETBENCH_NO_BROWSER") else AssertionError(
                "chromium is not installed: tools/bootstrap.sh installs it (NETBENCH_NO_BROWSER=1 skips this test)")
        stored = os.path.join(DATA, "linux-x86_64-2cpu-epyc-main")
        cls.scratch = tempfile.mkdtemp()
        cls.doc = document.load(os.path.join(stored, document.FILE))
        page = html_report.render(cls.doc, stored).replace(
            "</body>", "<script>var i=document.querySelector('#verdicts-chart img');document.documentElement"
            ".setAttribute('data-chart-width',i.complete?i.naturalWidth:0);</script></body>")
        path = os.path.join(cls.scratch, "report.html")
        with open(path, "w") as f:
            f.write(page)
        cls.dom, cls.console = load(path, os.path.join(cls.scratch, "profile"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def test_the_forest_plot_opens_the_summary_and_is_drawn(self):
        chart = self.dom.index('id="verdicts-chart"')
        self.assertLess(self.dom.index("Summary: the write-ups"), chart)
        self.assertLess(chart, self.dom.index('class="sortable'))
        width = re.search(r'data-chart-width="(\d+)"', self.dom)
        self.assertTrue(width and int(width.group(1)) > 0, "the browser did not draw the forest plot")

    def test_the_history_section_shows_each_earlier_runs_verdict_and_relation(self):
        section = self.dom[self.dom.index('id="history"'):]
        section = section[:section.index("<h2", 10)]
        claims = [c for c in self.doc["history"]["claims"] if c["earlier"]]
        self.assertTrue(claims)
        for claim in claims:
            for earlier in claim["earlier"]:
                self.assertIn(html_report.html.escape(earlier["run"]), section)
        relations = re.findall(r"<td[^>]*>(agree|differ|conflict)</td>", section)
        self.assertEqual(len(relations), sum(len(c["earlier"]) for c in claims))
        self.assertEqual([line for line in self.console if CONSOLE_ERROR.search(line)], [])


if __name__ == "__main__":
    unittest.main()
