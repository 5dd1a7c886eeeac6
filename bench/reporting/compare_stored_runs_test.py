"""The comparison (bench/reporting/compare.py) and its renderers (compare_markdown.py, compare_html.py) on the
repository's own stored runs: every pair of a named sample of them and the newest (testing/stored_run_sample.py)
compared and rendered to Markdown and HTML, each naming both runs and showing each run's verdicts; and each
stored comparison under results/data/compare is what rendering its compare.json gives. Hand-made runs
(bench/cli/compare_test.py) cannot catch what real data holds: a median outside its per-round range, rows of
two links under one round index."""

import glob
import html
import itertools
import json
import os
import unittest

from bench.reporting import compare
from bench.reporting import compare_html
from bench.reporting import compare_markdown
from testing import stored_run_sample

DATA = stored_run_sample.DATA


def stored_comparisons():
    return sorted(d for d in glob.glob(os.path.join(DATA, "compare", "*")) if os.path.isdir(d))


def without_folders(comparison):
    """The comparison without its runs' folders (a test under bazel finds them elsewhere than the checkout)."""
    for section in comparison["sections"]:
        for table in section["tables"]:
            if table["columns"][:2] == ["run", "folder"]:
                table["rows"] = [[row[0]] + row[2:] for row in table["rows"]]
    return comparison


class CompareStoredRunsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        paths = stored_run_sample.runs()
        cls.runs = dict(zip(paths, (compare.load_run(p, label) for p, label in zip(paths, compare.labels_for(paths)))))

    def stored_run(self, label):
        """The stored run `label`, loaded once."""
        path = os.path.join(DATA, label)
        if path not in self.runs:
            self.runs[path] = compare.load_run(path, label)
        return self.runs[path]

    def test_there_are_runs_to_compare(self):
        self.assertGreaterEqual(len(self.runs), 2, DATA)

    def test_every_pair_of_stored_runs_renders_with_each_runs_verdicts(self):
        for a, b in itertools.combinations(stored_run_sample.runs(), 2):
            runs = [self.runs[a], self.runs[b]]
            with self.subTest(runs=[r.label for r in runs]):
                comparison = json.loads(json.dumps(compare.build(runs)))  # it survives its JSON
                self.assertEqual(comparison["invalid"], [])  # a stored document fails its schema
                text = compare_markdown.render(comparison)
                page = compare_html.render(comparison, DATA)
                for run in runs:
                    self.assertIn(run.label, text)
                    self.assertIn(html.escape(run.label), page)
                    for row in run.report["summary"]:
                        self.assertIn(row["question"], text)
                        self.assertIn(f"**{row['verdict']}**", text)
                        self.assertIn(f'data-verdict="{html.escape(row["verdict"])}"', page)

    def test_the_stored_comparisons_are_their_documents_rendered(self):
        # What is checked in under results/data/compare is what its compare.json renders to: nothing edited.
        self.assertTrue(stored_comparisons())
        for directory in stored_comparisons():
            with self.subTest(directory=directory), open(os.path.join(directory, "compare.json")) as f:
                comparison = json.load(f)
                with open(os.path.join(directory, "COMPARE.md")) as stored:
                    self.assertEqual(stored.read(), compare_markdown.render(comparison))
                with open(os.path.join(directory, "compare.html")) as stored:
                    self.assertEqual(stored.read(), compare_html.render(comparison, directory))
                runs = [self.stored_run(label) for label in comparison["runs"]]
                again = json.loads(json.dumps(compare.build(runs, charts=comparison["charts"])))
                self.assertEqual(without_folders(again), without_folders(comparison))  # what the stored runs give


if __name__ == "__main__":
    unittest.main()
