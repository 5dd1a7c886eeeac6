"""Tests of the run's error control (bench/design/error_control.py): one level per claim, its family's rate over
its claims, for every statement, and fixed however the other claims' looks go."""

import unittest

from bench.analysis import sequential
from bench.design import error_control


class ErrorControlTest(unittest.TestCase):
    def setUp(self):
        self.control = error_control.ErrorControl(margin=0.05)
        for name in ("racket", "gomaxprocs", "cpu", "websocket"):
            self.control.add(("echo", name), sequential.SUMMARY)
        self.control.add(("echo", "second load"), sequential.OTHER)
        self.control.add(("echo", "A/A"), sequential.CONTROL)

    def test_each_claim_gets_its_familys_rate_over_its_claims_for_direction_and_equivalence(self):
        options = self.control.options(("echo", "racket"))
        self.assertEqual((options.alpha, options.direction()), (0.0125, 0.0125))
        self.assertEqual(self.control.options(("echo", "second load")).alpha, 0.05)
        self.assertEqual(self.control.options(("echo", "A/A")).alpha, 0.05)

    def test_a_decided_claim_changes_no_others_level(self):
        before = self.control.levels_of("echo")
        self.assertFalse(self.control.observe(("echo", "racket"), 1e-9))
        self.assertEqual(self.control.levels_of("echo"), before)

    def test_the_statement_counts_each_family(self):
        statement = self.control.statement()
        self.assertEqual(statement["rule"], sequential.FAMILY_RULE)
        self.assertEqual({name: f["claims"] for name, f in statement["families"].items()},
                         {sequential.SUMMARY: 4, sequential.OTHER: 1, sequential.CONTROL: 1})


if __name__ == "__main__":
    unittest.main()
