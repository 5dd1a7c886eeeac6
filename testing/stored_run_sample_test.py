"""The sample of stored runs the tests draw and render (testing/stored_run_sample.py): every named run is stored,
the newest is the run that started last, and together they hold every part and every kind (schema) of document
that the stored runs' reports are made of, so that a kind left out of the sample is a failure here rather than a
document no test renders."""

import json
import os
import unittest

from testing import stored_run_sample


def kinds(directory):
    """{(section id, its source document's schema)} of the stored run in `directory`."""
    with open(os.path.join(directory, stored_run_sample.REPORT)) as f:
        sections = json.load(f)["sections"]
    found = set()
    for section in sections:
        with open(os.path.join(directory, section["source"])) as f:
            found.add((section["id"], json.load(f)["schema"]))
    return found


class SampleTest(unittest.TestCase):
    def test_every_named_run_is_stored(self):
        stored = stored_run_sample.every_run()
        for name in stored_run_sample.NAMED:
            self.assertIn(os.path.join(stored_run_sample.DATA, name), stored)

    def test_the_newest_started_last(self):
        newest = stored_run_sample.started(stored_run_sample.newest())
        self.assertEqual(newest, max(stored_run_sample.started(d) for d in stored_run_sample.every_run()))
        self.assertIn(stored_run_sample.newest(), stored_run_sample.runs())

    def test_the_sample_is_a_few_runs_each_once(self):
        sample = stored_run_sample.runs()
        self.assertEqual(len(sample), len(set(sample)))
        self.assertLessEqual(len(sample), len(stored_run_sample.NAMED) + 1)

    def test_the_sample_holds_every_part_and_document_kind_of_the_stored_runs(self):
        stored = set().union(*(kinds(d) for d in stored_run_sample.every_run()))
        sampled = set().union(*(kinds(d) for d in stored_run_sample.runs()))
        self.assertEqual(sorted(stored - sampled), [], "add a run that holds them to stored_run_sample.NAMED")


if __name__ == "__main__":
    unittest.main()
