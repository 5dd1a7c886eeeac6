"""The echo detail scenario's Go rows with real processes on loopback, through the round loop: the registry's Go
echo server loaded by the Go spammer gives a row with the messages the spammer printed it wrote and the server's
CPU per message, and //echo:client against the same server a row with the echoes it counted."""

import unittest

from bench.registry import registry
from bench.reporting import markdown
from bench.running import contest
from bench.design import scheduler
from bench.scenarios import echo_bench

SETTINGS = {"samples": 1, "seconds": 0.3, "rate": 2000}


def run(match, settings=SETTINGS, entries=None):
    """{(server, client): row} of the echo-models cases whose fields `match` chooses, one round."""
    runner = contest.Runner()
    cases, _ = echo_bench.cases(entries or registry.load(registry.DEFAULT_PATH), {None: runner}, settings)
    outcome = scheduler.run([c for c in cases if match(c.fields)], runner, scheduler.Plan(rounds=1))
    return {(r["server"], r["client"]): r for r in outcome.rows}


class GoRowsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rows = run(lambda f: f["server"] == "go" and f["client"] in ("stream3", "stream3-go"))
        cls.spammer, cls.echo_client = rows[("go", "stream3-go")], rows[("go", "stream3")]

    def test_the_spammer_row_has_the_server_cpu_per_message_it_wrote(self):
        row = self.spammer
        self.assertEqual(row["status"], "ok", row)
        self.assertGreater(row["messages_written"], 0)
        self.assertIsNone(row["messages_echoed"])  # it counts none
        self.assertGreater(row["server_cpu_us_per_msg"], 0)
        self.assertAlmostEqual(row["server_cpu_us_per_msg"], row["server_cpu_s"] * 1e6 / row["messages_written"])
        self.assertGreater(row["client_cpu_us_per_msg"], 0)
        self.assertIsNone(row["server_syscalls_per_msg"])  # Go's server counts none

    def test_the_echo_client_row_divides_by_the_echoes_it_counted(self):
        row = self.echo_client
        self.assertEqual(row["status"], "ok", row)
        self.assertGreater(row["messages_echoed"], 0)
        self.assertAlmostEqual(row["server_cpu_us_per_msg"], row["server_cpu_s"] * 1e6 / row["messages_echoed"])

    def test_the_comparisons_are_verdicts_not_targets(self):
        # One measured row of each, as three rounds; its noise cleared, as the rounds the host left alone.
        rows = [{**row, "round": r, "noise": {}} for row in (self.spammer, self.echo_client) for r in range(3)]
        section = echo_bench.DEFINITION.section(rows, [], SETTINGS)
        lines = {v["claim"]: v for v in section["verdicts"]}
        line = lines["//echo:client writes more msgs/s than the spammer (server go)"]
        self.assertEqual(line["a"], {"server": "go", "client": "stream3", "placement": "shared"})
        self.assertEqual(line["rounds_paired"], 3)
        text = markdown.section(section)
        self.assertNotIn(">=", text)
        self.assertNotIn("target", text.lower())


if __name__ == "__main__":
    unittest.main()
