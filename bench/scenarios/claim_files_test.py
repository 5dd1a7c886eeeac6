"""Tests of claims as data (claim_files.py): the write-ups' files give the claims the write-ups make, load by load,
and a user's claim file or --versus is read into questions, or refused naming the field and the choices."""

import json
import os
import tempfile
import textwrap
import unittest

from bench.registry import registry
from bench.scenarios import claim_files
from bench.design import judging
from bench.scenarios import writeup_definitions
from testing import user_contestant

PLACEMENTS = ["shared", "split"]


def shipped():
    with open(registry.DEFAULT_PATH) as f:
        return registry.validate(json.load(f))


def with_asyncio():
    mine = user_contestant.entry("echo_server.py")
    return shipped() + registry.validate({"contestants": [mine]})


def claim_file(text):
    path = os.path.join(tempfile.mkdtemp(), "claims.toml")
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))
    return path


class WriteUpFilesTest(unittest.TestCase):
    def test_echo_claims_come_load_by_load_the_writeups_own_load_the_headline(self):
        rows = [{"server": "go", "client": "go-spammer"}, {"server": "go", "client": "netbench-echo-client"},
                {"server": "go (A/A twin)", "client": "go-spammer"}]
        claims = writeup_definitions.ECHO.claims(rows)
        self.assertEqual([c.text for c in claims], [
            "Racket beats Go in msgs/s", "Go with GOMAXPROCS=1 beats Go at its default",
            "Racket spends less server CPU per message than Go",
            "Racket beats Go in msgs/s (second load: netbench-echo-client)",
            "Go with GOMAXPROCS=1 beats Go at its default (second load: netbench-echo-client)",
            "Racket spends less server CPU per message than Go (second load: netbench-echo-client)",
            "A/A control: Go's server against a second process of itself"])
        first = claims[0]
        self.assertEqual((first.a, first.b), ({"server": "racket", "client": "go-spammer"},
                                              {"server": "go", "client": "go-spammer"}))
        self.assertEqual((first.figure, first.higher_is_better, first.headline, first.variant),
                         ("steady_msgs_per_s", True, True, "go-spammer"))
        self.assertEqual(claims[1].same_if, ("gomaxprocs",))
        self.assertFalse(claims[2].higher_is_better)
        self.assertFalse(claims[3].headline)

    def test_a_load_the_rows_did_not_run_is_not_claimed(self):
        claims = writeup_definitions.ECHO.claims([{"server": "go", "client": "go-spammer"}])
        self.assertEqual(len([c for c in claims if not c.control]), 3)

    def test_websocket_claims_per_connection_count_and_what_this_machine_cannot_test(self):
        rows = [{"clients": 1}, {"clients": 4}]
        claims = writeup_definitions.WEBSOCKET.claims(rows)
        judged = [c for c in claims if isinstance(c, judging.Claim)]
        self.assertEqual([c.text for c in judged[:2]], ["Linux: Go at GOMAXPROCS=2 beats GOMAXPROCS=1 (1 client)",
                                                        "Linux: Go at GOMAXPROCS=2 beats GOMAXPROCS=1 (4 clients)"])
        self.assertEqual(judged[1].a, {"server": "go-xnet", "client": "go-xnet-client", "procs": 2, "clients": 4})
        self.assertEqual([c.headline for c in judged[:2]], [False, True])
        lines = [c for c in claims if not isinstance(c, judging.Claim)]
        self.assertIn("macOS: Go loses about 100k msgs/s at GOMAXPROCS=2", [line["claim"] for line in lines])
        self.assertTrue(all("command" in line for line in lines))

    def test_fanout_claims_each_scheme_and_condition(self):
        claims = writeup_definitions.FANOUT.claims([])
        self.assertEqual(len(claims), 6)  # no control without its twin's rows
        twin = {"server": "origin-50ms", "scheme": "http", "client": "go (A/A twin)", "condition": "fresh"}
        control = writeup_definitions.FANOUT.claims([twin])[-1]
        self.assertTrue(control.control)
        self.assertEqual((control.a["client"], control.b["client"]), ("go (A/A twin)", "go"))
        self.assertEqual(claims[0].text, "JVM (the http-kit-design client) faster than Go, http, origin 50 ms; as "
                                         "written up: the JVM keeping its connections (criterium), Go fresh (go "
                                         "test -bench)")
        self.assertEqual(claims[0].a, {"server": "origin-50ms", "scheme": "http", "client": "jvm",
                                       "condition": "reuse"})
        self.assertEqual([c.headline for c in claims], [True] + [False] * 5)

    def test_the_writeups_quotes_and_settings_come_from_their_files(self):
        self.assertIn("114,584", claim_files.writeup("echo").quote)
        self.assertEqual(writeup_definitions.ECHO.settings, {"seconds": 4.0, "clients": 3})
        self.assertEqual(writeup_definitions.ECHO.as_written, {"seconds": 180.0, "clients": 3})
        self.assertEqual(writeup_definitions.WEBSOCKET.writeup_contestants, ("go-xnet", "go-xnet-client"))


