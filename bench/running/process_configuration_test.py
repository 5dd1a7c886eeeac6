"""Tests of process_configuration: a real child process's CPUs and threads as it runs, probes over its output,
the peak of two readings, and the saturation and bottleneck arithmetic."""

import subprocess
import sys
import unittest

from bench.running import process_configuration

# A child that starts 3 threads besides its main one, pins itself to one CPU, says so and waits for stdin.
CHILD = """
import os, sys, threading
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
done = threading.Event()
for _ in range(3):
    threading.Thread(target=done.wait).start()
print("child: gomaxprocs 1 numcpu 1", flush=True)
sys.stdin.read()
done.set()
"""


class ReadTest(unittest.TestCase):
    def test_a_running_child_reports_its_cpus_threads_and_probed_values(self):
        child = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True)
        try:
            line = child.stdout.readline()  # printed once its threads run and its affinity is set
            config = process_configuration.read(child.pid, line, {"gomaxprocs": r"gomaxprocs (?P<value>\d+)"})
        finally:
            child.stdin.close()
            child.wait(timeout=30)
        self.assertEqual(config, {"cpus": 1, "threads": 4, "gomaxprocs": 1})
        self.assertIsNone(process_configuration.allowed_cpus(child.pid))  # gone: nothing to read

    def test_a_probe_that_matches_nothing_is_left_out(self):
        self.assertEqual(process_configuration.probed("listening on 127.0.0.1:80", {"gomaxprocs": r"g (?P<value>\d+)"}),
                         {})


class MergeTest(unittest.TestCase):
    def test_threads_keep_the_peak_and_the_rest_the_newest(self):
        merged = process_configuration.merge({"cpus": 2, "threads": 9, "gomaxprocs": 2},
                                             {"cpus": 1, "threads": 5, "gomaxprocs": 1})
        self.assertEqual(merged, {"cpus": 1, "threads": 9, "gomaxprocs": 1})


class SaturationTest(unittest.TestCase):
    def test_cpu_over_wall_times_cpus(self):
        # The stored run's spammer: 8.43 us x 119,350 msgs/s = 1.006 CPU-s per s, on its 1 CPU.
        self.assertAlmostEqual(process_configuration.saturation(1.006, 1.0, 1), 1.006)
        self.assertAlmostEqual(process_configuration.saturation(0.9, 1.0, 2), 0.45)
        self.assertIsNone(process_configuration.saturation(None, 1.0, 2))
        self.assertIsNone(process_configuration.saturation(0.5, 0.0, 2))

    def test_the_side_at_90_percent_is_the_bottleneck(self):
        self.assertEqual(process_configuration.bottleneck(0.45, 1.006), "load")
        self.assertEqual(process_configuration.bottleneck(0.95, 0.5), "server")
        self.assertEqual(process_configuration.bottleneck(0.9, 0.9), "both")
        self.assertEqual(process_configuration.bottleneck(0.89, 0.2), "neither")
        self.assertIsNone(process_configuration.bottleneck(None, None))


if __name__ == "__main__":
    unittest.main()
