"""Tests of the TCP segment counter (bench/running/tcp_segments.py), read from this machine's /proc/net/snmp."""

import os
import unittest

from bench.running import tcp_segments


class TcpSegmentsTest(unittest.TestCase):
    def test_tcp_segments_sent_counts_this_machines_segments(self):
        if not os.path.exists("/proc/net/snmp"):
            self.skipTest("no /proc/net/snmp here")
        self.assertGreaterEqual(tcp_segments.tcp_segments_sent(), 0)


if __name__ == "__main__":
    unittest.main()
