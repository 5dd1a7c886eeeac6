"""Tests of the TCP segment counter (results/tcp_segments.py), read from this machine's /proc/net/snmp."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import tcp_segments  # noqa: E402


class TcpSegmentsTest(unittest.TestCase):
    def test_tcp_segments_sent_counts_this_machines_segments(self):
        if not os.path.exists("/proc/net/snmp"):
            self.skipTest("no /proc/net/snmp here")
        self.assertGreaterEqual(tcp_segments.tcp_segments_sent(), 0)


if __name__ == "__main__":
    unittest.main()
