"""Tests of the per-message costs of a client run (bench/running/measured_run.py): each side's CPU is divided by the
messages that side handled, and the segments by the messages the client counts."""

import unittest

from bench.running import client_process
from bench.running import measured_run


class CpuPerMessageTest(unittest.TestCase):
    def test_segments_per_message_come_from_the_row_s_count(self):
        result = client_process.ClientResult(["client"], 0, ("", ""), 1.0, None, split=(0.3, 0.7))
        row = {"server_cpu_s": 0.5, "tcp_segments": 150}
        measured_run.add_cpu_per_message(row, result, client_messages=100, server_messages=50)
        self.assertAlmostEqual(row["client_cpu_us_per_msg"], 1e4)
        self.assertAlmostEqual(row["client_sys_us_per_msg"], 7e3)
        self.assertAlmostEqual(row["server_cpu_us_per_msg"], 1e4)
        self.assertAlmostEqual(row["tcp_segs_per_msg"], 1.5)
        self.assertNotIn("tcp_segments", row)

    def test_a_fleet_has_its_summed_cpu_per_message_and_no_split(self):
        row = {"server_cpu_s": 0.5, "client_cpu_s": 1.0}
        measured_run.add_cpu_per_message(row, None, client_messages=100, server_messages=50)
        self.assertAlmostEqual(row["client_cpu_us_per_msg"], 1e4)
        self.assertAlmostEqual(row["server_cpu_us_per_msg"], 1e4)
        self.assertNotIn("client_sys_us_per_msg", row)
        self.assertNotIn("tcp_segs_per_msg", row)


if __name__ == "__main__":
    unittest.main()
