"""A command line as a contestant of --versus, through the command line: README.md's "Your server against theirs"
command, read from README.md word for word (so that this test fails where the README changes without it), run
with a user's 15-line asyncio echo server as `$PWD/my_server.py` against Go's, ends with its verdict sentence
(then the A/A control's, which the run adds on Go's side, and the report's folder);
two command lines with --scenario=echo do too; a command that never listens is refused, exit 2, naming it,
before anything runs.

The README's run adds `--budget=40s --placement=shared --echo-seconds=1` after its words (the README's command
spends five minutes in both placements; the budget counts from the run's start, its preparation included, and
this test asks only that the run measures and goes through to its sentence); the two command lines' run adds
`--rounds=2` instead of the budget."""

import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from bench.base import checkout
from bench.cli import suite
from testing import user_contestant

PYTHON = "/usr/bin/python3"
# What the runs add after the README's words, to keep the test short.
SHORT = ["--placement=shared", "--echo-seconds=1"]
SECTION = "## Your server against theirs"


def readme_command():
    """The one command of README.md's section SECTION, as written there."""
    with open(os.path.join(checkout.repo_root(), "README.md")) as f:
        text = f.read()
    section = text[text.index(SECTION):]
    section = section[:section.index("\n## ")]
    (command,) = re.findall(r"^bazel run //:bench -- .*$", section, re.MULTILINE)
    return command


def server_folder():
    """A folder holding the user's server as my_server.py (testing/user_contestant.py's asyncio echo server)."""
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "my_server.py"), "w") as f:
        f.write(user_contestant.SOURCE)
    return folder


def run_shell(command, cwd, results, environ=None):
    """`command` (a shell line of `bazel run //:bench -- ...`) run by bash in `cwd` with the suite of this
    checkout in bazel run's place, its runs stored under `results`."""
    line = command.replace("bazel run //:bench --", f"{PYTHON} -m bench.cli.suite", 1)
    env = {**os.environ, "NETBENCH_RESULTS_DIR": results, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
           **(environ or {})}
    env.pop("NETBENCH_RESULTS_LABEL", None)
    return subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def ending(test, done, results, sentence):
    """Asserts that the run went well and ended with its sentences, the first the question's, starting with
    `sentence` (a round measured: its placement is named), then the report's folder. The sentences follow the
    summary's last line, which names REPORT.md; the question's comes first (the A/A control's after it)."""
    test.assertEqual(done.returncode, 0, done.stderr[-3000:])
    lines = done.stdout.strip().splitlines()
    (folder,) = os.listdir(results)
    test.assertEqual(lines[-1], f"report: {os.path.join(results, folder)}")
    summary_end = max(i for i, line in enumerate(lines) if line.startswith("report: ") and "REPORT.md" in line)
    question = lines[summary_end + 1]
    test.assertTrue(question.startswith(sentence), question)
    test.assertRegex(question, r"shared placement: (.* over \d+ rounds, (95% together|at 95% on its own)|open|not measured)")


class ReadmeCommandTest(unittest.TestCase):
    def test_the_readme_names_the_users_server_as_this_test_runs_it(self):
        command = readme_command()
        self.assertIn('--versus="python3 $PWD/my_server.py {port}",go', command)
        self.assertTrue(command.startswith("bazel run //:bench -- "), command)


class NeverListensTest(unittest.TestCase):
    def test_a_command_that_never_listens_is_refused_naming_it_and_nothing_runs(self):
        results = tempfile.mkdtemp()
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), \
                mock.patch.dict(os.environ, {"NETBENCH_RESULTS_DIR": results}):
            code = suite.main(["--versus=sleep 60 {port},go"])
        self.assertEqual(code, 2, err.getvalue())
        self.assertIn("--versus: the command line sleep 60 {port} (sleep) cannot be run: accepted no connection "
                      "within", err.getvalue())
        self.assertEqual(os.listdir(results), [], "nothing ran")


@unittest.skipUnless(os.environ.get("TEST_SRCDIR") or os.environ.get("NETBENCH_E2E"),
                     "runs real processes for a minute: under bazel test, or with NETBENCH_E2E=1")
class EndToEndTest(unittest.TestCase):
    def test_the_readmes_command_ends_with_its_verdict_sentence(self):
        results = tempfile.mkdtemp()
        done = run_shell(" ".join([readme_command(), "--budget=40s"] + SHORT), server_folder(), results)
        ending(self, done, results, "my_server beats go in msgs/s under go-spammer, shared placement: ")

    def test_two_command_lines_in_the_echo_scenario_end_with_theirs(self):
        # Typed in the server's folder, run from another, as `bazel run` runs the suite: a relative path is the
        # folder's where the command was typed.
        results, typed_in = tempfile.mkdtemp(), server_folder()
        command = ('bazel run //:bench -- --versus="python3 my_server.py {port}","python3 my_server.py {port}" '
                   "--scenario=echo --name-b=twin")
        done = run_shell(" ".join([command, "--rounds=2"] + SHORT), tempfile.mkdtemp(), results,
                         {"BUILD_WORKING_DIRECTORY": typed_in})
        ending(self, done, results, "my_server beats twin in msgs/s under go-spammer, shared placement: ")


if __name__ == "__main__":
    unittest.main()
