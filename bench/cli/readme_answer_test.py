"""README.md's first screen answers each write-up's question as the stored runs do: its two generated blocks (the
answers across the stored runs, and the newest run's closing summary) are what `--history` computes from
results/data now, so a stored run added or changed without running it fails here, and a block edited by hand
fails too. The page stays short enough to read: the answers within its first 40 lines, 120 lines at most, none
wider than 120 characters."""

import os
import unittest

from bench.base import checkout
from bench.reporting import history_report
from bench.reporting import readme_answer

FIRST_SCREEN, MOST_LINES, WIDEST = 40, 120, 120
WRITEUPS = ("Echo: does Racket beat Go?", "WebSocket: does GOMAXPROCS=2 cost Go 100k msgs/s?",
            "Fan-out: does the JVM fetch 500 URLs faster than Go?")


def _readme():
    with open(os.path.join(checkout.repo_root(), "README.md")) as f:
        return f.read()


class ReadmeAnswerTest(unittest.TestCase):
    def test_the_readme_answers_are_the_ones_the_stored_runs_give(self):
        text = _readme()
        runs = history_report.stored_runs([checkout.stored_runs()])
        self.assertEqual(text, readme_answer.with_blocks(text, runs),
                         "README.md's answers are stale: run `bazel run //:bench -- --history`")

    def test_the_first_screen_answers_every_writeup_after_the_two_commands(self):
        lines = _readme().splitlines()
        screen = "\n".join(lines[:FIRST_SCREEN])
        self.assertIn(readme_answer.ANSWERS[2], screen, "the answers end after the first screen")
        for command in ("tools/bootstrap.sh && bazel run //:bench", "tools/bootstrap.sh && bazel test //..."):
            self.assertLess(screen.index(command), screen.index(readme_answer.ANSWERS[1]))
        block = screen[screen.index(readme_answer.ANSWERS[1]):screen.index(readme_answer.ANSWERS[2])]
        items = {item.split("**")[1]: item for item in block.split("\n- ")[1:]}
        for title in WRITEUPS:
            self.assertRegex(items.get(title, ""), r"\*\*(holds|reversed|open|equivalent within)",
                             f"no computed answer to {title!r} on the first screen")

    def test_the_page_is_short_and_narrow(self):
        lines = _readme().splitlines()
        self.assertLessEqual(len(lines), MOST_LINES)
        wide = [f"{number}: {len(line)}" for number, line in enumerate(lines, 1) if len(line) > WIDEST]
        self.assertEqual(wide, [], "README.md lines wider than 120 characters")

    def test_the_blocks_are_replaced_whatever_they_held(self):
        text = (f"intro\n{readme_answer.ANSWERS[1]}\nwritten by hand\n{readme_answer.ANSWERS[2]}\n"
                f"{readme_answer.SAMPLE[1]}\ntyped output\n{readme_answer.SAMPLE[2]}\nrest\n")
        out = readme_answer.with_blocks(text, history_report.stored_runs([checkout.stored_runs()]))
        self.assertNotIn("written by hand", out)
        self.assertNotIn("typed output", out)
        self.assertTrue(out.startswith("intro\n") and out.endswith("rest\n"))

    def test_a_pooled_interval_is_judged_in_the_words_of_a_verdict_on_the_claims_side(self):
        higher = [{"verdict": "open", "ratio": 0.9}, {"verdict": "holds", "ratio": 1.3}]   # the claim: A/B above 1
        lower = [{"verdict": "holds", "ratio": 0.7}]                                      # the claim: A/B below 1
        self.assertEqual(readme_answer.pooled_verdict({"interval": [1.2, 1.4]}, higher), "holds")
        self.assertEqual(readme_answer.pooled_verdict({"interval": [0.83, 0.95]}, higher), "reversed")
        self.assertEqual(readme_answer.pooled_verdict({"interval": [0.83, 0.95]}, lower), "holds")
        self.assertEqual(readme_answer.pooled_verdict({"interval": [0.97, 1.03]}, higher), "equivalent within ±5%")
        self.assertEqual(readme_answer.pooled_verdict({"interval": [0.9, 1.2]}, higher), "open")
        self.assertEqual(readme_answer.pooled_verdict({"interval": [1.2, 1.4]}, [{"verdict": "open", "ratio": 1.3}]),
                         "open", "no run decided the claim, so its side is unknown")

    def test_a_readme_without_the_blocks_is_an_error_that_names_them(self):
        with self.assertRaisesRegex(ValueError, "the answers across the stored runs"):
            readme_answer.with_blocks("no blocks here\n", [])


if __name__ == "__main__":
    unittest.main()
