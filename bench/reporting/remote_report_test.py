"""The remote-hosts part of a write-up's report (bench/reporting/remote_report.py) on synthetic rows: each figure's
medians on both links, the ratio link / loopback and its range within rounds, and each fleet host's share."""

import unittest

from bench.reporting import remote_report


def row(link, round_index, rate, server_cpu, client_cpu, hosts=None):
    return {"status": "ok", "server": "epoll", "client": "load", "link": link, "round": round_index,
            "msgs_per_s": rate, "server_cpu_us_per_msg": server_cpu, "client_cpu_us_per_msg": client_cpu,
            **({"hosts": hosts} if hosts else {})}


def hosts(a, b):
    return [{"host": "h1", "msgs_per_s": a, "share": a / (a + b)}, {"host": "h2", "msgs_per_s": b,
                                                                     "share": b / (a + b)}]


ROWS = [row("loopback", 0, 100.0, 2.0, 4.0), row("remote", 0, 50.0, 3.0, 2.0, hosts(20.0, 30.0)),
        row("loopback", 1, 200.0, 2.0, 4.0), row("remote", 1, 150.0, 3.0, 2.0, hosts(75.0, 75.0)),
        row("loopback", 2, 300.0, 2.0, 4.0), row("remote", 2, 240.0, 3.0, 2.0, hosts(140.0, 100.0)),
        {"status": "failed", "server": "epoll", "client": "load", "link": "remote", "round": 3}]


class RemoteReportTest(unittest.TestCase):
    def test_medians_ratio_and_its_range_within_rounds(self):
        (entry,) = remote_report.link_summary(ROWS, ("server", "client"))
        rate = entry["msgs_per_s"]
        self.assertEqual((rate["loopback"], rate["remote"]), (200.0, 150.0))
        self.assertEqual(rate["ratio"], 0.75)
        self.assertEqual(rate["per_round"], [0.5, 0.8])
        self.assertEqual(entry["server_cpu_us_per_msg"]["ratio"], 1.5)
        self.assertEqual(entry["client_cpu_us_per_msg"]["per_round"], [0.5, 0.5])

    def test_no_comparison_without_loopback_rows(self):
        remote_only = [r for r in ROWS if r["link"] == "remote"]
        self.assertEqual(remote_report.link_summary(remote_only, ("server", "client")), [])
        extra, summary = remote_report.section(remote_only, ("server", "client"), "server on h0")
        self.assertFalse(any("Loopback against the link" in t["caption"] for t in extra["tables"]))
        self.assertIn("server on h0", extra["notes"][0])

    def test_each_fleet_host_with_its_median_and_share(self):
        table = remote_report.fleet_table(ROWS, ("server", "client"))
        self.assertIn(["epoll load", "150.0", "h1 75.0 (50%); h2 75.0 (50%)"], table["rows"])

    def test_a_fleet_comparison_says_it_carried_more_load(self):
        extra, _ = remote_report.section(ROWS, ("server", "client"), "server on h0", client_hosts=2)
        self.assertIn("2 times its connections", extra["tables"][0]["caption"])

    def test_the_clock_note_says_where_cpu_was_not_measured(self):
        stored_before = [r for r in ROWS if r["link"] == "remote"]  # no `cpu_clock`: /proc ticks then
        measured = [{**r, "cpu_clock": "scheduler"} for r in stored_before]
        self.assertIn("predates", remote_report.clock_note(stored_before))
        self.assertIn("scheduler's nanosecond clock, read there", remote_report.clock_note(measured))
        unmeasured = measured[:-1] + [{**measured[-1], "cpu_clock": None}]
        self.assertIn("not measured", remote_report.clock_note(unmeasured))
        self.assertNotIn("ticks", remote_report.clock_note(unmeasured))


if __name__ == "__main__":
    unittest.main()
