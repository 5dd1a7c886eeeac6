"""A user's own claims through the command line: every question the registry cannot answer is refused before
anything runs (exit 2, the field and the choices named), and `--claims` (two questions over a user's asyncio
echo server and Go's) and then `--versus` run end to end on real processes, each question a verdict line in the
summary, the report and the history."""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from unittest import mock

from bench.cli import suite
from bench.registry import registry
from bench.analysis import sequential
from bench.reporting import history_report
from testing import user_contestant

PYTHON = "/usr/bin/python3"

# Half-second loads: the two sides differ by about a factor of two, so every round falls on one side and a
# question is decided in about the fewest rounds the rule allows (7 or 8), however long a load runs.
TWO_QUESTIONS = """
[settings]
seconds = 0.5

[[question]]
a = "python-asyncio"
b = "go"

[[question]]
a = "python-asyncio"
b = "go"
figure = "server_cpu_us_per_msg"
"""


def user_registry(folder):
    """The shipped registry with the user's asyncio echo server added, as --contestants reads it."""
    with open(registry.DEFAULT_PATH) as f:
        document = json.load(f)
    document["contestants"].append(user_contestant.write(folder))
    path = os.path.join(folder, "mine.json")
    with open(path, "w") as f:
        json.dump(document, f)
    return path


def written(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))
    return path


