"""Tests of the A/A controls across stored runs (bench/reporting/history_report.py's controls_share): the share
of controls that decided a difference, netbench's false-claim rate on its own machines."""

import unittest

from bench.reporting import history_report


def run(label, *verdicts):
    return {"run": {"label": label}, "entries": [{"verdict": v, "control": True, "run": {"label": label}}
                                                 for v in verdicts] + [{"verdict": "holds", "run": {"label": label}}]}


class ControlsShareTest(unittest.TestCase):
    def test_counts_the_controls_that_decided_a_difference_and_leaves_the_claims_out(self):
        share = history_report.controls_share([run("a", "open", "equivalent within \u00b15%"),
                                               run("b", "reversed", "open", "open")])
        self.assertEqual(share, {"controls": 5, "decided": 1, "runs": 2})
        self.assertIn("1 of 5 decided a difference (20%)", history_report.controls_text(share))

    def test_runs_stored_before_controls_have_none(self):
        self.assertIsNone(history_report.controls_share([{"run": {"label": "old"}, "entries": [{"verdict": "holds"}]}]))
        self.assertEqual(history_report.controls_text(None), "")


if __name__ == "__main__":
    unittest.main()
