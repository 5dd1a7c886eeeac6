"""bench/studies/variance_study.py: its analysis on synthetic rows (the sd of each factor's level, the fit of the log
ratio on steal and other load, the ±% a 20-round verdict resolves), the settings it runs, and its documents;
and one tiny real study of the echo claim (2 rounds of 0.25 s runs, every setting) through the suite's round
loop, as a process."""

import json
import math
import os
import random
import subprocess
import sys
import tempfile
import unittest

from bench.studies import variance_study as study

ECHO = study.STUDIES["echo"]().claim


def pair(round_index, ratio, setting, steal=(0.0, 0.0), other=(0.0, 0.0), base=100000.0):
    """Two ok rows of one round of the echo claim, A/B = ratio, with their noise."""
    rows = []
    for cell, value, s, o in ((ECHO.a, base * ratio, steal[0], other[0]), (ECHO.b, base, steal[1], other[1])):
        rows.append({**cell, "status": "ok", "round": round_index, "placement": "shared", "study": "echo",
                     "setting": setting, "load": {"seconds": setting["length_s"]}, "msgs_per_s": value,
                     "noise": {"steal": s, "other_cpu_share": o}})
    return rows


def setting(length=1.0, servers="kept", order="fixed"):
    return {"length_s": length, "servers": servers, "order": order}


class SettingsTest(unittest.TestCase):
    def test_each_factor_is_varied_alone_around_the_base(self):
        settings = study.settings_of([0.25, 0.5, 1.0, 2.0, 4.0])
        self.assertEqual(len(settings), 8)
        self.assertEqual([s["length_s"] for s in settings if s["servers"] == "kept" and s["order"] == "fixed"],
                         [0.25, 0.5, 1.0, 2.0, 4.0])
        self.assertIn(setting(servers="per_run"), settings)
        self.assertIn(setting(order="shuffled"), settings)
        self.assertIn(setting(order="abba"), settings)

    def test_the_base_setting_is_a_level_of_every_factor(self):
        self.assertEqual(study.factors_of(setting(), [0.25, 1.0]),
                         [("length", 1.0), ("servers", "kept"), ("order", "fixed")])
        self.assertEqual(study.factors_of(setting(servers="per_run"), [0.25, 1.0]), [("servers", "per_run")])
        self.assertEqual(study.factors_of(setting(length=0.25), [0.25, 1.0]), [("length", 0.25)])

    def test_without_1_s_the_nearest_length_is_the_base(self):
        self.assertEqual(study.base_length([0.25, 2.0]), 2.0)
        self.assertEqual(study.base_length([0.25, 0.5]), 0.5)

    def test_orders_are_the_round_policies(self):
        sequence = lambda policy: "".join(c for i in range(4) for c in policy.cases(i, ["A", "B"], []))
        self.assertEqual(sequence(study.policy_for("fixed")), "ABABABAB")
        self.assertEqual(sequence(study.policy_for("abba")), "ABBAABBA")
        shuffled = study.policy_for("shuffled")
        self.assertEqual(sorted(sequence(shuffled)), sorted("ABABABAB"))

    def test_a_length_becomes_each_write_ups_load(self):
        self.assertEqual(study.load_for("echo", 0.25, None), {"seconds": 0.25})
        self.assertEqual(study.load_for("websocket", 2.0, {"s_per_message": 1e-4}), {"messages": 20000})
        self.assertEqual(study.load_for("fanout", 4.0, {"s_per_rep": 0.5}), {"reps": 8})
        self.assertEqual(study.load_for("fanout", 0.25, {"s_per_rep": 0.5}), {"reps": 1})

    def test_calibration_takes_the_pace_of_both_cases(self):
        rows = [{"status": "ok", "wall_s": 2.0}, {"status": "ok", "wall_s": 4.0}]
        self.assertAlmostEqual(study.calibrate("websocket", rows)["s_per_message"], 3.0 / 20000)
        self.assertIsNone(study.calibrate("websocket", rows[:1] + [{"status": "failed"}]))
        walls = [{"status": "ok", "walls_s": [1.0, 3.0]}, {"status": "ok", "walls_s": [0.5]}]
        self.assertAlmostEqual(study.calibrate("fanout", walls)["s_per_rep"], 1.25)


    def test_the_default_study_is_estimated_at_about_100_minutes(self):
        minutes = study.estimate_s(list(study.CLAIMS), ["shared", "split"], study.ROUNDS, study.LENGTHS_S) / 60
        self.assertTrue(90 < minutes < 110, minutes)
        quick = study.estimate_s(["echo"], ["shared"], study.QUICK_ROUNDS, study.QUICK_LENGTHS_S)
        self.assertTrue(20 < quick < 60, quick)


