"""Scenario definitions as data (bench/scenarios/definition.py, writeup_definitions.py, catalogue.py): the
settings of a run come from the defaults, the command line's values where it gave them and --quick, with no
guessing which value was a default; the fan-out's JVM clients run against the write-up's origin only;
every part the command line names has a definition and a document of its own."""

import unittest
from unittest import mock

from bench.design import scheduler
from bench.scenarios import catalogue
from bench.scenarios import writeup_definitions


class SettingsTest(unittest.TestCase):
    def test_defaults_then_the_command_line_then_quick(self):
        echo = writeup_definitions.ECHO
        self.assertEqual(echo.settings_for({"samples": 10}), {"samples": 10, "seconds": 4.0, "clients": 3})
        self.assertEqual(echo.settings_for({"samples": 10, "seconds": 5.0})["seconds"], 5.0)
        quick = echo.settings_for({"samples": 10, "seconds": 5.0}, quick=True)
        self.assertEqual((quick["samples"], quick["seconds"]), (1, 1.0))
        self.assertEqual(echo.settings_for({}, as_written=True)["seconds"], 180.0)


def case(server, client):
    return scheduler.Case(fields={"server": server, "scheme": "http", "client": client, "condition": "fresh"},
                          server=scheduler.ServerSpec({"name": server}), client={"name": client})


class FanoutCasesTest(unittest.TestCase):
    def test_the_jvm_clients_run_against_the_writeups_origin_only(self):
        every = [case(server, client) for server in ("origin-50ms", "origin-0ms", "nginx")
                 for client in ("jvm", "jdk-tuned", "jdk-default", "go", "curl")]
        with mock.patch.object(writeup_definitions.writeup_cases, "fanout_cases", return_value=(every, [])):
            cases, _ = writeup_definitions.FANOUT.cases([], {}, {})
        kept = [(c.fields["server"], c.fields["client"]) for c in cases]
        self.assertEqual(kept, [("origin-50ms", c) for c in ("jvm", "jdk-tuned", "jdk-default", "go", "curl")]
                         + [(s, c) for s in ("origin-0ms", "nginx") for c in ("go", "curl")])


class CatalogueTest(unittest.TestCase):
    def test_every_part_has_one_definition_and_document(self):
        self.assertEqual(list(catalogue.BY_PART), ["echo", "websocket", "fanout", "echo-models",
                                                   "websocket-models", "httpfanout-models", "micro"])
        self.assertEqual(len(set(d.document for d in catalogue.BY_PART.values())), 7)


if __name__ == "__main__":
    unittest.main()
