"""Tests of the interleaved schedule (bench/running/rounds.py): every case must run once in every round, or drift
would hit some cases more than others and per-round ratios would pair the wrong runs."""

import unittest

from bench.running import rounds


class RoundsTest(unittest.TestCase):
    def test_interleaved_runs_every_case_once_per_round(self):
        cases = [("a", "x"), ("b", "x"), ("c", "y")]
        schedule = list(rounds.interleaved(cases, 3))
        self.assertEqual(len(schedule), 9)
        for round_index in range(3):
            self.assertCountEqual([case for r, case in schedule if r == round_index], cases)


if __name__ == "__main__":
    unittest.main()