class PairedPointsTest(unittest.TestCase):
    def test_one_log_ratio_per_round_where_both_ran(self):
        rows = pair(0, 1.5, setting()) + pair(1, 0.8, setting()) + pair(2, 2.0, setting())[:1]
        rows += [{**pair(3, 1.1, setting())[0], "status": "failed"}] + pair(3, 1.1, setting())[1:]
        points = study.paired_points(rows, ECHO.a, ECHO.b, "msgs_per_s")
        self.assertEqual([p["round"] for p in points], [0, 1])
        self.assertAlmostEqual(points[0]["log_ratio"], math.log(1.5))
        self.assertAlmostEqual(points[1]["log_ratio"], math.log(0.8))

    def test_per_repetition_figures_are_taken_by_their_median(self):
        a = {"client": "jvm", "status": "ok", "round": 0, "walls_s": [1.0, 2.0, 9.0]}
        b = {"client": "go", "status": "ok", "round": 0, "walls_s": [4.0]}
        points = study.paired_points([a, b], {"client": "jvm"}, {"client": "go"}, "walls_s")
        self.assertAlmostEqual(points[0]["log_ratio"], math.log(0.5))

    def test_noise_differences_are_a_less_b(self):
        point = study.paired_points(pair(0, 1.0, setting(), steal=(0.08, 0.02), other=(0.1, 0.3)),
                                    ECHO.a, ECHO.b, "msgs_per_s")[0]
        self.assertAlmostEqual(point["d_steal"], 0.06)
        self.assertAlmostEqual(point["d_other"], -0.2)


class TableTest(unittest.TestCase):
    def rows(self):
        """Length 0.25: sd 0.2 of log ratio; length 1: 0.05; per_run: 0.1; orders alike (0.05)."""
        rng = random.Random(1)
        rows = []
        for level, spread in ((setting(length=0.25), 0.2), (setting(), 0.05), (setting(servers="per_run"), 0.1),
                              (setting(order="shuffled"), 0.05), (setting(order="abba"), 0.05)):
            logs = [rng.gauss(0, 1) for _ in range(20)]
            mean = sum(logs) / len(logs)
            scale = math.sqrt(sum((x - mean) ** 2 for x in logs) / 19)
            for index, x in enumerate(logs):
                rows += pair(index, math.exp((x - mean) / scale * spread), level,
                             steal=(rng.random() * 0.1, rng.random() * 0.1), other=(rng.random(), rng.random()))
        return rows

    def test_sd_of_each_factors_levels(self):
        lines = study.table(self.rows(), {"echo": ECHO}, [0.25, 1.0])
        sds = {(l["factor"], l["level"]): l["sd"] for l in lines}
        self.assertAlmostEqual(sds[("length", 0.25)], 0.2)
        self.assertAlmostEqual(sds[("length", 1.0)], 0.05)
        self.assertAlmostEqual(sds[("servers", "kept")], 0.05)
        self.assertAlmostEqual(sds[("servers", "per_run")], 0.1)
        self.assertAlmostEqual(sds[("order", "shuffled")], 0.05)
        self.assertEqual({l["rounds"] for l in lines if l["factor"] != "noise"}, {20})
        self.assertEqual([l["factor"] for l in lines].count("noise"), 1)

    def test_resolvable_percent_follows_the_sd(self):
        line = next(l for l in study.table(self.rows(), {"echo": ECHO}, [0.25, 1.0]) if l["level"] == 0.25)
        self.assertAlmostEqual(line["resolvable_pct"], study.resolvable_pct(0.2))
        # 20 rounds at sd 0.2: (t_.975,19 + t_.8,19) * 0.2 / sqrt(20) = 0.132 in logs, 14.1%.
        self.assertAlmostEqual(study.resolvable_pct(0.2), 14.1, delta=0.05)
        self.assertIsNone(study.resolvable_pct(None))


