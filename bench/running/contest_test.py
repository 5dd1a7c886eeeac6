"""End-to-end tests of the registry-driven runner (bench/running/contest.py, scheduler.py, writeup_cases.py,
judging.py) with real processes on loopback: a contestant added to a copy of the registry appears in the echo
table without code changes; a server that cannot start, a client that prints no result and one that hangs past
its deadline give failed rows with their last lines while every other row still runs; --pin puts servers and
loads on disjoint CPUs; CPU time comes from the scheduler's clock, threads that exited included."""

import json
import os
import subprocess
import tempfile
import unittest

from bench.running import contest
from bench.running import process_cpu
from bench.design import scheduler
from bench.running import spinner
from bench.registry import registry
from bench.scenarios import writeup_cases
from bench.scenarios import writeup_definitions
from bench.reporting import markdown
from testing import user_contestant

PYTHON = "/usr/bin/python3"


def run_echo(entries, runner, samples, seconds, clients):
    """The echo write-up's cases through the round loop: (rows, fates, the scheduler's outcome)."""
    cases, fates = writeup_cases.echo_cases(entries, writeup_cases.links(runner), {"seconds": seconds, "clients": clients})
    outcome = scheduler.run(cases, runner, scheduler.Plan(rounds=samples, name="echo"))
    writeup_cases.note_failures(fates, outcome.failed_servers)
    return outcome.rows, fates, outcome

def shipped(name, role):
    with open(registry.DEFAULT_PATH) as f:
        entries = registry.validate(json.load(f))
    return next(e for e in entries if e["scenario"] == "echo" and e["name"] == name and e["role"] == role)


class EchoScenarioTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        mine = user_contestant.write(cls.tmp)  # a user's asyncio echo server
        broken = {**mine, "name": "broken", "command": [PYTHON, "-c", "print('cannot bind: port taken'); exit(3)"]}
        silent = {**shipped("netbench-echo-client", "client"), "name": "silent-load",
                  "result": {"msgs_per_s": "no such line (?P<value>\\d+)", "messages": "written: (?P<value>[0-9,]+)"}}
        # netbench's poll server: built on every platform (epoll is Linux's alone, and not built under
        # --config=libcxx).
        document = {"contestants": [shipped("netbench-poll", "server"), mine, broken,
                                    shipped("netbench-echo-client", "client"), silent]}
        cls.entries = registry.validate(document)  # a copy of the registry with three entries added
        runner = contest.Runner()
        try:
            cls.rows, cls.fates, _ = run_echo(cls.entries, runner, samples=2, seconds=0.3, clients=2)
        finally:
            runner.stop_all()
        cls.section = writeup_definitions.ECHO.section(cls.rows, cls.fates, {"clients": 2, "seconds": 0.3,
                                                                             "samples": 2})

    def rows_of(self, server, client):
        return [r for r in self.rows if r["server"] == server and r["client"] == client]

    def test_the_added_contestant_runs_and_appears_in_the_table(self):
        rows = self.rows_of("python-asyncio", "netbench-echo-client")
        self.assertEqual([r["status"] for r in rows], ["ok", "ok"])
        for row in rows:
            self.assertGreater(row["msgs_per_s"], 0)
            self.assertGreater(row["server_cpu_us_per_msg"], 0)
            self.assertGreater(row["client_cpu_us_per_msg"], 0)
        self.assertIn("| python-asyncio | netbench-echo-client |", markdown.section(self.section))
        fate = next(f for f in self.fates if f["name"] == "python-asyncio")
        self.assertEqual(fate["status"], "ran")
        self.assertTrue(fate["version"].startswith("Python 3"))

    def test_a_server_that_cannot_start_fails_its_rows_with_its_last_lines(self):
        fate = next(f for f in self.fates if f["name"] == "broken")
        self.assertEqual(fate["status"], "failed")
        self.assertIn("cannot bind: port taken", fate["tail"])
        self.assertTrue(all(r["status"] == "failed" for r in self.rows if r["server"] == "broken"))
        self.assertIn("cannot bind: port taken", markdown.section(self.section))

    def test_a_client_that_prints_no_result_fails_its_rows_and_says_which_figure(self):
        rows = [r for r in self.rows if r["client"] == "silent-load" and r["server"] != "broken"]
        self.assertEqual(len(rows), 4)
        for row in rows:
            self.assertEqual(row["status"], "failed")
            self.assertIn("printed no msgs_per_s", row["error"])
            self.assertIn("rate:", row["tail"])

    def test_every_other_row_still_runs(self):
        self.assertEqual([r["status"] for r in self.rows_of("netbench-poll", "netbench-echo-client")], ["ok", "ok"])

    def test_rounds_interleave_the_cases(self):
        self.assertEqual([r["round"] for r in self.rows], sorted(r["round"] for r in self.rows))

    def test_a_claim_whose_systems_are_absent_is_not_measured(self):
        racket = next(v for v in self.section["verdicts"] if v["claim"].startswith("Racket beats Go"))
        self.assertEqual(racket["verdict"], "not measured")


