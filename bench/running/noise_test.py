"""Tests of a run's noise readings (bench/running/noise.py) on real processes: a server that waits for each line
switches for each, a reaped client's switches and CPU land on the client (and on nothing where the clients
are elsewhere), a thread that ends during the run is counted as gone, steal and the other load are fractions,
and the parsing and arithmetic on /proc texts written here: steal's share, a thread's status and sched
files, the switches of threads that came and went, the other load without the sides that are not there; the
neighbours: a program that is not ours is named by pid and name with its CPU, one of ours (a child, this
process) is not counted, kernel threads are left out, and the quiet level sees what ran while it watched."""

import os
import subprocess
import sys
import tempfile
import unittest

from bench.running import noise
from bench.running import spinner

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


def start_spinner(orphan):
    """A spinner (spinner.py: 0.2 s of CPU, then "spun", then it waits), as this process's child or, `orphan`,
    started by a shell that exits at once, so that it is no descendant of this process: another program.
    (process, its pid)."""
    if not orphan:
        child = subprocess.Popen(["/usr/bin/python3", "-c", spinner.PROGRAM], stdout=subprocess.PIPE, text=True)
        return child, child.pid
    shell = subprocess.Popen(["sh", "-c", '/usr/bin/python3 -c "$1" & echo $!', "sh", spinner.PROGRAM],
                             stdout=subprocess.PIPE, text=True)
    pid = int(shell.stdout.readline())
    shell.wait()  # gone: the spinner is now another parent's
    return shell, pid


def stop_spinner(process, pid):
    os.kill(pid, 15)
    if process.pid == pid:
        process.wait()
    process.stdout.close()


def fake_proc(folder, tasks):
    """A /proc of `tasks` ({pid: stat text}) under `folder`."""
    for pid, text in tasks.items():
        os.makedirs(os.path.join(folder, str(pid)))
        with open(os.path.join(folder, str(pid), "stat"), "w") as f:
            f.write(text)
    os.makedirs(os.path.join(folder, "self"))  # not a process: left out


def stat_text(pid, name, ppid, flags, utime, stime, started):
    # proc(5): pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
    # cutime cstime priority nice threads itrealvalue starttime ...
    return (f"{pid} ({name}) S {ppid} {pid} {pid} 0 -1 {flags} 10 0 0 0 {utime} {stime} 0 0 20 0 1 0 {started} "
            "1000 100 " + " ".join(["0"] * 30) + "\n")