class NoiseFitTest(unittest.TestCase):
    def test_a_ratio_that_follows_steal_exactly_is_explained_whole(self):
        rng = random.Random(2)
        points = []
        for index in range(20):
            d_steal, d_other = rng.uniform(-0.1, 0.1), rng.uniform(-0.3, 0.3)
            points.append({"round": index, "log_ratio": 0.1 - 3.0 * d_steal, "d_steal": d_steal,
                           "d_other": d_other})
        fit = study.noise_fit(points)
        self.assertAlmostEqual(fit["r2"], 1.0)
        self.assertAlmostEqual(fit["sd_after"], 0.0)
        self.assertAlmostEqual(fit["coefficients"]["d_steal"], -3.0)
        self.assertAlmostEqual(fit["coefficients"]["d_other"], 0.0)

    def test_noise_unrelated_to_the_ratio_explains_little(self):
        rng = random.Random(3)
        points = [{"round": i, "log_ratio": rng.gauss(0, 0.1), "d_steal": rng.uniform(-0.1, 0.1),
                   "d_other": rng.uniform(-0.3, 0.3)} for i in range(200)]
        fit = study.noise_fit(points)
        self.assertLess(fit["r2"], 0.05)
        self.assertAlmostEqual(fit["sd_after"], study.sd(p["log_ratio"] for p in points), delta=0.005)

    def test_half_explained(self):
        # log ratio = d_steal + an independent part of the same variance: R^2 about one half.
        rng = random.Random(4)
        points = []
        for i in range(2000):
            d = rng.gauss(0, 0.1)
            points.append({"round": i, "log_ratio": d + rng.gauss(0, 0.1), "d_steal": d, "d_other": 0.0})
        self.assertAlmostEqual(study.noise_fit(points)["r2"], 0.5, delta=0.05)

    def test_each_settings_mean_is_taken_out_over_all_settings(self):
        # Two settings whose ratios differ by a constant, and within each follow other load exactly.
        points = []
        for group, offset in (("x", 0.0), ("y", 1.0)):
            for i in range(10):
                points.append({"round": i, "setting": group, "log_ratio": offset + 0.5 * (i / 10),
                               "d_steal": 0.0, "d_other": i / 10})
        fit = study.noise_fit(points, centre_by="setting")
        self.assertAlmostEqual(fit["r2"], 1.0)

    def test_too_few_points_or_no_readings_give_no_fit(self):
        self.assertIsNone(study.noise_fit([{"log_ratio": 0.1, "d_steal": 0.0, "d_other": 0.0}] * 3))
        self.assertIsNone(study.noise_fit([{"log_ratio": i, "d_steal": None, "d_other": 0.0} for i in range(9)]))
        self.assertIsNone(study.noise_fit([{"log_ratio": 0.2, "d_steal": i, "d_other": -i} for i in range(9)]))


