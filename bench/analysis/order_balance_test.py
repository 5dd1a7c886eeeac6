"""Tests of which side ran first (bench/analysis/order_balance.py): the count over the rounds both sides ran,
and a split far from half marked."""

import unittest

from bench.analysis import order_balance


class BalanceTest(unittest.TestCase):
    def test_counts_the_rounds_a_ran_first_among_those_both_sides_ran(self):
        found = order_balance.balance({0: 0, 1: 1, 2: 0, 5: 0}, {0: 1, 1: 0, 2: 3})
        self.assertEqual((found["a_first"], found["rounds"]), (2, 3))
        self.assertFalse(found["unbalanced"])

    def test_a_drawn_order_is_not_marked(self):
        slots_a = {i: i % 2 for i in range(40)}
        slots_b = {i: 1 - i % 2 for i in range(40)}
        found = order_balance.balance(slots_a, slots_b)
        self.assertEqual(found["a_first"], 20)
        self.assertAlmostEqual(found["p_value"], 1.0)
        self.assertFalse(found["unbalanced"])

    def test_a_listed_order_is_marked(self):
        found = order_balance.balance({i: 0 for i in range(30)}, {i: 1 for i in range(30)})
        self.assertEqual(found["a_first"], 30)
        self.assertTrue(found["unbalanced"])

    def test_rows_without_slots_give_nothing(self):
        self.assertIsNone(order_balance.balance({}, {0: 1}))


if __name__ == "__main__":
    unittest.main()