class InterruptedOnItsThirdRun(contest.Runner):
    """A runner whose third client run is stopped by Ctrl-C, as a person at the terminal would."""

    runs = 0

    def run_client(self, *args, **kwargs):
        self.runs += 1
        if self.runs == 3:
            raise KeyboardInterrupt()
        return super().run_client(*args, **kwargs)


class InterruptTest(unittest.TestCase):
    def test_an_interrupted_scenario_keeps_every_run_that_finished(self):
        entries = registry.validate({"contestants": [shipped("netbench-poll", "server"),
                                                     shipped("netbench-echo-client", "client")]})
        runner = InterruptedOnItsThirdRun()
        try:
            rows, fates, outcome = run_echo(entries, runner, samples=4, seconds=0.2, clients=1)
        finally:
            runner.stop_all()
        self.assertTrue(outcome.interrupted)
        self.assertEqual([(r["round"], r["status"]) for r in rows], [(0, "ok"), (1, "ok")])
        self.assertEqual(runner.servers, [])  # the loop stopped them
        self.assertEqual({f["name"]: f["status"] for f in fates},
                         {"netbench-poll": "ran", "netbench-echo-client": "ran"})


def dead(pid):
    """True once `pid` has exited (a zombie waiting for its parent counts as exited)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] == "Z"
    except FileNotFoundError:
        return True


class HungClientTest(unittest.TestCase):
    """A client that never finishes (it prints a line, then waits on a child of its own that holds its output
    open) in a copy of the registry: killed with its process group at its deadline, its rows failed with what it
    printed, every other row and round run."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.pidfile = os.path.join(cls.tmp, "child.pid")
        hangs = {**shipped("netbench-echo-client", "client"), "name": "hangs",
                 "command": ["/bin/sh", "-c", f"echo 'load started, never to finish'; sleep 100000 & "
                                              f"echo $! >> {cls.pidfile}; wait"]}
        entries = registry.validate({"contestants": [shipped("netbench-poll", "server"), hangs,
                                                     shipped("netbench-echo-client", "client")]})
        runner = contest.Runner(deadline_margin_s=0.5)  # deadline: the 0.3 s load + 0.5 s
        try:
            cls.rows, cls.fates, _ = run_echo(entries, runner, samples=2, seconds=0.3, clients=1)
        finally:
            runner.stop_all()

    def test_the_hung_client_fails_its_rows_with_its_deadline_and_last_lines(self):
        rows = [r for r in self.rows if r["client"] == "hangs"]
        self.assertEqual([r["round"] for r in rows], [0, 1])
        for row in rows:
            self.assertEqual(row["status"], "failed")
            self.assertEqual(row["error"], "hung past its deadline of 0.8 s (killed with its process group)")
            self.assertIn("load started, never to finish", row["tail"])

    def test_what_it_started_is_killed_too(self):
        with open(self.pidfile) as f:
            pids = [int(line) for line in f]
        self.assertEqual(len(pids), 2)
        self.assertTrue(all(dead(pid) for pid in pids), pids)

    def test_every_other_row_and_round_runs(self):
        rows = [r for r in self.rows if r["client"] == "netbench-echo-client"]
        self.assertEqual([(r["round"], r["status"]) for r in rows], [(0, "ok"), (1, "ok")])


class ProcessTest(unittest.TestCase):
    def test_pinned_servers_and_clients_get_disjoint_cpus(self):
        server_cpus, client_cpus = contest.cpu_sets(pin=True)
        if len(os.sched_getaffinity(0)) < 2:
            self.assertIsNone(server_cpus)
            return
        self.assertTrue(server_cpus and client_cpus and not server_cpus & client_cpus)
        runner = contest.Runner(pin=True)
        entry = {"name": "sleeper", "system": "x", "scenario": "echo", "role": "server", "about": "",
                 "command": [PYTHON, "-c", "import signal; print('ready', flush=True); signal.pause()"],
                 "ready": "ready", "version": ["true"], "packages": []}
        try:
            server = runner.start_server(entry)
            self.assertEqual(os.sched_getaffinity(server.pid()), server_cpus)
        finally:
            runner.stop_all()

    def test_cpu_time_counts_threads_that_have_exited(self):
        child = subprocess.Popen([PYTHON, "-c", spinner.PROGRAM], stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(child.stdout.readline().strip(), "spun")
            self.assertGreaterEqual(process_cpu.tree_cpu_seconds(child.pid), spinner.SPUN_S)
        finally:
            child.kill()
            child.wait()


if __name__ == "__main__":
    unittest.main()
