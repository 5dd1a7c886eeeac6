"""Tests of the verdict logic (bench/analysis/verdict.py) on synthetic samples, one per outcome: a verdict printed
in REPORT.md must follow from the samples, whatever they are. With rounds the verdict is paired (the statistics
themselves are tested in paired_ratio_test.py); without, it is the pooled U test."""

import unittest

from bench.analysis import verdict


def rounds(xs):
    return dict(enumerate(xs))


class VerdictTest(unittest.TestCase):
    def judge(self, a, b, higher_is_better=True):
        return verdict.judge(a, b, rounds(a), rounds(b), higher_is_better)

    def test_a_clearly_ahead_in_every_round_holds(self):
        v = self.judge([110, 112, 115, 111, 113], [85, 86, 84, 87, 85])
        self.assertEqual(v["verdict"], verdict.HOLDS)
        self.assertLess(v["p_value"], verdict.ALPHA)
        self.assertEqual(v["median_a"], 112)
        self.assertAlmostEqual(v["ratio"], 112 / 85)
        self.assertGreater(v["per_round_min"], 1)

    def test_b_clearly_ahead_is_reversed(self):
        v = self.judge([80, 81, 79, 82, 80], [100, 101, 99, 102, 100])
        self.assertEqual(v["verdict"], verdict.REVERSED)

    def test_lower_is_better_turns_the_direction(self):
        faster = [0.74, 0.75, 0.73, 0.76, 0.74]
        slower = [1.27, 1.26, 1.28, 1.25, 1.27]
        self.assertEqual(self.judge(faster, slower, higher_is_better=False)["verdict"], verdict.HOLDS)
        self.assertEqual(self.judge(slower, faster, higher_is_better=False)["verdict"], verdict.REVERSED)

    def test_overlapping_samples_are_not_separable(self):
        v = self.judge([100, 90, 110, 95, 105], [98, 108, 92, 103, 97])
        self.assertEqual(v["verdict"], verdict.NOT_SEPARABLE)
        self.assertGreaterEqual(v["p_value"], verdict.ALPHA)

    def test_one_round_on_the_other_side_of_1_does_not_veto_an_interval_that_excludes_1(self):
        # Round 4 pairs A's lowest with B's highest (ratio 0.99); the four others say 1.2, and the paired
        # interval of the five stays above 1. The per-round range still shows the odd round.
        a = [120, 121, 122, 123, 110]
        b = [100, 101, 102, 103, 111]
        v = verdict.judge(a, b, rounds(a), rounds(b))
        self.assertEqual(v["verdict"], verdict.HOLDS)
        self.assertLess(v["per_round_min"], 1)
        self.assertGreater(v["ci95"][0], 1)
        self.assertEqual(v["test"], "paired t on log ratios")

    def test_three_samples_a_side_can_never_reach_p_below_0_05_in_a_u_test(self):
        v = verdict.judge([200, 201, 202], [100, 101, 102])
        self.assertEqual(v["verdict"], verdict.NOT_SEPARABLE)
        self.assertAlmostEqual(v["p_value"], 0.1)
        self.assertEqual(v["test"], verdict.U_TEST)

    def test_three_paired_rounds_of_a_steady_ratio_are_enough(self):
        v = self.judge([200, 201, 202], [100, 101, 102])
        self.assertEqual(v["verdict"], verdict.HOLDS)
        self.assertEqual(v["rounds_paired"], 3)

    def test_one_sample_a_side_has_no_test(self):
        v = self.judge([200], [100])
        self.assertEqual(v["verdict"], verdict.NOT_SEPARABLE)
        self.assertIsNone(v["p_value"])
        self.assertIn("too few for a U test", v["why"])

    def test_identical_samples_are_equivalent_when_paired_and_not_separable_pooled(self):
        self.assertEqual(self.judge([5, 5, 5, 5], [5, 5, 5, 5])["verdict"], verdict.EQUIVALENT)
        self.assertEqual(verdict.judge([5, 5, 5, 5], [5, 5, 5, 5])["verdict"], verdict.NOT_SEPARABLE)

    def test_a_missing_side_is_not_measured_with_the_reason(self):
        v = verdict.judge([1, 2, 3], [None, None], why_missing="racket skipped: not installed")
        self.assertEqual(v["verdict"], verdict.NOT_MEASURED)
        self.assertEqual(v["why"], "racket skipped: not installed")

    def test_not_testable_carries_what_it_needs_and_the_command(self):
        v = verdict.not_testable("needs macOS", "GOMAXPROCS=2 ./wsclient 4 100000")
        self.assertEqual(v["verdict"], verdict.NOT_TESTABLE)
        self.assertEqual(v["command"], "GOMAXPROCS=2 ./wsclient 4 100000")

    def test_the_u_test_matches_the_textbook_value(self):
        # Exact two-sided p for 5 vs 5 fully separated samples: 2 / C(10, 5) = 2 / 252.
        self.assertAlmostEqual(verdict.mann_whitney_p([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]), 2 / 252)


