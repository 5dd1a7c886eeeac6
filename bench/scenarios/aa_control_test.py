"""Tests of the A/A control (bench/scenarios/aa_control.py): its twin case, a second process of the reference
program, and its claim of the twin against the reference."""

import unittest

from bench.design import scheduler
from bench.scenarios import aa_control
from bench.scenarios import writeup_definitions


def case(server, client):
    return scheduler.Case(fields={"server": server, "client": client}, server=scheduler.ServerSpec({"name": server}),
                          client={"name": client})


CONTROL = {"text": "A/A", "cell": {"server": "go", "client": "spam"}, "twin": "server", "figure": "msgs_per_s",
           "better": "higher"}


class TwinTest(unittest.TestCase):
    def test_the_reference_case_gets_a_twin_with_a_server_process_of_its_own(self):
        cases = aa_control.with_twin([case("racket", "spam"), case("go", "spam"), case("go", "other")], CONTROL)
        self.assertEqual([c.fields["server"] for c in cases], ["racket", "go", "go (A/A twin)", "go"])
        self.assertNotEqual(cases[1].server.key(), cases[2].server.key())
        self.assertEqual(cases[2].server.entry, cases[1].server.entry)

    def test_a_client_twin_shares_the_server(self):
        control = {**CONTROL, "twin": "client"}
        cases = aa_control.with_twin([case("go", "spam")], control)
        self.assertEqual([c.fields["client"] for c in cases], ["spam", "spam (A/A twin)"])
        self.assertEqual(cases[0].server.key(), cases[1].server.key())

    def test_no_twin_where_the_reference_did_not_run(self):
        self.assertEqual(len(aa_control.with_twin([case("racket", "spam")], CONTROL)), 1)

    def test_the_claim_is_the_twin_against_the_reference(self):
        claim = aa_control.claim(CONTROL)
        self.assertEqual((claim.a, claim.b, claim.control), ({"server": "go (A/A twin)", "client": "spam"},
                                                             {"server": "go", "client": "spam"}, True))

    def test_the_claim_follows_the_rows_that_ran_the_twin(self):
        self.assertEqual(aa_control.claims_where_twin_ran(CONTROL, [{"server": "go", "client": "spam"}]), [])
        found = aa_control.claims_where_twin_ran(CONTROL, [{"server": "go (A/A twin)", "client": "spam"}])
        self.assertEqual([c.text for c in found], ["A/A"])

    def test_your_questions_side_b_gets_a_control_of_its_scenarios_contestant(self):
        echo = aa_control.for_side("echo", {"server": "go", "client": "go-spammer"}, "msgs_per_s", "higher", "go")
        self.assertEqual((echo["twin"], echo["cell"]), ("server", {"server": "go", "client": "go-spammer"}))
        fanout = aa_control.for_side("fanout", {"client": "go", "scheme": "http"}, "walls_s", "lower", "go")
        self.assertEqual(fanout["twin"], "client")
        self.assertIsNone(aa_control.for_side("micro", {"binary": "x"}, "cpu_ns", "lower", "x"))

    def test_every_write_up_has_a_control_on_its_reference_pairing(self):
        for definition in writeup_definitions.FILES.values():
            self.assertIsNotNone(definition.control)
            self.assertIn(definition.control["twin"], definition.control["cell"])


if __name__ == "__main__":
    unittest.main()
