"""Tests of the fixed design's policy (bench/running/rounds.py): every case in every round, in the order the
scenario lists them, or drift would hit some cases more than others and per-round ratios would pair the wrong
runs."""

import unittest

from bench.running import rounds


class EveryCaseTest(unittest.TestCase):
    def test_every_case_runs_in_every_round_in_the_listed_order(self):
        cases = [("a", "x"), ("b", "x"), ("c", "y")]
        policy = rounds.EveryCase()
        for round_index in range(3):
            self.assertEqual(policy.cases(round_index, cases, rows=[{"round": 0}]), cases)


if __name__ == "__main__":
    unittest.main()
