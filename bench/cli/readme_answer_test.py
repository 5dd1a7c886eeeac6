"""README.md's first screen states the headline's answer across the stored runs: the block between its markers
is what `--history` computes from results/data now (a stored run added or changed without running it fails
here), and the block is rewritten from the runs, not by hand."""

import os
import unittest

from bench.cli import suite
from bench.reporting import history_report
from bench.base import checkout


class ReadmeAnswerTest(unittest.TestCase):
    def test_the_readme_answer_is_the_one_the_stored_runs_give(self):
        with open(os.path.join(checkout.repo_root(), "README.md")) as f:
            text = f.read()
        runs = history_report.stored_runs([checkout.stored_runs()])
        self.assertEqual(text, suite.readme_with_answer(text, runs),
                         "README.md's answer is stale: run `bazel run //:bench -- --history`")
        self.assertIn("Pooled by random effects", text)

    def test_the_block_is_replaced_whatever_it_held(self):
        text = f"intro\n{suite.README_BEGIN}\nwritten by hand\n{suite.README_END}\nrest\n"
        runs = history_report.stored_runs([checkout.stored_runs()])
        out = suite.readme_with_answer(text, runs)
        self.assertNotIn("written by hand", out)
        self.assertTrue(out.startswith("intro\n") and out.endswith("rest\n"))


if __name__ == "__main__":
    unittest.main()
