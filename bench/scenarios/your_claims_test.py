"""Tests of a user's own claims as parts (your_claims.py): one part per scenario, its cases only the entries the
questions name, and --versus's sentence."""

import dataclasses
import json
import unittest

from bench.registry import registry
from bench.scenarios import catalogue
from bench.scenarios import claim_files
from bench.scenarios import your_claims
from testing import user_contestant

FAMILY = {"claims": 2, "alpha": 0.05}


def with_asyncio():
    """The shipped registry's entries and a user's asyncio echo server."""
    with open(registry.DEFAULT_PATH) as f:
        document = json.load(f)
    document["contestants"].append(user_contestant.entry("echo_server.py"))
    return registry.validate(document)


class DefinitionsTest(unittest.TestCase):
    def test_one_part_per_scenario_over_the_entries_named(self):
        entries = with_asyncio()
        questions = claim_files.versus("python-asyncio", "go", entries, ["shared"])
        (part,) = your_claims.definitions(questions, catalogue.BY_PART)
        self.assertEqual((part.name, part.document), ("your-echo", "your_echo_writeup"))
        self.assertEqual(part.settings, catalogue.BY_PART["echo"].settings)
        self.assertEqual([c.text for c in part.claims([])], ["python-asyncio beats go in msgs/s under go-spammer"])
        seen = []

        def cases(entries, runners, settings):
            seen.extend(entries)
            return [], []
        (part,) = your_claims.definitions(questions, {"echo": dataclasses.replace(catalogue.BY_PART["echo"],
                                                                                  cases=cases)})
        part.cases(entries, {}, {})
        self.assertEqual({e["name"] for e in seen}, {"python-asyncio", "go", "go-spammer"})

    def test_settings_the_load_does_not_take_are_refused(self):
        (one,) = claim_files.versus("python-asyncio", "go", with_asyncio(), ["shared"])
        one = dataclasses.replace(one, settings={"messages": 10})
        with self.assertRaises(claim_files.ClaimFileError) as caught:
            your_claims.definitions([one], catalogue.BY_PART)
        self.assertIn("settings.messages: the echo load has no such setting; the choices: seconds, clients",
                      str(caught.exception))


class SkippedSideTest(unittest.TestCase):
    def test_a_question_whose_side_cannot_run_here_says_so_and_why(self):
        with open(registry.DEFAULT_PATH) as f:
            entries = registry.validate(json.load(f))
        (part,) = your_claims.definitions(claim_files.versus("netbench-uring", "go", entries, ["shared"]),
                                          catalogue.BY_PART)
        rows = [{"server": "go", "client": "go-spammer", "placement": "shared", "round": i, "status": "ok",
                 "steady_msgs_per_s": 100.0 + i, "msgs_per_s": 100.0} for i in range(3)]
        why = "io_uring is disabled here (kernel.io_uring_disabled = 2)"
        fates = [{"name": "netbench-uring", "role": "server", "status": "skipped", "why": why},
                 {"name": "go", "role": "server", "status": "ran"},
                 {"name": "go-spammer", "role": "client", "status": "ran"}]
        (line,) = part.section(rows, fates, {**part.settings, "samples": 3})["verdicts"]
        self.assertEqual((line["verdict"], line["why"]), ("not measured", f"netbench-uring skipped: {why}"))
        self.assertEqual(your_claims.sentence(line, FAMILY),
                         "netbench-uring beats go in msgs/s under go-spammer, shared placement: not measured "
                         f"(netbench-uring skipped: {why})")


class SentenceTest(unittest.TestCase):
    LINE = {"claim": "[shared] netbench-epoll beats go in msgs/s under go-spammer", "placement": "shared",
            "verdict": "holds", "sequence": {"interval": [1.22, 1.41], "geomean_ratio": 1.31, "rounds": 24}}

    def test_a_decided_claim(self):
        self.assertEqual(your_claims.sentence(self.LINE, FAMILY),
                         "netbench-epoll beats go in msgs/s under go-spammer, shared placement: 1.31 (1.220 .. "
                         "1.410) over 24 rounds, 95% together")

    def test_a_fixed_designs_interval_says_its_own_level(self):
        self.assertTrue(your_claims.sentence(self.LINE).endswith("over 24 rounds, at 95% on its own"))

    def test_another_verdict_is_said_before_the_ratio(self):
        self.assertIn("shared placement: reversed, 1.31", your_claims.sentence({**self.LINE, "verdict": "reversed"},
                                                                               FAMILY))

    def test_nothing_paired_says_why(self):
        line = {"claim": "a beats b in msgs/s under l", "placement": "split", "verdict": "not measured",
                "why": "no samples of A and B", "set_aside": {"rounds": 3, "why": {"other": 3}}}
        self.assertEqual(your_claims.sentence(line, FAMILY),
                         "a beats b in msgs/s under l, split placement: not measured (no samples of A and B; 3 "
                         "rounds set aside as disturbed (other 3))")


if __name__ == "__main__":
    unittest.main()
