"""docs/your-own-claims.md lists each scenario's figures and its load's settings as the code and the write-ups'
files have them: its generated block is what question_reference.lines() gives now (a default changed in
bench/registry/writeups/*.toml, or a figure added, without `bazel run //:bench -- --history` fails here), and
every figure a question may ask for and every setting a question may change is in it."""

import unittest

from bench.scenarios import claim_files
from bench.scenarios import question_reference


class QuestionReferenceTest(unittest.TestCase):
    def test_the_page_lists_what_the_files_and_the_code_say_now(self):
        with open(question_reference.page()) as f:
            text = f.read()
        self.assertEqual(text, question_reference.with_block(text),
                         "docs/your-own-claims.md's figures and settings are stale: run "
                         "`bazel run //:bench -- --history`")

    def test_every_figure_and_setting_is_listed_with_its_default(self):
        block = "\n".join(question_reference.lines())
        for scenario, figures in claim_files.FIGURES.items():
            for figure, (better, *_) in figures.items():
                self.assertRegex(block, rf"`{figure}`( \(the default\))?: {better} is better")
            for name, value in claim_files.writeup(scenario).settings.items():
                self.assertIn(f"`{name} = {value!r}`", block)
        self.assertTrue(all(len(line) <= question_reference.WIDTH for line in block.splitlines()))

    def test_a_page_without_the_block_is_an_error_that_names_it(self):
        with self.assertRaisesRegex(ValueError, "figures and settings"):
            question_reference.with_block("no block here\n")


if __name__ == "__main__":
    unittest.main()
