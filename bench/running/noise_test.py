"""Tests of a run's noise readings (bench/running/noise.py) on real processes: a server that waits for each line
switches for each, a reaped client's switches and CPU land on the client (and on nothing where the clients
are elsewhere), a thread that ends during the run is counted as gone, steal and the other load are fractions,
and the parsing and arithmetic on /proc texts written here: steal's share, a thread's status and sched
files, the switches of threads that came and went, the other load without the sides that are not there."""

import os
import subprocess
import sys
import tempfile
import unittest

from bench.running import noise

# A stand-in server: answers each line of its input, and keeps one extra thread until told "stop"; told "grow", it
# touches 16 MiB of new memory first.
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
    if line.strip() == "grow":
        grown = bytearray(16 << 20)
        for i in range(0, len(grown), 4096):
            grown[i] = 1
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
        # The state of the round: each live thread's last CPU, one of this machine's; the page faults counted.
        self.assertEqual(sum(switches["last_cpus"].values()), 2)
        self.assertTrue(set(switches["last_cpus"]) <= {str(c) for c in range(os.cpu_count())})
        self.assertGreaterEqual(switches["minor_faults"], 0)
        self.assertGreaterEqual(switches["major_faults"], 0)

    def test_a_server_that_touches_new_memory_takes_its_page_faults(self):
        with ServerProcess() as server:
            probe = noise.Probe(server.process.pid)
            self.assertEqual(server.ask("grow"), "grow")
            reading = probe.finish()
        self.assertGreaterEqual(reading["server"]["minor_faults"], 2000)  # 16 MiB of 4-KiB pages, touched

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
        self.assertGreater(reading["client"]["minor_faults"], 20)  # every exec'd child maps its pages
        self.assertGreater(reading["client_cpu_s"], 0)
        self.assertIsNone(reading["server"])
        self.assertIsNone(reading["server_cpu_s"])

    def test_clients_on_other_hosts_leave_the_client_figures_out(self):
        probe = noise.Probe(None, clients_here=False)
        subprocess.run(["/bin/true"], check=True)  # a child of the suite's, as an SSH session to a client host is
        reading = probe.finish()
        self.assertIsNone(reading["client"])
        self.assertIsNone(reading["client_cpu_s"])
        self.assertGreaterEqual(reading["suite_cpu_s"], 0)
        self.assertGreaterEqual(reading["other_cpu_s"], 0)

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


# A thread's status file (the lines the probe reads among others) and its sched file, as Linux writes them.
STATUS = """Name:\tserver
State:\tS (sleeping)
Tgid:\t4242
Cpus_allowed_list:\t0-1
voluntary_ctxt_switches:\t120
nonvoluntary_ctxt_switches:\t7
"""
SCHED = """server (4242, #threads: 2)
-------------------------------------------------------------------
se.exec_start                                :      14387489.482464
se.sum_exec_runtime                          :             12.500000
se.nr_migrations                             :                    3
nr_switches                                  :                  127
nr_voluntary_switches                        :                  120
"""


class ParseTest(unittest.TestCase):
    def test_a_stat_text_gives_its_totals_and_cpus(self):
        ticks = noise.parse_stat("cpu  10 1 5 100 2 3 4 6 0 0\ncpu0 5 0 2 50 1 1 2 3 0 0\n"
                                 "cpu1 5 1 3 50 1 2 2 3 0 0\nintr 99\nctxt 12345\n")
        self.assertEqual(ticks, {"user": 10, "nice": 1, "system": 5, "idle": 100, "iowait": 2, "irq": 3,
                                 "softirq": 4, "steal": 6, "cpus": 2})

    def test_a_text_that_is_not_proc_stat_is_refused(self):
        for text in ("", "ssh: connect to host 10.0.0.9: Connection refused\n", "cpu0 1 2 3\n"):
            with self.assertRaises(ValueError):
                noise.parse_stat(text)

    def test_a_thread_s_switches_and_migrations(self):
        self.assertEqual(noise.parse_thread(STATUS + SCHED), {"voluntary": 120, "involuntary": 7, "migrations": 3})

    def test_a_thread_without_a_sched_file_has_no_migrations(self):
        self.assertEqual(noise.parse_thread(STATUS), {"voluntary": 120, "involuntary": 7, "migrations": None})

    def test_a_thread_whose_status_is_gone_is_not_counted(self):
        self.assertIsNone(noise.parse_thread(""))
        self.assertIsNone(noise.parse_thread(SCHED))
        self.assertIsNone(noise.parse_thread("voluntary_ctxt_switches:\t5\n"))  # cut short while it ended

    def test_only_the_wanted_fields_with_numbers(self):
        self.assertEqual(noise.parse_fields("a: 1\nb:\tx\nc : 2.5 ms\nd: 4\n", ("a", "b", "c")),
                         {"a": 1, "c": 2})


