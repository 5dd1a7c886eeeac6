"""Tests of the noise reading of a server on another host (bench/running/remote_noise.py): its command's output
parsed from text written here (the host's ticks per second and /proc/stat, then each thread's files after its
line), and the probe end to end with this machine standing in for the host (its command run by a local sh rather
than over SSH): a server that waits for each line switches for each, its child process is part of its tree, a
server that ended has no server reading, a host without netbench's CPU reader has no server CPU figure but the
rest, and a host that cannot be read gives no reading at all."""

import os
import subprocess
import sys
import unittest

from bench.running import noise
from bench.running import process_cpu
from bench.running import remote_noise
from bench.running import ssh_host

STAT = "cpu  100 0 50 1000 0 0 0 10 0 0\ncpu0 50 0 25 500 0 0 0 5 0 0\ncpu1 50 0 25 500 0 0 0 5 0 0\nctxt 99\n"


def thread_files(voluntary, involuntary, migrations=None):
    status = (f"Name:\tserver\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t{voluntary}\n"
              f"nonvoluntary_ctxt_switches:\t{involuntary}\n")
    sched = ("server (4242, #threads: 2)\n" + "-" * 67 + "\n"
             f"se.nr_migrations                             :                    {migrations}\n"
             if migrations is not None else "")
    return status + sched


class ParseOutputTest(unittest.TestCase):
    def test_the_host_s_stat_and_each_thread_of_the_tree(self):
        text = (STAT + "netbench-task 4242 4242\n" + thread_files(10, 2, 1) + "netbench-task 4242 4243\n"
                + thread_files(5, 0) + "netbench-task 4300 4300\n" + thread_files(1, 1, 0))
        ticks_per_s, ticks, threads = remote_noise.parse_output("100\n" + text)
        self.assertEqual((ticks_per_s, ticks), (100, noise.parse_stat(STAT)))
        self.assertEqual(threads, {(4242, 4242): {"voluntary": 10, "involuntary": 2, "migrations": 1},
                                   (4242, 4243): {"voluntary": 5, "involuntary": 0, "migrations": None},
                                   (4300, 4300): {"voluntary": 1, "involuntary": 1, "migrations": 0}})

    def test_a_thread_that_ended_while_it_was_read_is_left_out(self):
        text = STAT + "netbench-task 4242 4242\n" + thread_files(10, 2, 1) + "netbench-task 4242 4243\n"
        self.assertEqual(list(remote_noise.parse_output("100\n" + text)[2]), [(4242, 4242)])

    def test_a_server_that_is_gone_has_no_threads(self):
        _, ticks, threads = remote_noise.parse_output("100\n" + STAT)
        self.assertEqual((ticks["cpus"], threads), (2, {}))

    def test_output_that_is_not_the_host_s_stat_is_refused(self):
        with self.assertRaises(ValueError):
            remote_noise.parse_output("")
        with self.assertRaises(ValueError):  # the host's /proc/stat without its unit
            remote_noise.parse_output(STAT)


class Here:
    """This machine standing in for a host: the probe's command runs in a local sh, not over SSH, and the
    server's CPU comes from process_cpu, as the reader there would give it."""

    def __init__(self):
        self.ssh = self
        self.commands = 0

    def run(self, argv, check=True, timeout_s=60):
        self.commands += 1
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=check)

    @staticmethod
    def tree_cpu_seconds(pid):
        return process_cpu.tree_cpu_seconds(pid)


class Unreachable(Here):
    """A host whose connection failed: ssh's exit 255 and nothing on stdout, or a command that timed out."""

    def __init__(self, times_out):
        super().__init__()
        self.times_out = times_out

    def run(self, argv, check=True, timeout_s=60):
        if self.times_out:
            raise ssh_host.RemoteError("bench@10.0.0.9", "took over 30 s")
        return subprocess.CompletedProcess(argv, 255, stdout="", stderr="Connection refused")

    @staticmethod
    def tree_cpu_seconds(pid):
        raise ssh_host.RemoteError("bench@10.0.0.9", "the connection failed")


class NoReader(Here):
    """A host whose CPU reader cannot run (ssh.SshExecutor.tree_cpu_seconds gives None)."""

    @staticmethod
    def tree_cpu_seconds(pid):
        return None


# A stand-in server with a child process (a worker): answers each line of its input.
SERVER = r"""
import subprocess, sys
worker = subprocess.Popen(["sleep", "600"])
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
worker.kill()
worker.wait()
"""


class RemoteProbeTest(unittest.TestCase):
    def start(self):
        server = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.addCleanup(self.stop, server)
        self.ask(server, "ready")
        return server

    @staticmethod
    def ask(server, line):
        server.stdin.write(line + "\n")
        server.stdin.flush()
        return server.stdout.readline().strip()

    @staticmethod
    def stop(server):
        if server.poll() is None:
            server.stdin.close()
            server.wait()
        server.stdout.close()

    def test_a_server_that_waits_for_each_request_switches_for_each(self):
        server, here = self.start(), Here()
        probe = remote_noise.RemoteProbe(here, server.pid)
        for i in range(200):
            self.assertEqual(self.ask(server, str(i)), str(i))
        reading = probe.finish()
        self.assertEqual(here.commands, 2)  # one command at each end
        switches = reading["server"]
        # As in noise_test: blocked on its input (voluntary), or preempted first on a busy machine.
        self.assertGreaterEqual(switches["voluntary"] + switches["involuntary"], 100)
        # Its own thread and its worker's, found through the kernel's list of each thread's children.
        children_listed = os.path.exists(f"/proc/{server.pid}/task/{server.pid}/children")
        self.assertEqual(switches["threads"], 2 if children_listed else 1)
        self.assertEqual(switches["threads_exited"], 0)
        self.assertTrue(switches["migrations"] is None or switches["migrations"] >= 0)
        self.assertGreater(reading["server_cpu_s"], 0)
        self.assertGreaterEqual(reading["steal"], 0)
        self.assertLessEqual(reading["steal"], 1)
        self.assertGreaterEqual(reading["other_cpu_s"], 0)
        self.assertEqual(reading["cpus"], noise.cpu_ticks()["cpus"])
        self.assertGreater(reading["wall_s"], 0)
        self.assertEqual((reading["client_cpu_s"], reading["suite_cpu_s"], reading["client"]), (None, None, None))
        self.assertEqual(set(reading), set(noise.Probe(None).finish()))  # a local reading's fields

    def test_a_server_that_ended_has_no_server_reading(self):
        server = self.start()
        probe = remote_noise.RemoteProbe(Here(), server.pid)
        self.stop(server)
        reading = probe.finish()
        self.assertIsNone(reading["server"])
        self.assertIsNone(reading["server_cpu_s"])
        self.assertGreaterEqual(reading["busy_cpu_s"], 0)

    def test_a_host_without_the_cpu_reader_has_no_server_cpu_but_the_rest(self):
        server = self.start()
        probe = remote_noise.RemoteProbe(NoReader(), server.pid)
        self.assertEqual(self.ask(server, "one"), "one")
        reading = probe.finish()
        self.assertIsNone(reading["server_cpu_s"])
        self.assertIsNotNone(reading["server"])
        self.assertGreaterEqual(reading["other_cpu_s"], 0)
        self.assertAlmostEqual(reading["other_cpu_s"], reading["busy_cpu_s"])  # nothing measured to take away

    def test_a_host_that_cannot_be_read_gives_no_reading(self):
        for times_out in (False, True):
            probe = remote_noise.RemoteProbe(Unreachable(times_out), 4242)
            self.assertIsNone(probe.finish())


if __name__ == "__main__":
    unittest.main()