class RefusedTest(unittest.TestCase):
    """Each refusal: exit 2, before any folder is made or program started, naming the field and the choices."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp()
        cls.registry = user_registry(cls.folder)

    def refused(self, args, *said):
        results = tempfile.mkdtemp()
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), \
                mock.patch.dict(os.environ, {"NETBENCH_RESULTS_DIR": results}):
            try:
                code = suite.main(args + [f"--contestants={self.registry}"])
            except SystemExit as exit_:  # argparse's own refusals
                code = exit_.code
        self.assertEqual(code, 2, err.getvalue())
        for words in said:
            self.assertIn(words, err.getvalue())
        self.assertEqual(os.listdir(results), [], "nothing ran")

    def claims(self, text, *said):
        self.refused([f"--claims={written(self.folder, 'claims.toml', text)}"], *said)

    def test_an_unknown_contestant(self):
        self.refused(["--versus=rust-echo,go"], "--versus.a = 'rust-echo'", "no contestant of the registry",
                     "python-asyncio", "netbench-epoll")
        self.claims('[[question]]\na = "python-asyncio"\nb = "rust-echo"\n', "question 1.b = 'rust-echo'")

    def test_a_figure_the_scenario_does_not_measure(self):
        self.claims('[[question]]\na = "python-asyncio"\nb = "go"\nfigure = "walls_s"\n',
                    "question 1.figure = 'walls_s'", "the echo scenario does not measure it",
                    "steady_msgs_per_s, msgs_per_s, server_cpu_us_per_msg")

    def test_a_load_of_another_scenario(self):
        self.refused(["--versus=python-asyncio,go", "--load=go-xnet-client"], "--versus.load = 'go-xnet-client'",
                     "a load of the websocket scenario", "go-spammer, netbench-echo-client")

    def test_two_sides_that_are_the_same_entry(self):
        self.refused(["--versus=go,go"], "a and b are the same entry (go)")

    def test_a_claim_file_that_compares_nothing(self):
        self.claims("[settings]\nseconds = 2.0\n", "compares nothing", "[[question]]")

    def test_flags_that_ask_for_something_else(self):
        self.refused(["--load=go-spammer"], "--load=go-spammer names the load of --versus's question")
        self.refused(["--versus=python-asyncio,go", "--only=echo"], "--versus runs your questions and nothing else")
        self.refused(["--versus=python-asyncio"], "expected two sides, A,B")


@unittest.skipUnless(os.environ.get("TEST_SRCDIR") or os.environ.get("NETBENCH_E2E"),
                     "runs real processes for about a minute: under bazel test, or with NETBENCH_E2E=1")
class EndToEndTest(unittest.TestCase):
    """--claims, then --versus, into one results folder: the second run's history has the first's verdict."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp()
        cls.results = tempfile.mkdtemp()
        registry_path = user_registry(cls.folder)
        claims = written(cls.folder, "claims.toml", TWO_QUESTIONS)
        common = [f"--contestants={registry_path}", "--placement=shared"]
        # Each budget: the run's first 10 s or so (the kernel's prices, the check for a busy machine), the 7 or 8
        # rounds of about 2 s that decide its questions, and room for a few rounds set aside on a busy machine
        # (its questions then stay open, which the tests below accept).
        cls.claims_run = cls.run_suite([f"--claims={claims}", "--budget=35s"] + common)
        cls.versus_run = cls.run_suite(["--versus=python-asyncio,go", "--echo-seconds=0.5", "--budget=35s"] + common)

    @classmethod
    def run_suite(cls, args):
        env = {**os.environ, "NETBENCH_RESULTS_DIR": cls.results, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        env.pop("NETBENCH_RESULTS_LABEL", None)
        before = set(os.listdir(cls.results))
        done = subprocess.run([PYTHON, "-m", "bench.cli.suite"] + args, env=env, capture_output=True, text=True,
                              timeout=300)
        (folder,) = set(os.listdir(cls.results)) - before
        with open(os.path.join(cls.results, folder, "report.json")) as f:
            doc = json.load(f)
        with open(os.path.join(cls.results, folder, "REPORT.md")) as f:
            report = f.read()
        return {"done": done, "doc": doc, "report": report, "folder": os.path.join(cls.results, folder)}

    def test_both_runs_finish(self):
        for run in (self.claims_run, self.versus_run):
            self.assertEqual(run["done"].returncode, 0, run["done"].stderr[-3000:])

    def test_each_question_is_a_line_of_the_summary_and_the_report(self):
        questions = ["python-asyncio beats go in msgs/s under go-spammer",
                     "python-asyncio spends less server CPU per message than go under go-spammer"]
        summary = self.claims_run["doc"]["summary"]
        self.assertEqual([row["question"] for row in summary], questions)
        self.assertTrue(all(row["verdict"] for row in summary))
        for question in questions:
            self.assertIn(question[:48], self.claims_run["done"].stdout)  # the terminal's summary (cut to fit)
            self.assertIn(f"| [{question}]", self.claims_run["report"])
        self.assertEqual([row["question"] for row in self.versus_run["doc"]["summary"]], questions[:1])

    def test_the_user_claims_are_counted_for_error_control_beside_side_bs_control(self):
        for run, questions in ((self.claims_run, 2), (self.versus_run, 1)):
            families = run["doc"]["run"]["family"]["families"]
            self.assertEqual(families[sequential.SUMMARY]["claims"], questions)
            self.assertEqual(families[sequential.CONTROL]["claims"], 1)  # go against a second process of itself

    def test_the_summary_and_its_error_statement_speak_of_your_questions(self):
        for run in (self.claims_run, self.versus_run):
            summary = run["done"].stdout[run["done"].stdout.index("netbench summary:"):]
            self.assertIn("your question, under its load", summary)
            self.assertIn("your questions", summary)
            self.assertNotIn("write-up", summary)

    def test_versus_ends_with_a_sentence_to_paste_and_the_folder(self):
        # The question's sentence, then the A/A control's (go against a second process of itself), then the folder.
        lines = self.versus_run["done"].stdout.strip().splitlines()
        self.assertTrue(lines[-3].startswith("python-asyncio beats go in msgs/s under go-spammer, shared placement: "),
                        lines[-3])
        self.assertIn("A/A control", lines[-2])
        line = self.versus_run["doc"]["sections"][0]["verdicts"][0]
        if not (line.get("sequence") or {}).get("bounded"):  # too few rounds, or every one set aside: it says so
            self.assertRegex(lines[-3], r"shared placement: (open|not measured)")
        else:
            self.assertRegex(lines[-3], r"over \d+ rounds, 95% together$")
        self.assertEqual(lines[-1], f"report: {self.versus_run['folder']}")

    def test_the_history_holds_each_judged_question_and_the_earlier_run(self):
        for run in (self.claims_run, self.versus_run):
            judged = [line for s in run["doc"]["sections"] for line in s["verdicts"]
                      if line["verdict"] in history_report.JUDGED or line["verdict"].startswith("equivalent within")]
            said = {c["claim"] for c in run["doc"]["history"]["claims"]}
            self.assertEqual({line["claim"] for line in judged}, said)
        first = self.claims_run["doc"]["sections"][0]["verdicts"][0]
        questions = [c for c in self.versus_run["doc"]["history"]["claims"] if "A/A control" not in c["claim"]]
        if first["verdict"] != "not measured" and questions:
            (claim,) = questions
            self.assertEqual(len(claim["earlier"]), 1)


if __name__ == "__main__":
    unittest.main()