class ProcessStatTest(unittest.TestCase):
    def test_the_faults_and_last_cpu_are_read_after_a_command_with_spaces_and_parentheses(self):
        rest = " ".join(str(n) for n in range(3, 53))  # fields 3..52 hold their own numbers
        text = f"1234 (a (weird) name) {rest.replace('3', 'S', 1)}"
        self.assertEqual(noise.parse_process_stat(text), (10, 12, 39))
        self.assertIsNone(noise.parse_process_stat(""))

    def test_fault_deltas_count_a_process_that_started_during_the_run_whole(self):
        self.assertEqual(noise.fault_deltas({1: (100, 2)}, {1: (150, 3), 2: (40, 0)}),
                         {"minor_faults": 90, "major_faults": 1})


class SwitchesTest(unittest.TestCase):
    def test_threads_that_came_and_went(self):
        before = {(1, 1): {"voluntary": 10, "involuntary": 2, "migrations": 1},
                  (1, 2): {"voluntary": 5, "involuntary": 5, "migrations": 0}}
        after = {(1, 1): {"voluntary": 30, "involuntary": 3, "migrations": 4},
                 (1, 3): {"voluntary": 7, "involuntary": 1, "migrations": 2}}  # started during the run: whole
        self.assertEqual(noise.switches(before, after), {"voluntary": 27, "involuntary": 2, "migrations": 5,
                                                          "threads": 2, "threads_exited": 1})

    def test_one_thread_without_migrations_makes_them_unknown(self):
        before = {(1, 1): {"voluntary": 1, "involuntary": 0, "migrations": None}}
        after = {(1, 1): {"voluntary": 4, "involuntary": 1, "migrations": None},
                 (1, 2): {"voluntary": 1, "involuntary": 0, "migrations": 3}}
        self.assertIsNone(noise.switches(before, after)["migrations"])
        self.assertEqual(noise.switches(before, after)["voluntary"], 4)


SIDES = {"client_cpu_s": 2.0, "suite_cpu_s": 0.25}


class ReadingTest(unittest.TestCase):
    BEFORE = {"user": 1000, "nice": 0, "system": 500, "idle": 4000, "iowait": 0, "irq": 0, "softirq": 0,
              "steal": 100, "cpus": 4}
    AFTER = {**BEFORE, "user": 1300, "system": 600, "idle": 4550, "steal": 150}  # 400 busy of 1000 ticks

    def test_without_the_clients_and_the_suite_the_other_load_is_busy_less_the_server(self):
        reading = noise.reading(self.BEFORE, self.AFTER, 100, 2.5, {"server_cpu_s": 1.5})
        self.assertAlmostEqual(reading["steal"], 0.05)
        self.assertAlmostEqual(reading["busy_cpu_s"], 4.0)
        self.assertAlmostEqual(reading["other_cpu_s"], 2.5)
        self.assertAlmostEqual(reading["other_cpu_share"], 0.25)
        self.assertEqual((reading["client_cpu_s"], reading["suite_cpu_s"], reading["client"]), (None, None, None))
        self.assertEqual((reading["cpus"], reading["wall_s"]), (4, 2.5))

    def test_every_side_there_is_taken_off_the_other_load_down_to_none(self):
        reading = noise.reading(self.BEFORE, self.AFTER, 100, 2.5, {**SIDES, "server_cpu_s": 1.5})
        self.assertAlmostEqual(reading["other_cpu_s"], 0.25)
        reading = noise.reading(self.BEFORE, self.AFTER, 100, 2.5, {**SIDES, "server_cpu_s": 3.0})
        self.assertEqual(reading["other_cpu_s"], 0.0)

    def test_the_host_s_clock_ticks_give_the_seconds(self):
        self.assertAlmostEqual(noise.reading(self.BEFORE, self.AFTER, 250, 1.0, {})["busy_cpu_s"], 1.6)

    def test_no_tick_counted_is_no_share(self):
        reading = noise.reading(self.BEFORE, self.BEFORE, 100, 0.001, {"server_cpu_s": 0.0})
        self.assertEqual((reading["steal"], reading["other_cpu_share"]), (0.0, None))


if __name__ == "__main__":
    unittest.main()
