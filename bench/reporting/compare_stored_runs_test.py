"""The comparison (bench/reporting/compare.py) on the repository's own stored runs: every pair of run folders under
results/data compared, charts included, into a temporary folder, each writing a COMPARE.md that names both
runs. Hand-made runs (compare_test.py) cannot catch what real data holds: a median outside its per-round
range, rows of two links under one round index."""

import glob
import io
import itertools
import json
import os
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

from bench.reporting import compare
from bench.reporting import result_schema

# The stored runs, results/data/ (data of this test), from the test's place in the runfiles or the checkout.
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results", "data")


def holds_result_documents(directory):
    """Whether a folder holds a write-up or bench document (stored comparisons under data/compare do not)."""
    for path in glob.glob(os.path.join(directory, "*.json")):
        with open(path) as f:
            schema = json.load(f).get("schema", "")
        if schema.startswith((result_schema.WRITEUP + "/", result_schema.BENCH + "/")):
            return True
    return False


def stored_runs():
    return sorted(d for d in glob.glob(os.path.join(DATA, "*")) if os.path.isdir(d) and holds_result_documents(d))


class CompareStoredRunsTest(unittest.TestCase):
    def test_there_are_runs_to_compare(self):
        self.assertGreaterEqual(len(stored_runs()), 2, DATA)

    def test_every_pair_of_stored_runs_compares_with_charts(self):
        with tempfile.TemporaryDirectory() as root:
            for a, b in itertools.combinations(stored_runs(), 2):
                names = [os.path.basename(a), os.path.basename(b)]
                with self.subTest(runs=names):
                    out = os.path.join(root, "_vs_".join(names))
                    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as stderr:
                        code = compare.main([a, b, f"--out={out}"])
                    self.assertEqual(code, 0, stderr.getvalue())  # 1: a stored document fails its schema
                    path = os.path.join(out, "COMPARE.md")
                    self.assertTrue(os.path.isfile(path), path)
                    with open(path) as f:
                        text = f.read()
                    self.assertTrue(text.strip(), path)
                    for name in names:
                        self.assertIn(name, text)


if __name__ == "__main__":
    unittest.main()
