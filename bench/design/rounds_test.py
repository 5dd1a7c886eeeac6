"""Tests of the round policies (bench/design/rounds.py): every case runs in every round, and only its order
differs: listed (the fixed design), drawn per round (Shuffled), or reversed every other round (Alternating).
A policy that lost or repeated a case would leave per-round ratios pairing the wrong runs."""

import unittest

from bench.design import rounds

CASES = [("a", "x"), ("b", "x"), ("c", "y")]


class EveryCaseTest(unittest.TestCase):
    def test_every_case_runs_in_every_round_in_the_listed_order(self):
        policy = rounds.EveryCase()
        for round_index in range(3):
            self.assertEqual(policy.cases(round_index, CASES, rows=[{"round": 0}]), CASES)


class ShuffledTest(unittest.TestCase):
    def test_every_case_runs_once_in_every_round(self):
        policy = rounds.Shuffled(seed=7)
        for round_index in range(20):
            self.assertCountEqual(policy.cases(round_index, CASES, rows=[]), CASES)

    def test_the_order_changes_between_rounds(self):
        orders = {tuple(rounds.Shuffled(seed=7).cases(i, CASES, rows=[])) for i in range(40)}
        self.assertEqual(len(orders), 6)  # every order of three cases, in 40 rounds

    def test_two_cases_come_first_about_equally_often(self):
        firsts = [rounds.Shuffled(seed=3).cases(i, ["A", "B"], rows=[])[0] for i in range(400)]
        self.assertTrue(150 < firsts.count("A") < 250, firsts.count("A"))

    def test_the_same_seed_and_round_give_the_same_order(self):
        self.assertEqual([rounds.Shuffled(seed=5).cases(i, CASES, rows=[]) for i in range(10)],
                         [rounds.Shuffled(seed=5).cases(i, CASES, rows=[{"round": i}]) for i in range(10)])

    def test_the_listed_cases_are_not_reordered_in_place(self):
        cases = list(CASES)
        rounds.Shuffled(seed=1).cases(0, cases, rows=[])
        self.assertEqual(cases, CASES)


class AlternatingTest(unittest.TestCase):
    def test_two_cases_run_a_b_b_a(self):
        policy = rounds.Alternating()
        sequence = [case for i in range(4) for case in policy.cases(i, ["A", "B"], rows=[])]
        self.assertEqual("".join(sequence), "ABBAABBA")

    def test_more_cases_are_reversed_every_other_round(self):
        policy = rounds.Alternating()
        self.assertEqual(policy.cases(0, CASES, rows=[]), CASES)
        self.assertEqual(policy.cases(1, CASES, rows=[]), CASES[::-1])
        self.assertEqual(policy.cases(2, CASES, rows=[]), CASES)


if __name__ == "__main__":
    unittest.main()
