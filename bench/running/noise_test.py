"""Tests of a run's noise readings (bench/running/noise.py) on real processes: a server that waits for each line
switches for each, a reaped client's switches and CPU land on the client, a thread that ends during the run
is counted as gone, steal and the other load are fractions, and steal's arithmetic on a /proc/stat written
here."""

import os
import subprocess
import sys
import tempfile
import unittest

from bench.running import noise

# A stand-in server: answers each line of its input, and keeps one extra thread until told "stop".
# Thread.join returns when Python is done with the thread, a moment before the kernel drops it from
# /proc/PID/task; "stop" is answered only once the kernel lists the main thread alone.
SERVER = r"""
import os, sys, threading
done = threading.Event()
waiter = threading.Thread(target=done.wait, daemon=True)
waiter.start()
for line in sys.stdin:
    if line.strip() == "stop":
        done.set()
        waiter.join()
        while len(os.listdir("/proc/self/task")) > 1:
            os.sched_yield()
    sys.stdout.write(line)
    sys.stdout.flush()
"""


class ServerProcess:
    def __enter__(self):
        self.process = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, bufsize=1)
        self.ask("ready")  # it has started its extra thread and answers
        return self

    def ask(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline().strip()

    def __exit__(self, *_):
        self.process.stdin.close()
        self.process.wait()
        self.process.stdout.close()


def total_ticks():
    ticks = noise.cpu_ticks()
    return sum(v for k, v in ticks.items() if k != "cpus")


class ProbeTest(unittest.TestCase):
    def test_a_server_that_waits_for_each_request_switches_for_each(self):
        with ServerProcess() as server:
            probe = noise.Probe(server.process.pid)
            for i in range(200):
                self.assertEqual(server.ask(str(i)), str(i))
            reading = probe.finish()
        switches = reading["server"]
        # Each line leaves the server waiting for the next: it blocks on its input (a voluntary switch) or,
        # on a busy machine, the woken test preempts it first and the next line is there when it reads (an
        # involuntary one). Which of the two depends on the load; that it switches for (almost) every line
        # does not.
        self.assertGreaterEqual(switches["voluntary"] + switches["involuntary"], 100)
        self.assertGreaterEqual(switches["voluntary"], 0)
        self.assertGreaterEqual(switches["involuntary"], 0)
        self.assertEqual(switches["threads"], 2)
        self.assertEqual(switches["threads_exited"], 0)
        self.assertTrue(switches["migrations"] is None or switches["migrations"] >= 0)
        self.assertGreater(reading["server_cpu_s"], 0)

    def test_a_thread_that_ends_during_the_run_is_counted_as_gone(self):
        with ServerProcess() as server:
            probe = noise.Probe(server.process.pid)
            self.assertEqual(server.ask("stop"), "stop")
            reading = probe.finish()
        self.assertEqual(reading["server"]["threads"], 1)
        self.assertEqual(reading["server"]["threads_exited"], 1)

    def test_a_reaped_client_is_the_client(self):
        probe = noise.Probe(None)
        # The shell waits for each of its 20 children: 20 voluntary switches at least, theirs on top.
        subprocess.run(["/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do "
                        "/bin/true; done"], check=True)
        reading = probe.finish()
        self.assertGreaterEqual(reading["client"]["voluntary"], 20)
        self.assertIsNone(reading["client"]["migrations"])
        self.assertGreater(reading["client_cpu_s"], 0)
        self.assertIsNone(reading["server"])
        self.assertIsNone(reading["server_cpu_s"])

    def test_steal_and_the_other_load_are_fractions(self):
        with ServerProcess() as server:
            probe = noise.Probe(server.process.pid)
            # Until /proc/stat has counted some ticks: shares of no time at all are None.
            start, i = total_ticks(), 0
            while total_ticks() < start + 20:
                server.ask(str(i))
                i += 1
            reading = probe.finish()
        self.assertGreaterEqual(reading["steal"], 0)
        self.assertLessEqual(reading["steal"], 1)
        self.assertGreaterEqual(reading["other_cpu_s"], 0)
        self.assertGreaterEqual(reading["other_cpu_share"], 0)
        self.assertLessEqual(reading["other_cpu_share"], 1)
        self.assertEqual(reading["cpus"], noise.cpu_ticks()["cpus"])
        self.assertGreaterEqual(reading["cpus"], 1)


class StatTest(unittest.TestCase):
    def write(self, path, user, system, idle, steal):
        with open(path, "w") as f:
            f.write(f"cpu  {user} 0 {system} {idle} 0 0 0 {steal} 0 0\n"
                    f"cpu0 0 0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0 0 0\nintr 0\n")

    def test_steal_is_the_stolen_share_of_all_cpu_time(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "stat")
            self.write(path, 1000, 500, 4000, 100)
            probe = noise.Probe(None, stat_path=path)
            self.write(path, 1100, 550, 4120, 130)  # 100 + 50 busy, 120 idle, 30 stolen: 300 ticks in all
            reading = probe.finish()
        self.assertAlmostEqual(reading["steal"], 0.1)
        self.assertAlmostEqual(reading["busy_cpu_s"], 150 / os.sysconf("SC_CLK_TCK"))
        self.assertEqual(reading["cpus"], 2)

    def test_a_stat_line_with_fewer_columns_reads_as_zeros(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "stat")
            with open(path, "w") as f:
                f.write("cpu  10 0 5 100\ncpu0 10 0 5 100\n")
            ticks = noise.cpu_ticks(path)
        self.assertEqual((ticks["user"], ticks["idle"], ticks["steal"], ticks["cpus"]), (10, 100, 0, 1))


if __name__ == "__main__":
    unittest.main()
