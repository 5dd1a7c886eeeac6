"""Tests of history.py: a claim keyed by what it compares (not its words; a steady-state figure the same claim
as the whole run's it stood for; another program under the same name another claim), each run's estimate from
its sequence or its t interval, the relations, and the random-effects pooling (statsmodels) against the
DerSimonian-Laird and Paule-Mandel numbers worked by hand."""

import math
import unittest

from bench.analysis import history

COMMANDS = {"racket": "{//contestants/racket:echo_server}", "go": "{//contestants/go:echo_server}",
            "go-spammer": "{//contestants/go:spammer}"}


def line(claim="Racket beats Go", ratio=1.2, sd=0.1, rounds=25, figure="msgs_per_s", **cells):
    a = cells.get("a", {"server": "racket", "client": "go-spammer", "placement": "shared"})
    b = cells.get("b", {"server": "go", "client": "go-spammer", "placement": "shared"})
    return {"claim": claim, "verdict": "holds", "figure": figure, "a": a, "b": b,
            "sequence": {"geomean_ratio": ratio, "sd_log": sd, "rounds": rounds, "interval": [ratio * 0.9, ratio * 1.1]}}


class KeyTest(unittest.TestCase):
    def test_the_words_do_not_make_the_claim_the_cells_figure_and_commands_do(self):
        self.assertEqual(history.key(line("A"), "echo_writeup", COMMANDS), history.key(line("B"), "echo_writeup", COMMANDS))
        self.assertEqual(history.key(line(figure="steady_msgs_per_s"), "echo_writeup", COMMANDS),
                         history.key(line(), "echo_writeup", COMMANDS))
        other = {**COMMANDS, "racket": "racket {peers}/racket/echo-server.rkt"}
        self.assertNotEqual(history.key(line(), "echo_writeup", other), history.key(line(), "echo_writeup", COMMANDS))
        split = line(a={"server": "racket", "client": "go-spammer", "placement": "split"})
        self.assertNotEqual(history.key(split, "echo_writeup", COMMANDS), history.key(line(), "echo_writeup", COMMANDS))

    def test_a_line_stored_without_a_placement_ran_shared(self):
        old = line(a={"server": "racket", "client": "go-spammer"}, b={"server": "go", "client": "go-spammer"})
        self.assertEqual(history.key(old, "echo_writeup", COMMANDS), history.key(line(), "echo_writeup", COMMANDS))


class EstimateTest(unittest.TestCase):
    def test_a_sequential_verdicts_standard_error_is_its_sd_over_the_root_of_its_rounds(self):
        log, se, n = history.estimate(line(ratio=1.5, sd=0.2, rounds=16))
        self.assertAlmostEqual(log, math.log(1.5))
        self.assertAlmostEqual(se, 0.05)
        self.assertEqual(n, 16)

    def test_a_fixed_verdicts_comes_from_its_t_interval(self):
        fixed = {"geomean_ratio": 1.0, "ci95": [math.exp(-0.2262), math.exp(0.2262)], "rounds_paired": 10}
        _, se, _ = history.estimate(fixed)
        self.assertAlmostEqual(se, 0.1, places=3)  # t(9) at 97.5% is 2.262

    def test_a_line_without_an_interval_has_none(self):
        self.assertIsNone(history.estimate({"verdict": "not measured"}))


class RelationTest(unittest.TestCase):
    def test_the_design_is_read_from_the_documents_settings_and_rule(self):
        from bench.analysis import sequential
        old_rule = {"sequence": {"rule": sequential.OLDER_RULES[0]}}
        self.assertEqual(history.design({"settings": {"samples": 10}, "verdicts": []}), history.FIXED)
        self.assertEqual(history.design({"settings": {"design": "fixed"}, "verdicts": [old_rule]}), history.FIXED)
        self.assertEqual(history.design({"settings": {"design": "sequential"}, "verdicts": [old_rule]}),
                         history.MEAN_ALONE)
        self.assertEqual(history.design({"settings": {"design": "sequential", "family": {"claims": 22}},
                                         "verdicts": [{}, old_rule]}), history.MEAN_TOGETHER)
        self.assertEqual(history.design({"settings": {"design": "sequential", "family": {"claims": 22}},
                                         "verdicts": [{"sequence": {"rule": sequential.RULE}}]}),
                         history.CURRENT_DESIGN)

    def test_relations(self):
        self.assertEqual(history.relation("open", history.OLDER_OPEN), history.AGREE)
        self.assertEqual(history.relation("holds", "holds"), history.AGREE)
        self.assertEqual(history.relation("holds", "reversed"), history.CONFLICT)
        self.assertEqual(history.relation("holds", "open"), history.DIFFER)
        self.assertEqual(history.relation("equivalent within ±5%", "reversed"), history.DIFFER)


class PoolTest(unittest.TestCase):
    def entries(self, logs, ses):
        return [{"estimate": (x, s, 10)} for x, s in zip(logs, ses)]

    def test_runs_that_agree_pool_to_their_inverse_variance_mean_with_no_spread_between_them(self):
        pooled = history.pool(self.entries([0.1, 0.1, 0.1], [0.05, 0.1, 0.2]))
        self.assertAlmostEqual(pooled["ratio"], math.exp(0.1))
        self.assertAlmostEqual(pooled["tau"], 0.0, places=6)
        self.assertAlmostEqual(pooled["i2"], 0.0, places=6)
        weights = [1 / 0.05 ** 2, 1 / 0.1 ** 2, 1 / 0.2 ** 2]
        se = 1 / math.sqrt(sum(weights))
        self.assertAlmostEqual(math.log(pooled["interval"][1]) - 0.1, 1.96 * se, places=3)

    def test_runs_that_disagree_beyond_their_errors_have_a_spread_between_them(self):
        # Three machines at 0.75, 0.99 and 1.36 (the stored echo headline's spread), each tight.
        pooled = history.pool(self.entries([math.log(0.75), math.log(0.99), math.log(1.36)], [0.03, 0.03, 0.03]))
        self.assertGreater(pooled["i2"], 0.9)
        self.assertGreater(pooled["tau"], 0.2)
        low, high = pooled["prediction"]
        self.assertLess(low, 0.75)
        self.assertGreater(high, 1.36)
        self.assertLess(pooled["interval"][0], 1.0)
        self.assertGreater(pooled["interval"][1], 1.0)

    def test_under_two_runs_nothing_pools_and_under_three_no_prediction(self):
        self.assertIsNone(history.pool(self.entries([0.1], [0.1])))
        self.assertIsNone(history.pool(self.entries([0.1, 0.2], [0.1, 0.1]))["prediction"])


if __name__ == "__main__":
    unittest.main()
