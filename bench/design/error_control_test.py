"""Tests of the run's error control (bench/design/error_control.py): one level per claim, its family's rate over
its claims, for every statement, and fixed however the other claims' looks go; and what it says of its families
(its statement, which the summary and the reports print): the write-ups' claims in a main job, a user's own
questions in a run of them."""

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


def statement(words=None):
    control = error_control.ErrorControl(words=words)
    control.add(("your-echo", "mine beats go"), sequential.SUMMARY)
    control.add(("your-echo", "[split] mine beats go"), sequential.OTHER)
    return control.statement()


class StatementTest(unittest.TestCase):
    def test_a_run_of_your_questions_names_them_not_the_write_ups(self):
        said = [family["what"] for family in statement(error_control.YOUR_QUESTIONS)["families"].values()]
        self.assertEqual(len(said), 2)
        self.assertTrue(all(what.startswith("your questions") for what in said), said)
        self.assertFalse(any("write-up" in what for what in said), said)

    def test_the_main_job_names_the_write_ups_claims(self):
        families = statement()["families"]
        self.assertEqual(families[sequential.SUMMARY]["what"], sequential.FAMILIES[sequential.SUMMARY])
        self.assertEqual(families[sequential.OTHER]["claims"], 1)


if __name__ == "__main__":
    unittest.main()