class SequentialVerdictTest(unittest.TestCase):
    def judge(self, a, b, higher_is_better=True):
        return verdict.judge_sequential(a, b, rounds(a), rounds(b), higher_is_better)

    def test_a_steady_lead_holds_and_the_other_way_is_reversed(self):
        # Every one of 12 rounds on A's side: more than the fewest a sign sequence at 5% decides on (7).
        a, b = [130, 131, 129, 130, 132, 130] * 2, [100, 101, 99, 100, 101, 100] * 2
        v = self.judge(a, b)
        self.assertEqual(v["verdict"], verdict.HOLDS)
        self.assertIn("sign-based", v["test"])
        self.assertGreater(v["sequence"]["interval"][0], 1)
        self.assertEqual(self.judge(b, a)["verdict"], verdict.REVERSED)
        self.assertEqual(self.judge(a, b, higher_is_better=False)["verdict"], verdict.REVERSED)

    def test_the_same_within_a_percent_is_equivalent_within_the_margin(self):
        a, b = [100, 101, 100, 99, 100, 100] * 2, [100, 100, 100, 100, 100.5, 99.5] * 2
        v = self.judge(a, b)
        self.assertEqual(v["verdict"], "equivalent within \u00b15%")
        self.assertEqual(v["verdict"], verdict.equivalent_within(0.05))

    def test_an_open_claim_says_its_bound_and_the_rounds_that_would_decide_it(self):
        a, b = [110, 90, 105, 95, 112, 88] * 5, [100] * 30
        v = self.judge(a, b)
        self.assertEqual(v["verdict"], verdict.OPEN)
        self.assertTrue(v["why"].startswith("any difference is below"), v["why"])
        self.assertIn("rounds would decide it", v["why"])

    def test_too_few_rounds_to_bound_it_say_so_rather_than_a_bound(self):
        a, b = [110, 90, 105, 95, 112, 88], [100] * 6
        v = self.judge(a, b)
        self.assertEqual(v["verdict"], verdict.OPEN)
        self.assertEqual(v["why"], "6 rounds: not enough to bound it")

    def test_a_missing_side_is_still_not_measured(self):
        v = verdict.sequential_of(verdict.judge([1, 2, 3], [], why_missing="go skipped"), None, None)
        self.assertEqual(v["verdict"], verdict.NOT_MEASURED)
        self.assertNotIn("sequence", v)


class StealRoundsTest(unittest.TestCase):
    def test_rounds_count_once_whichever_side_had_the_steal(self):
        rows = [{"round": 0, "noise": {"steal": 0.01}}, {"round": 0, "noise": {"steal": 0.08}},
                {"round": 1, "noise": {"steal": 0.02}}, {"round": 1, "noise": {"steal": 0.03}},
                {"round": 2, "noise": {"steal": 0.2}}, {"round": 3}, {"round": 4, "noise": None}]
        counted = verdict.steal_rounds(rows)
        self.assertEqual(counted, {"steal_level": 0.05, "rounds_with_steal": 2, "rounds_with_noise": 3,
                                   "max_steal": 0.2})
        self.assertEqual(verdict.steal_rounds(rows, level=0.1)["rounds_with_steal"], 1)
        self.assertEqual(verdict.steal_rounds([])["max_steal"], None)


def noisy_row(round_index, share, cpu_s=None, measured=(1.0, 0.9), quiet=None, top=("yes", 4242), steal=0.0):
    """A row whose neighbours took `share` of the CPUs (cpu_s: their CPU, by default share x 2 CPUs x 2 s), the
    measured programs `measured` (server, client) CPU seconds."""
    cpu_s = share * 4 if cpu_s is None else cpu_s
    near = {"cpu_s": cpu_s, "share": share, "top": {"pid": top[1], "name": top[0], "cpu_s": cpu_s} if top else None}
    if quiet is not None:
        near["quiet_share"] = quiet
    return {"round": round_index, "status": "ok", "noise": {
        "steal": steal, "other_cpu_share": 0.5, "server_cpu_s": measured[0], "client_cpu_s": measured[1],
        "neighbours": near}}


