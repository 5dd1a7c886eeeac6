"""The Python merge of stored histograms against the C++ one: //results:histogram_merge_fixture records two
histograms, merges them with LatencyHistogram::Merge and writes all three; merging the two stored ones here
must give the same buckets, count, min, max, overflow and every percentile."""

import json
import os
import subprocess
import tempfile
import unittest

from bench.analysis import histogram_merge


def fixture_path():
    for root in (os.environ.get("TEST_SRCDIR", ""), os.environ.get("RUNFILES_DIR", "")):
        path = os.path.join(root, "netbench", "results", "histogram_merge_fixture")
        if root and os.path.exists(path):
            return path
    raise unittest.SkipTest("histogram_merge_fixture not found: run with bazel test //results:histogram_merge_test")


class HistogramMergeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "histograms.json")
            subprocess.run([fixture_path(), path], check=True)
            with open(path) as f:
                cls.histograms = json.load(f)["histograms"]

    def test_merge_of_the_stored_buckets_is_the_cpp_merge(self):
        a, b, expected = self.histograms["a"], self.histograms["b"], self.histograms["merged"]
        merged = histogram_merge.merge([a, b])
        self.assertGreater(len(expected["buckets"]), 1000)  # a real spread, not a handful of buckets
        for key in ("count", "min", "max", "overflow_count", "highest_trackable", "buckets", "percentiles"):
            self.assertEqual(merged[key], expected[key], key)
        self.assertEqual(merged["overflow_count"], 1)
        # Pooled from 9-digit means and stddevs: close, not exact (histogram_merge's docstring).
        self.assertAlmostEqual(merged["mean"] / expected["mean"], 1.0, places=7)
        self.assertAlmostEqual(merged["stddev"] / expected["stddev"], 1.0, places=7)

    def test_percentiles_of_one_histogram_are_those_the_cpp_reported(self):
        for name in ("a", "b", "merged"):
            histogram = self.histograms[name]
            for key, value in histogram["percentiles"].items():
                self.assertEqual(histogram_merge.value_at_percentile(histogram, float(key)), value, (name, key))

    def test_merge_is_order_free_and_an_empty_part_changes_nothing(self):
        a, b = self.histograms["a"], self.histograms["b"]
        empty = {**a, "count": 0, "min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "overflow_count": 0,
                 "buckets": []}
        self.assertEqual(histogram_merge.merge([b, empty, a])["buckets"], histogram_merge.merge([a, b])["buckets"])
        self.assertEqual(histogram_merge.merge([empty, a])["percentiles"], a["percentiles"])

    def test_a_fleets_documents_merge_per_name_and_a_name_some_lack_merges_the_rest(self):
        a, b = self.histograms["a"], self.histograms["b"]
        merged = histogram_merge.merge_documents_histograms(
            [{"histograms": {"rtt": a, "connect": b}}, {"histograms": {"rtt": b}}, {"histograms": {}}])
        self.assertEqual(sorted(merged), ["connect", "rtt"])
        self.assertEqual(merged["rtt"]["buckets"], self.histograms["merged"]["buckets"])
        self.assertEqual(merged["connect"]["count"], b["count"])


class HandComputedTest(unittest.TestCase):
    def histogram(self, values):
        buckets = {}
        for v in values:
            low = histogram_merge.lowest_equivalent_value(v)
            buckets[low] = buckets.get(low, 0) + 1
        return {"unit": "ns", "count": len(values), "min": min(values), "max": max(values), "mean": 0.0,
                "stddev": 0.0, "overflow_count": 0, "highest_trackable": 3600 * 10**9, "significant_digits": 3,
                "buckets": sorted([k, c] for k, c in buckets.items())}

    def test_bucket_bounds_keep_three_significant_digits(self):
        self.assertEqual(histogram_merge.lowest_equivalent_value(2047), 2047)  # single units below 2048
        self.assertEqual(histogram_merge.highest_equivalent_value(2047), 2047)
        self.assertEqual(histogram_merge.lowest_equivalent_value(2049), 2048)  # pairs from 2048 to 4095
        self.assertEqual(histogram_merge.highest_equivalent_value(2049), 2049)
        self.assertEqual(histogram_merge.lowest_equivalent_value(1000001), 999936)
        self.assertEqual(histogram_merge.highest_equivalent_value(1000001), 1000447)

    def test_percentile_ranks_count_across_the_merged_parts(self):
        merged = histogram_merge.merge([self.histogram([10, 20, 30]), self.histogram([40, 50])])
        self.assertEqual(merged["count"], 5)
        self.assertEqual(merged["percentiles"]["50"], 30)  # rank ceil(2.5) = 3
        self.assertEqual(merged["percentiles"]["90"], 50)
        self.assertEqual(merged["buckets"], [[10, 1], [20, 1], [30, 1], [40, 1], [50, 1]])

    def test_a_benchs_rows_merge_per_case_over_their_rounds(self):
        rows = [{"server": "epoll", "load": "pingpong3", "round": 0, "returncode": 0,
                 "histograms": {"rtt": self.histogram([10, 20])}},
                {"server": "go", "load": "pingpong3", "round": 0, "returncode": 0,
                 "histograms": {"rtt": self.histogram([70])}},
                {"server": "epoll", "load": "pingpong3", "round": 1, "returncode": 0,
                 "histograms": {"rtt": self.histogram([30])}},
                {"server": "epoll", "load": "pingpong3", "round": 2, "returncode": 1,  # a failed client
                 "histograms": {"rtt": self.histogram([9999])}}]
        merged = histogram_merge.merge_case_histograms(rows)
        self.assertEqual([(m["server"], m["name"], m["rounds"]) for m in merged],
                         [("epoll", "rtt", [0, 1]), ("go", "rtt", [0])])
        self.assertEqual(merged[0]["histogram"]["buckets"], [[10, 1], [20, 1], [30, 1]])
        self.assertEqual(merged[0]["histogram"]["max"], 30)
        self.assertFalse(any("histograms" in row for row in rows))  # taken out of the rows

    def test_different_ranges_refuse_to_merge(self):
        other = {**self.histogram([1]), "highest_trackable": 10**9}
        with self.assertRaisesRegex(histogram_merge.MergeError, "different ranges"):
            histogram_merge.merge([self.histogram([1]), other])

    def test_buckets_that_miss_values_refuse_to_merge(self):
        broken = {**self.histogram([1, 2]), "count": 3}
        with self.assertRaisesRegex(histogram_merge.MergeError, "count says 3"):
            histogram_merge.merge([broken])


if __name__ == "__main__":
    unittest.main()
