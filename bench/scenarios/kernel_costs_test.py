"""Tests of the CPU targets put beside the kernel's price of a send (bench/scenarios/kernel_costs.py): the column
must name both prices when they were measured, and stay empty rather than guess when they were not."""

import unittest

from bench.scenarios import kernel_costs


class TargetVsSendTest(unittest.TestCase):
    def test_target_vs_send_names_both_prices(self):
        costs = {"send": 3.15, "send_peer_lets_pile_up": 2.0}
        self.assertEqual(kernel_costs.target_vs_send(2.56, costs), "2.56 vs send 3.15 (2 piled up)")
        self.assertEqual(kernel_costs.target_vs_send(2.56, {"send": 3.15}), "2.56 vs send 3.15")

    def test_target_vs_send_is_none_without_a_measurement(self):
        self.assertIsNone(kernel_costs.target_vs_send(2.56, {}))
        self.assertIsNone(kernel_costs.target_vs_send(2.56, None))
        self.assertIsNone(kernel_costs.target_vs_send(None, {"send": 3.15}))


if __name__ == "__main__":
    unittest.main()