class DisturbanceTest(unittest.TestCase):
    def test_a_neighbour_above_five_percent_of_the_cpus_sets_its_round_aside(self):
        found = verdict.disturbance(noisy_row(3, 0.31))
        self.assertEqual(found, {"why": "other", "share": 0.31, "top": {"pid": 4242, "name": "yes", "cpu_s": 1.24},
                                 "next": []})
        self.assertEqual(verdict.disturbance_text(found), "other programs took 31% of the CPUs (yes, pid 4242)")
        self.assertIsNone(verdict.disturbance(noisy_row(3, 0.04)))

    def test_the_kernel_s_own_work_does_not_count_where_the_row_names_its_neighbours(self):
        # other_cpu_share 0.5 (softirq, kernel threads) in every noisy_row: only the neighbours decide.
        self.assertIsNone(verdict.disturbance(noisy_row(0, 0.01)))

    def test_the_threshold_rises_with_the_machine_s_quiet_level_up_to_a_cap(self):
        self.assertEqual(verdict.neighbours_level(None), 0.05)
        self.assertAlmostEqual(verdict.neighbours_level(0.03), 0.09)
        self.assertAlmostEqual(verdict.neighbours_level(0.40), 0.15)  # busy from the start: still seen above 15%
        self.assertIsNone(verdict.disturbance(noisy_row(0, 0.08, quiet=0.03)))
        self.assertIsNotNone(verdict.disturbance(noisy_row(0, 0.10, quiet=0.03)))
        self.assertIsNotNone(verdict.disturbance(noisy_row(0, 0.31, quiet=0.40)))

    def test_a_short_run_is_judged_by_what_the_neighbours_could_have_moved(self):
        # A few tenths of a second: 3 ticks of a daemon are 7% of the CPUs but 3% of what the measured programs ran.
        self.assertIsNone(verdict.disturbance(noisy_row(0, 0.07, cpu_s=0.03, measured=(0.5, 0.5))))
        self.assertIsNotNone(verdict.disturbance(noisy_row(0, 0.07, cpu_s=0.06, measured=(0.5, 0.5))))

    def test_rows_stored_before_keep_the_other_load_rule(self):
        old = {"round": 1, "noise": {"steal": 0.0, "other_cpu_share": 0.06}}
        self.assertEqual(verdict.disturbed_rounds([old]), {1: "other"})
        self.assertEqual(verdict.disturbed_rounds([{**old, "noise": {"steal": 0.0, "other_cpu_share": 0.04}}]), {})
        over_ssh = {"round": 1, "noise": {"steal": 0.0, "other_cpu_share": 0.06, "neighbours": None}}
        self.assertEqual(verdict.disturbed_rounds([over_ssh]), {1: "other"})
        self.assertEqual(verdict.disturbance(old)["top"], None)

    def test_a_share_reads_in_percent_never_in_e_notation(self):
        self.assertEqual([verdict.share_text(x) for x in (0.31, 0.045, 1.0, 0.0)], ["31%", "4.5%", "100%", "0%"])

    def test_steal_comes_first(self):
        found = verdict.disturbance(noisy_row(0, 0.31, steal=0.25))
        self.assertEqual(found["why"], "steal")
        self.assertEqual(verdict.disturbance_text(found), "the hypervisor took 25% of the CPUs (steal)")

    def test_what_set_the_rounds_aside_reads_as_a_finding(self):
        rows = [noisy_row(i, 0.31) for i in range(12)] + [noisy_row(i, 0.02) for i in range(12)]
        aside = verdict.set_aside_of(rows)
        self.assertEqual((aside["rounds"], aside["of"], aside["why"], aside["share"]), (12, 12, {"other": 12}, 0.31))
        self.assertEqual(aside["top"], [{"pid": 4242, "name": "yes", "cpu_s": 14.88}])
        self.assertEqual(verdict.set_aside_text(aside),
                         "other programs took 31% of the CPUs in 12 of 12 rounds (yes, pid 4242)")
        self.assertIsNone(verdict.set_aside_of([noisy_row(0, 0.01)]))
        self.assertEqual(verdict.disturbed_rounds(rows[:3] + [noisy_row(5, 0.01)]),
                         {0: "other", 1: "other", 2: "other"})

    def test_a_program_named_after_the_top_one_counts_among_those_that_took_most(self):
        rows = [noisy_row(i, 0.31, top=("cc1plus", 7)) for i in range(3)]
        for row in rows:
            row["noise"]["neighbours"]["next"] = [{"pid": 4242, "name": "yes", "cpu_s": 0.5}]
        self.assertEqual(verdict.set_aside_of(rows)["top"], [{"pid": 7, "name": "cc1plus", "cpu_s": 3.72},
                                                            {"pid": 4242, "name": "yes", "cpu_s": 1.5}])


if __name__ == "__main__":
    unittest.main()
