"""The echo detail scenario's Go rows with real processes on loopback: the registry's Go echo server loaded by the
Go spammer gives a row with the messages the spammer printed it wrote and the server's CPU per message, and
//echo:client against the same server a row with the echoes it counted."""

import unittest

from bench.running import contest
from bench.scenarios import echo_bench


class GoRowsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        runner = contest.Runner()
        entries = echo_bench.detail_entries()
        try:
            servers = echo_bench.start_servers(runner, entries, ["go"])
            cls.spammer = echo_bench.run_case(runner, entries, servers, "go", "stream3-go", 0.3, 2000)
            cls.echo_client = echo_bench.run_case(runner, entries, servers, "go", "stream3", 0.3, 2000)
        finally:
            runner.stop_all()

    def test_the_spammer_row_has_the_server_cpu_per_message_it_wrote(self):
        row = self.spammer
        self.assertEqual(row["returncode"], 0, row)
        self.assertGreater(row["messages_written"], 0)
        self.assertIsNone(row["messages_echoed"])  # it counts none
        self.assertGreater(row["server_cpu_us_per_msg"], 0)
        self.assertAlmostEqual(row["server_cpu_us_per_msg"], row["server_cpu_s"] * 1e6 / row["messages_written"])
        self.assertGreater(row["client_cpu_us_per_msg"], 0)

    def test_the_echo_client_row_divides_by_the_echoes_it_counted(self):
        row = self.echo_client
        self.assertEqual(row["returncode"], 0, row)
        self.assertGreater(row["messages_echoed"], 0)
        self.assertAlmostEqual(row["server_cpu_us_per_msg"], row["server_cpu_s"] * 1e6 / row["messages_echoed"])


if __name__ == "__main__":
    unittest.main()
