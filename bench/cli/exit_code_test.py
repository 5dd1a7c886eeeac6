"""Tests of a run's exit code (bench/cli/pipeline.py): a failed part, an A/A control that found a difference,
and a run that went well."""

import unittest

from bench.cli import pipeline


def doc(*found):
    return {"run": {"controls": [{"section": f"part{i}", "found": f} for i, f in enumerate(found)]}}


class ExitCodeTest(unittest.TestCase):
    def test_a_control_that_found_a_difference_says_so_in_the_exit_code(self):
        self.assertEqual(pipeline._exit_code(doc(False, True), []), pipeline.CONTROL_FOUND_EXIT)

    def test_fair_controls_and_no_failure_exit_0(self):
        self.assertEqual(pipeline._exit_code(doc(False, False), []), 0)
        self.assertEqual(pipeline._exit_code(None, []), 0)

    def test_a_failed_part_comes_first(self):
        self.assertEqual(pipeline._exit_code(doc(True), ["echo"]), 1)


if __name__ == "__main__":
    unittest.main()
