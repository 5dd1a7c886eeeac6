"""What a run's error control says of its families (error_control.py's statement, which the summary and the
reports print): the write-ups' claims in a main job, a user's own questions in a run of them."""

import unittest

from bench.analysis import sequential
from bench.design import error_control


def statement(words=None):
    control = error_control.ErrorControl(words=words)
    control.add(("your-echo", "mine beats go"), sequential.SUMMARY)
    control.add(("your-echo", "[split] mine beats go"), sequential.OTHER)
    return control.statement()


class StatementTest(unittest.TestCase):
    def test_a_run_of_your_questions_names_them_not_the_write_ups(self):
        said = [family["what"] for family in statement(error_control.YOUR_QUESTIONS)["families"].values()]
        self.assertEqual(len(said), 2)
        self.assertTrue(all(what.startswith("your questions") for what in said), said)
        self.assertFalse(any("write-up" in what for what in said), said)

    def test_the_main_job_names_the_write_ups_claims(self):
        families = statement()["families"]
        self.assertEqual(families[sequential.SUMMARY]["what"], sequential.FAMILIES[sequential.SUMMARY])
        self.assertEqual(families[sequential.OTHER]["claims"], 1)


if __name__ == "__main__":
    unittest.main()
