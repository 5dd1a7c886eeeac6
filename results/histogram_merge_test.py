"""The Python merge of run documents' histograms (results/histogram_merge.py) against the C++ histogram: a
real //echo:client document's percentiles are recomputed from its buckets exactly; a document merged with
itself keeps them, with every count doubled; merged parts add up; different ranges are refused."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import binaries  # noqa: E402
import histogram_merge  # noqa: E402
import server_process  # noqa: E402


def part(buckets, **extra):
    count = sum(n for _, n in buckets)
    values = [v for v, n in buckets for _ in range(n)]
    mean = sum(values) / count
    stddev = (sum((v - mean) ** 2 for v in values) / count) ** 0.5
    return {"unit": "ns", "count": count, "min": min(values), "max": max(values), "mean": mean, "stddev": stddev,
            "overflow_count": 0, "highest_trackable": 3600000000000, "significant_digits": 3,
            "buckets": [list(b) for b in buckets], **extra}


class RealDocumentTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        server = server_process.start_server([binaries.bazel_binary("//echo:server"), "--port=0"],
                                             ready=r"listening on")
        try:
            path = os.path.join(tempfile.mkdtemp(), "run.json")
            subprocess.run([binaries.bazel_binary("//echo:client"), f"--port={server.port()}", "--clients=2",
                            "--mode=pingpong", "--messages=3000", "--progress=false", f"--json={path}"],
                           check=True, capture_output=True)
        finally:
            server.stop()
        with open(path) as f:
            cls.document = json.load(f)

    def test_percentiles_follow_from_the_buckets_as_in_cxx(self):
        histograms = self.document["histograms"]
        self.assertTrue(histograms)
        for name, histogram in histograms.items():
            merged = histogram_merge.merge([histogram])
            self.assertEqual(merged["percentiles"], histogram["percentiles"], name)
            self.assertEqual((merged["count"], merged["min"], merged["max"]),
                             (histogram["count"], histogram["min"], histogram["max"]))

    def test_a_document_merged_with_itself_doubles_the_counts_and_keeps_the_percentiles(self):
        merged = histogram_merge.merge_documents_histograms([self.document, self.document])
        for name, histogram in self.document["histograms"].items():
            self.assertEqual(merged[name]["count"], 2 * histogram["count"])
            self.assertEqual(merged[name]["buckets"], [[v, 2 * n] for v, n in histogram["buckets"]])
            self.assertEqual(merged[name]["percentiles"], histogram["percentiles"])
            self.assertAlmostEqual(merged[name]["mean"], histogram["mean"], delta=1e-6 * histogram["mean"])
            self.assertAlmostEqual(merged[name]["stddev"], histogram["stddev"], delta=1e-3 * histogram["stddev"] + 1)


class SyntheticTest(unittest.TestCase):
    def test_parts_add_up(self):
        a = part([(100, 3), (200, 1)])
        b = part([(200, 2), (5000, 4)])
        merged = histogram_merge.merge([a, b])
        self.assertEqual(merged["buckets"], [[100, 3], [200, 3], [5000, 4]])
        self.assertEqual((merged["count"], merged["min"], merged["max"]), (10, 100, 5000))
        whole = part([(100, 3), (200, 3), (5000, 4)])
        self.assertAlmostEqual(merged["mean"], whole["mean"])
        self.assertAlmostEqual(merged["stddev"], whole["stddev"])
        self.assertEqual(merged["percentiles"]["50"], 200)
        self.assertEqual(merged["percentiles"]["99"], 5000)  # 5000's bucket is [5000, 5001]: clamped to max

    def test_a_name_missing_from_one_document_merges_the_others(self):
        merged = histogram_merge.merge_documents_histograms([{"histograms": {"rtt": part([(10, 1)])}},
                                                             {"histograms": {}}])
        self.assertEqual(merged["rtt"]["count"], 1)

    def test_different_ranges_are_refused(self):
        with self.assertRaises(histogram_merge.MergeError):
            histogram_merge.merge([part([(10, 1)]), part([(10, 1)], highest_trackable=1000000)])


if __name__ == "__main__":
    unittest.main()