class DocumentTest(unittest.TestCase):
    def test_the_document_its_summary_and_charts_are_written(self):
        rows = TableTest().rows()
        doc = {"schema": study.SCHEMA, "environment": {"machine_label": "test", "timestamp_utc": "now"},
               "options": {"claims": ["echo"], "placements": ["shared"], "rounds": 20, "lengths": [0.25, 1.0],
                           "quick": False},
               "claims": {"echo": study.claim_summary(ECHO)}, "calibration": {}, "failed": [], "rows": rows,
               "table": study.table(rows, {"echo": ECHO}, [0.25, 1.0])}
        with tempfile.TemporaryDirectory() as out:
            study.write(doc, out, final=True)
            with open(os.path.join(out, "VARIANCE.md")) as f:
                text = f.read()
            self.assertIn("| length | 0.25 s (seconds 0.25) | 20 | 0.200 | 14.1 |", text)
            self.assertIn("| servers | per_run | 20 | 0.100 |", text)
            self.assertTrue(os.path.exists(os.path.join(out, "variance.json")))
            self.assertEqual(sorted(doc["charts"]), ["charts/variance_design.svg", "charts/variance_length.svg"])
            for chart in doc["charts"]:
                self.assertTrue(os.path.getsize(os.path.join(out, chart)) > 1000)

    def test_the_schema_is_another_tools(self):
        from bench.reporting import result_schema
        self.assertEqual(result_schema.other_tool({"schema": study.SCHEMA}), "bench/studies/variance_study.py")


class RealRunTest(unittest.TestCase):
    def test_a_tiny_echo_study_runs_every_setting(self):
        with tempfile.TemporaryDirectory() as out:
            result = subprocess.run([sys.executable, "-m", "bench.studies.variance_study",
                                     "--claims=echo", "--placements=shared", "--rounds=2", "--lengths=0.25",
                                     f"--out={out}"], capture_output=True, text=True, timeout=300,
                                    env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
            with open(os.path.join(out, "variance.json")) as f:
                doc = json.load(f)
            if any("cannot run here" in failure for failure in doc["failed"]):
                self.skipTest(f"the echo claim's contestants cannot run here: {doc['failed']}")
            self.assertEqual(result.returncode, 0, result.stderr[-3000:])
            self.assertEqual(doc["schema"], study.SCHEMA)
            # One base setting (0.25 s, kept, fixed) and three others: per_run, shuffled, abba.
            settings = {study.setting_key(r["setting"]) for r in doc["rows"]}
            self.assertEqual(len(settings), 4)
            self.assertEqual(len(doc["rows"]), 4 * 2 * 2)
            self.assertTrue(all(r["status"] == "ok" and r["noise"]["steal"] is not None for r in doc["rows"]))
            lines = [l for l in doc["table"] if l["factor"] != "noise"]
            self.assertEqual([(l["factor"], l["level"]) for l in lines],
                             [("length", 0.25), ("servers", "kept"), ("servers", "per_run"), ("order", "fixed"),
                              ("order", "shuffled"), ("order", "abba")])
            self.assertTrue(all(l["rounds"] == 2 and l["sd"] is not None for l in lines))
            self.assertIn("## echo, shared", result.stdout)


class CommandLineTest(unittest.TestCase):
    def test_quick_is_three_rounds_of_two_lengths(self):
        args = study.parse_args(["--quick", "--claims=echo", "--placements=shared", "--out=x"])
        self.assertEqual((args.rounds, args.lengths, args.claims, args.placements), (3, [0.25, 1.0], ["echo"],
                                                                                     ["shared"]))

    def test_defaults(self):
        args = study.parse_args([])
        self.assertEqual((args.rounds, args.lengths, args.claims), (20, [0.25, 0.5, 1.0, 2.0, 4.0],
                                                                    ["echo", "websocket", "fanout"]))
        self.assertTrue(args.out.endswith("variance"))

    def test_wrong_words_are_usage_errors(self):
        for argv in (["--claims=ping"], ["--rounds=1"], ["--lengths=0"], ["--lengths=a"], ["--placements=x"]):
            with self.assertRaises(SystemExit) as raised:
                study.parse_args(argv)
            self.assertEqual(raised.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