class UserClaimsTest(unittest.TestCase):
    def test_two_questions_over_the_registry(self):
        path = claim_file("""
            [settings]
            seconds = 1.0

            [[question]]
            a = "python-asyncio"
            b = "go"

            [[question]]
            a = "python-asyncio"
            b = "go"
            load = "netbench-echo-client"
            figure = "server_cpu_us_per_msg"
            placement = "shared"
        """)
        first, second = claim_files.user_file(path, with_asyncio(), PLACEMENTS)
        self.assertEqual(first.claim.text, "python-asyncio beats go in msgs/s under go-spammer")
        self.assertEqual(first.claim.a, {"server": "python-asyncio", "client": "go-spammer"})
        self.assertTrue(first.claim.higher_is_better and first.claim.per_placement)
        self.assertEqual(first.settings, {"seconds": 1.0})
        self.assertEqual(second.claim.text, "python-asyncio spends less server CPU per message than go under "
                                            "netbench-echo-client, shared placement")
        self.assertEqual(second.claim.b, {"server": "go", "client": "netbench-echo-client", "placement": "shared"})
        self.assertFalse(second.claim.higher_is_better or second.claim.per_placement)
        self.assertEqual(set(second.entries), {"python-asyncio", "go", "netbench-echo-client"})

    def test_a_questions_default_words_say_its_figure_and_which_way_is_better(self):
        base = '[[question]]\na = "python-asyncio"\nb = "go"\n'
        said = {}
        for figure, better in (("server_cpu_us_per_msg", None), ("server_cpu_us_per_msg", "higher"),
                               ("steady_msgs_per_s", "lower"), ("tcp_segs_per_msg", None)):
            text = base + f'figure = "{figure}"\n' + (f'better = "{better}"\n' if better else "")
            (one,) = claim_files.user_file(claim_file(text), with_asyncio(), PLACEMENTS)
            said[(figure, better)] = one.claim.text
        self.assertEqual(said, {
            ("server_cpu_us_per_msg", None): "python-asyncio spends less server CPU per message than go under "
                                             "go-spammer",
            ("server_cpu_us_per_msg", "higher"): "python-asyncio spends more server CPU per message than go under "
                                                 "go-spammer",
            ("steady_msgs_per_s", "lower"): "python-asyncio does fewer msgs/s than go under go-spammer",
            ("tcp_segs_per_msg", None): "python-asyncio sends fewer TCP segments per message than go under go-spammer"})
        self.assertFalse(any("msgs/s" in text for (figure, _), text in said.items() if "msgs" not in figure))

    def test_versus_uses_the_scenarios_reference_load_and_default_figure(self):
        (one,) = claim_files.versus("netbench-epoll", "go", shipped(), PLACEMENTS)
        self.assertEqual(one.claim.text, "netbench-epoll beats go in msgs/s under go-spammer")
        self.assertEqual(one.claim.figure, "steady_msgs_per_s")
        (one,) = claim_files.versus("netbench-epoll", "go", shipped(), PLACEMENTS, load="netbench-echo-client")
        self.assertEqual(one.claim.a["client"], "netbench-echo-client")

    def refused(self, text, *said):
        with self.assertRaises(claim_files.ClaimFileError) as caught:
            claim_files.user_file(claim_file(text), with_asyncio(), PLACEMENTS)
        for words in said:
            self.assertIn(words, str(caught.exception))

    def test_an_unknown_contestant_is_refused_naming_the_choices(self):
        self.refused('[[question]]\na = "rust-echo"\nb = "go"\n', "question 1.a = 'rust-echo'",
                     "no contestant of the registry", "python-asyncio", "netbench-epoll")

    def test_a_figure_the_scenario_does_not_measure_is_refused(self):
        self.refused('[[question]]\na = "python-asyncio"\nb = "go"\nfigure = "p99_latency_us"\n',
                     "question 1.figure = 'p99_latency_us'", "does not measure", "steady_msgs_per_s")

    def test_a_load_of_another_scenario_is_refused(self):
        self.refused('[[question]]\na = "python-asyncio"\nb = "go"\nload = "go-xnet-client"\n',
                     "question 1.load = 'go-xnet-client'", "websocket", "go-spammer, netbench-echo-client")

    def test_two_sides_that_are_the_same_entry_are_refused(self):
        self.refused('[[question]]\na = "go"\nb = "go"\n', "question 1", "same entry (go)")

    def test_a_file_that_compares_nothing_says_so(self):
        self.refused("# nothing yet\n", "compares nothing")
        self.refused("[settings]\nseconds = 1.0\n", "compares nothing")

    def test_an_unknown_field_is_refused_naming_the_fields(self):
        self.refused('[[question]]\na = "python-asyncio"\nb = "go"\nfigur = "msgs_per_s"\n', "unknown field figur",
                     "figure")

    def test_a_placement_the_run_does_not_have_is_refused(self):
        with self.assertRaises(claim_files.ClaimFileError) as caught:
            claim_files.question({"a": "python-asyncio", "b": "go", "placement": "split"}, with_asyncio(), ["shared"])
        self.assertIn("placement = 'split'", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