class NeighboursTest(unittest.TestCase):
    def test_a_task_s_stat_gives_its_name_parent_flags_cpu_and_start(self):
        self.assertEqual(noise.parse_task(stat_text(7, "tmux: server (1)", 1, 0x400100, 30, 12, 555)),
                         ("tmux: server (1)", 1, 0x400100, 42, 555))
        self.assertIsNone(noise.parse_task(""))
        self.assertIsNone(noise.parse_task("7 (cut"))

    def test_kernel_threads_are_left_out(self):
        with tempfile.TemporaryDirectory() as folder:
            fake_proc(folder, {2: stat_text(2, "kthreadd", 0, noise.PF_KTHREAD | 0x40, 5, 5, 1),
                               40: stat_text(40, "ksoftirqd/0", 2, noise.PF_KTHREAD, 0, 900, 3),
                               500: stat_text(500, "python3", 1, 0x400000, 100, 20, 900)})
            self.assertEqual(noise.processes(folder), {500: ("python3", 1, 0x400000, 120, 900)})

    def test_the_neighbours_cpu_is_each_one_s_delta_and_a_new_one_whole(self):
        before = {10: ("sshd", 1, 0, 100, 5), 11: ("old", 1, 0, 50, 6), 12: ("ours", 1, 0, 10, 7)}
        after = {10: ("sshd", 1, 0, 103, 5), 11: ("reused", 1, 0, 20, 99),  # pid 11 again, a new process
                 12: ("ours", 1, 0, 500, 7), 13: ("hog", 1, 0, 250, 50)}
        found = noise.neighbours(before, after, excluded={12}, ticks_per_s=100)
        self.assertAlmostEqual(found["cpu_s"], 2.73)  # 3 + 20 + 250 ticks; pid 12 is ours
        self.assertEqual(found["top"], {"pid": 13, "name": "hog", "cpu_s": 2.5})
        self.assertEqual(found["next"], [{"pid": 11, "name": "reused", "cpu_s": 0.2},
                                         {"pid": 10, "name": "sshd", "cpu_s": 0.03}])
        self.assertEqual(noise.neighbours(before, before, set(), 100), {"cpu_s": 0.0, "top": None, "next": []})

    def test_ours_are_the_roots_and_their_descendants(self):
        snapshot = {1: ("init", 0, 0, 0, 0), 50: ("suite", 1, 0, 0, 0), 51: ("server", 50, 0, 0, 0),
                    52: ("worker", 51, 0, 0, 0), 60: ("sshd", 1, 0, 0, 0)}
        self.assertEqual(noise.ours(snapshot, [50, None]), {50, 51, 52})

    def test_this_process_and_its_children_are_ours_and_an_orphan_is_not(self):
        child, child_pid = start_spinner(orphan=False)
        orphan, orphan_pid = start_spinner(orphan=True)
        try:
            mine = noise.ours(noise.processes(), [os.getpid()])
            self.assertIn(os.getpid(), mine)
            self.assertIn(child_pid, mine)
            self.assertNotIn(orphan_pid, mine)
        finally:
            stop_spinner(child, child_pid)
            stop_spinner(orphan, orphan_pid)

    def test_a_run_names_a_program_beside_it_with_its_cpu(self):
        probe = noise.Probe(None)
        orphan, pid = start_spinner(orphan=True)  # started during the run: it counts whole
        try:
            self.assertEqual(orphan.stdout.readline().strip(), "spun")
            name, _, _, ticks, _ = noise.processes()[pid]
            reading = probe.finish()
        finally:
            stop_spinner(orphan, pid)
        near = reading["neighbours"]
        self.assertEqual(name, "python3")
        # Its 0.2 s, in 10 ms ticks, at least; on a busy machine other programs add theirs, and may be the top.
        self.assertGreaterEqual(near["cpu_s"], ticks / os.sysconf("SC_CLK_TCK"))
        self.assertGreaterEqual(ticks / os.sysconf("SC_CLK_TCK"), spinner.SPUN_S - 0.02)
        self.assertGreater(near["share"], 0)
        self.assertLessEqual(near["share"], 1)
        named = [near["top"]] + near["next"]
        if pid in [n["pid"] for n in named]:
            self.assertEqual(next(n["name"] for n in named if n["pid"] == pid), "python3")
        else:  # busier programs took all three places
            self.assertEqual(len(named), 3)
            self.assertGreaterEqual(named[-1]["cpu_s"], ticks / os.sysconf("SC_CLK_TCK"))

    def test_a_child_s_cpu_is_not_a_neighbour_s(self):
        # Its spin is the client's (a reaped child), never a neighbour's: the top, when there is one, is another.
        probe = noise.Probe(None)
        child, pid = start_spinner(orphan=False)
        try:
            self.assertEqual(child.stdout.readline().strip(), "spun")
            reading = probe.finish()
        finally:
            stop_spinner(child, pid)
        self.assertNotEqual((reading["neighbours"]["top"] or {}).get("pid"), pid)

    def test_the_quiet_level_counts_what_ran_while_it_watched(self):
        spun = []

        def watch(seconds):  # instead of sleeping: a program spins, and is still there at the end
            orphan, pid = start_spinner(orphan=True)
            spun.append((orphan, pid))
            self.assertEqual(orphan.stdout.readline().strip(), "spun")
            spun.append(noise.processes()[pid][3] / os.sysconf("SC_CLK_TCK"))

        try:
            level = noise.quiet_level(seconds=0.5, sleep=watch)
        finally:
            stop_spinner(*spun[0])
        spun = spun[1:]
        self.assertEqual(level["seconds"], 0.5)
        self.assertGreaterEqual(level["cpu_s"], spun[0])
        self.assertGreater(level["share"], 0)
        self.assertIsNotNone(level["top"])

    def test_a_reading_gives_the_neighbours_share_of_every_cpu_s_time(self):
        near = {"cpu_s": 2.0, "top": {"pid": 9, "name": "yes", "cpu_s": 2.0}}
        reading = noise.reading(ReadingTest.BEFORE, ReadingTest.AFTER, 100, 2.5, {"neighbours": near})
        self.assertAlmostEqual(reading["neighbours"]["share"], 0.2)  # 200 of 1000 ticks
        self.assertIsNone(noise.reading(ReadingTest.BEFORE, ReadingTest.AFTER, 100, 2.5, {})["neighbours"])


if __name__ == "__main__":
    unittest.main()
