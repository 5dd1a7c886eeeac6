"""The dimensioning study's analysis on synthetic rows: the paired ratio of each setting over both figures, the
recommendation (the shortest length whose ratio is equivalent to the write-up length's within 5%, not merely inside the other's
interval), the settings each option asks for, and its flags' errors."""

import math
import unittest

from bench.studies import dimensioning_study as study


def rows(length, ratios, servers="kept"):
    """Two rows per round, Racket at `ratio` times Go's 200,000 msgs/s, both figures alike."""
    out = []
    for index, ratio in enumerate(ratios):
        for server, rate in (("racket", 200_000 * ratio), ("go", 200_000)):
            out.append({"study": "echo", "placement": "shared", "setting": {"length": length, "servers": servers},
                        "status": "ok", "round": index, "server": server, "client": "go-spammer", "wall_s": length,
                        "msgs_per_s": rate, "steady_msgs_per_s": rate,
                        "steady": {"class": "flat"}})
    return out


CLAIMS = {"echo": study.variance_study.STUDIES["echo"]().claim}


class AnalysisTest(unittest.TestCase):
    def test_each_setting_gets_the_paired_ratio_of_both_figures(self):
        lines = study.table(rows(1, [1.2, 1.25, 1.15]), CLAIMS)
        self.assertEqual(len(lines), 1)
        for figure in study.FIGURES:
            found = lines[0][figure]
            self.assertEqual(found["rounds"], 3)
            self.assertAlmostEqual(found["geomean_ratio"], math.exp(sum(map(math.log, [1.2, 1.25, 1.15])) / 3))
            self.assertLess(found["ci95"][0], found["geomean_ratio"])
        self.assertEqual(lines[0]["classes"], {"flat": 6})

    def test_the_shortest_length_equivalent_to_the_longest_within_5_percent_is_recommended(self):
        data = (rows(1, [1.30, 1.32, 1.31, 1.29]) + rows(4, [1.01, 1.0, 1.005, 0.995, 1.0, 1.01])
                + rows(15, [0.99, 1.01, 1.0, 1.0]) + rows(180, [0.995, 1.005, 1.0, 1.0]))
        found = study.recommend(study.table(data, CLAIMS), "echo", "shared")
        self.assertEqual((found["length"], found["reference_length"]), (4, 180))
        self.assertEqual([o["length"] for o in found["outside"]], [1])
        low, high = found["difference"]["interval"]
        self.assertTrue(1 / 1.05 <= low <= 1 <= high <= 1.05)

    def test_overlapping_but_wide_intervals_are_not_equivalent(self):
        # The old rule (each inside the other's interval) would pass 4 s here; the equivalence test does not,
        # and without a shorter length that passes the longest is what a claim needs.
        data = rows(4, [1.02, 0.95, 1.05, 0.99]) + rows(180, [0.9, 1.1, 1.0])
        found = study.recommend(study.table(data, CLAIMS), "echo", "shared")
        self.assertIsNone(found["length"])
        self.assertEqual([o["length"] for o in found["outside"]], [4])
        self.assertIn("No shorter length is equivalent", study._recommendation_text(found, "echo"))

    def test_fresh_servers_do_not_choose_the_length(self):
        data = rows(1, [1.0, 1.01, 0.99], servers="per_run") + rows(180, [0.8, 0.82, 0.81])
        found = study.recommend(study.table(data, CLAIMS), "echo", "shared")
        self.assertEqual((found["length"], found["reference_length"]), (None, 180))

    def test_settings_of_the_server_lifetimes_asked_for(self):
        self.assertEqual(study.settings_of("echo", [1, 60], 15, ["kept", "per_run", "warmed"]),
                         [{"length": 1, "servers": "kept"}, {"length": 60, "servers": "kept"},
                          {"length": 1, "servers": "per_run"}, {"length": 1, "servers": "warmed"}])

    def test_flags_that_make_no_study_are_refused(self):
        for argv in (["--claims=fanout"], ["--rounds=1:1"], ["--rounds=x"], ["--echo-lengths=0"],
                     ["--servers=cold"]):
            with self.assertRaises(SystemExit, msg=argv):
                study.parse_args(argv)


if __name__ == "__main__":
    unittest.main()
