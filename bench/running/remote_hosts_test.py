"""The suite's remote hosts over SSH, end to end as root: network namespaces made by bench/running/testnet.sh
act as three machines running Debian's sshd (bench/running/ssh_testbed.py), and a fourth has none.
The scenarios run a server in one and a fleet of two clients in the others, beside the same case on loopback
in the same rounds; a fleet's row is exactly the sum of its hosts', and its noise is the server host's, read
over SSH (steal, the server's switches, no client figures); an unreachable host, a refused key and a
missing binary each stop the run with an error that names the host, and no process is left on any host. One
process's CPU read on a host through SSH (netbench's reader there) and directly (the namespaces share this
machine's kernel and PIDs) agree; a host without the reader measures no CPU at all and says so once. Needs root
(tagged netns, as //bench/running:testnet_test)."""

import contextlib
import functools
import io
import random
import string
import subprocess
import tempfile
import unittest

from bench.registry import registry
from bench.running import binaries
from bench.running import contest
from bench.running import executor
from bench.running import process_cpu
from bench.running import remote_placement
from bench.design import scheduler
from bench.running import spinner
from bench.scenarios import websocket_bench
from bench.scenarios import writeup_cases
from bench.running import ssh_host
from bench.running import ssh_testbed



def shipped(scenario, *names):
    """The registry's entries, on the poll model where they name epoll: every build has poll (the portable
    --config=libcxx build has no epoll), and the placement, not the model, is what this test checks."""
    entries = [e for e in registry.load(registry.DEFAULT_PATH)
               if e["scenario"] == scenario and e["name"] in names]
    for entry in entries:
        entry["command"] = [part.replace("--model=epoll", "--model=poll") for part in entry["command"]]
    return entries


def run_cases(cases_of, entries, runners, rounds, settings):
    """A scenario's cases (`cases_of`: writeup_cases.echo_cases or a definition's) through the round loop: (rows,
    fates)."""
    cases, fates = cases_of(entries, runners, settings)
    outcome = scheduler.run(cases, runners, scheduler.Plan(rounds=rounds))
    writeup_cases.note_failures(fates, outcome.failed_servers)
    return outcome.rows, fates


QUICK = executor.Launch(["/usr/bin/python3", "-c", "pass"], name="quick")


# Of the websocket detail scenario's loads, one of each kind over the fleet: netbench's sink client with several
# connections, Go's client, the echo; the other loads take the same path (minutes more).
DETAIL_LOADS = ("nb4", "go1", "echo1")
# Of its servers, netbench's on threads (the model every build has) and Go's: the placement, not the model, is
# what this test checks, and each model's server is tested on its own (//websocket:server_test).
DETAIL_SERVERS = ("threads", "go")


def only_loads(made):
    """(cases, fates) of a scenario's cases() with only DETAIL_LOADS' cases of DETAIL_SERVERS."""
    cases, fates = made
    return [c for c in cases
            if c.fields.get("client") in DETAIL_LOADS and c.fields.get("server") in DETAIL_SERVERS], fates


@functools.cache  # one build, one answer: asked once, not per assertion
def reader_clock():
    """The clock this build's CPU reader gives the test hosts, which share this kernel and file system: the
    scheduler's, except in the portable build (--config=libcxx), whose platform layer has no /proc to list a
    process tree from: None there, as on any host the reader cannot serve, whose CPU figures are None."""
    check = subprocess.run([binaries.program_path("//common:process_tree_cpu"), "--check"], capture_output=True)
    return executor.SCHEDULER if check.returncode == 0 else None


class RemoteHostsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = ssh_testbed.unavailable()
        if why:  # fail, not skip: a skipped test would pass unseen (a non-root run leaves out tag "netns")
            raise RuntimeError(f"remote_hosts_test {why}")
        name = "nbs" + "".join(random.choice(string.ascii_lowercase) for _ in range(5))
        cls.bed = ssh_testbed.Testbed(name, hosts=4, sshd_on=3).__enter__()
        cls.server, cls.client_a, cls.client_b, cls.no_sshd = cls.bed.addresses

    @classmethod
    def tearDownClass(cls):
        cls.bed.__exit__(None, None, None)

    def placement(self, **kwargs):
        settings = {"server_target": self.server, "client_targets": [self.client_a, self.client_b],
                    "ssh_config": self.bed.ssh_config,
                    "tuning": remote_placement.Tuning(copy_dir=tempfile.mkdtemp(), connect_timeout_s=5), **kwargs}
        return remote_placement.RemotePlacement(**settings)

    def assert_nothing_left(self):
        """Only each host's sshd runs in its namespace: every program and SSH session is gone. (A session's
        sshd child may take a moment to exit after its connection closed: wait for it, boundedly.)"""
        for index, sshd in enumerate(self.bed.sshd_pids):
            left = self.bed.wait_for_only(index, {sshd})
            self.assertEqual(left, {sshd}, f"processes left on {self.bed.addresses[index]}")
        self.assertEqual(self.bed.pids_in(3), set())

    def run_links(self, entries, run):
        placement = self.placement()
        runners = {"loopback": contest.Runner(link="loopback"),
                   "remote": contest.Runner(placement=placement, link="remote")}
        try:
            placement.open()
            placement.prepare(entries)
            rows, fates = run(entries, runners)
        finally:
            for runner in runners.values():
                runner.stop_all()
            placement.close()
        self.assert_nothing_left()
        self.assertEqual([f["status"] for f in fates], ["ran"] * len(entries), fates)
        return rows

    def assert_fleet_row(self, row, histograms=True):
        self.assertEqual(row["status"], "ok", row)
        hosts = row["hosts"]
        self.assertEqual([h["host"] for h in hosts], [self.client_a, self.client_b])
        self.assertTrue(all(h["msgs_per_s"] > 0 for h in hosts), hosts)
        self.assertEqual(row["msgs_per_s"], sum(h["msgs_per_s"] for h in hosts))
        self.assertEqual(row["messages"], sum(h["messages"] for h in hosts))
        self.assertAlmostEqual(sum(h["share"] for h in hosts), 1.0)
        self.assertEqual(row["cpu_clock"], reader_clock())  # the reader ran on every host it could
        self.assertEqual({h["cpu_clock"] for h in hosts}, {reader_clock()})
        if reader_clock():
            self.assertAlmostEqual(row["client_cpu_s"], sum(h["cpu_s"] for h in hosts))
            self.assertIsNotNone(row["server_cpu_s"])
        else:  # not measured: no figure at all, never another clock's
            self.assertEqual([row["client_cpu_s"], row["server_cpu_s"]] + [h["cpu_s"] for h in hosts], [None] * 4)
        self.assertEqual(bool(row.get("histograms")), histograms)  # the sink-mode WebSocket client has none
        self.assert_server_host_noise(row["noise"])
        for name, histogram in row.get("histograms", {}).items():
            self.assertEqual(histogram["count"], sum(h["histogram_counts"][name] for h in hosts))
            self.assertEqual(histogram["count"], sum(n for _, n in histogram["buckets"]))

    def assert_server_host_noise(self, noise):
        """The server host's reading over SSH: its steal, a server that switched as it served, and no client
        figures (the clients ran on the other hosts)."""
        self.assertGreaterEqual(noise["steal"], 0)
        self.assertLessEqual(noise["steal"], 1)
        server = noise["server"]
        self.assertIsNotNone(server, noise)
        self.assertGreater(server["voluntary"] + server["involuntary"], 0, noise)
        self.assertGreaterEqual(server["threads"], 1)
        self.assertEqual(noise["server_cpu_s"] is not None, bool(reader_clock()))
        self.assertGreaterEqual(noise["other_cpu_s"], 0)
        self.assertEqual((noise["client_cpu_s"], noise["suite_cpu_s"], noise["client"]), (None, None, None))

    def test_echo_server_and_a_fleet_of_two_beside_loopback(self):
        entries = shipped("echo", "netbench-poll", "netbench-echo-client")
        rows = self.run_links(entries, lambda e, r: run_cases(writeup_cases.echo_cases, e, r, 2,
                                                              {"seconds": 0.5, "clients": 2}))
        self.assertEqual([(r["link"], r["round"]) for r in rows],
                         [("loopback", 0), ("remote", 0), ("loopback", 1), ("remote", 1)])
        for row in rows:
            if row["link"] == "remote":
                self.assert_fleet_row(row)
            else:
                self.assertEqual(row["status"], "ok", row)
                self.assertNotIn("hosts", row)

    def test_websocket_server_and_a_fleet_of_two(self):
        entries = shipped("websocket", "netbench-ws", "netbench-ws-client")
        rows = self.run_links(entries, lambda e, r: run_cases(
            writeup_cases.websocket_cases, e, {"remote": r["remote"]}, 1, {"messages": 2000, "procs": (1,),
                                                                       "connections": (2,)}))
        (row,) = rows
        self.assert_fleet_row(row, histograms=False)
        self.assertEqual(row["messages"], 2 * 2 * 2000)  # two hosts, each two connections of 2000

    def test_websocket_detail_scenario_on_a_server_host_and_a_fleet_of_two(self):
        # The suite's path (bench/cli/pipeline.py, REMOTE_PARTS): a runner with the placement, the binaries of the registry's
        # websocket entries put on the hosts first.
        placement = self.placement()
        runner = contest.Runner(placement=placement)
        try:
            placement.open()
            placement.prepare([e for e in registry.load(registry.DEFAULT_PATH) if e["scenario"] == "websocket"])
            settings = {**websocket_bench.DEFINITION.settings_for({}, quick=True), "messages": 300,
                        "echo_messages": 50, "hosts": {"clients": placement.client_targets}}
            rows, fates = run_cases(lambda *made: only_loads(websocket_bench.DEFINITION.cases(*made)),
                                    registry.load(registry.DEFAULT_PATH), {None: runner}, 1, settings)
        finally:
            runner.stop_all()
            placement.close()
        self.assert_nothing_left()
        cases = rows
        self.assertEqual({c["server"] for c in cases}, set(DETAIL_SERVERS))
        self.assertEqual(len(cases), len(DETAIL_SERVERS) * len(DETAIL_LOADS))
        for case in cases:
            self.assertEqual(case["status"], "ok", case)
            clients = 1 if case["client"] in ("nb1", "go1", "echo1") else 4
            messages = 50 if case["client"] == "echo1" else 300
            self.assertEqual(case["messages_written"], 2 * clients * messages, case)  # two hosts' sum
            self.assertEqual(len(case["hosts"]) if "hosts" in case else 2, 2)
            # The scheduler's clock there, read by netbench's reader: never the 0 of 10 ms ticks; no figure
            # where the reader cannot run.
            self.assertEqual(case["cpu_clock"], reader_clock())
            if reader_clock():
                self.assertGreater(case["server_cpu_us_per_msg"], 0, case)
                self.assertGreater(case["client_cpu_us_per_msg"], 0, case)
            else:
                self.assertEqual((case["server_cpu_us_per_msg"], case["client_cpu_us_per_msg"]), (None, None))
            # The netbench server's stop line, read over SSH after the case stopped it.
            if case["server"] != "go":
                self.assertGreater(case["server_syscalls_per_msg"], 0, case)
        # Each netbench server's own count, over SSH, equals what the fleets wrote to it.
        keeps_up = websocket_bench.keeps_up(rows)
        self.assertIn("threads-sink", [k["server"] for k in keeps_up])
        self.assertTrue(all(k["equal"] for k in keeps_up), keeps_up)

    def test_a_client_failing_on_the_hosts_fails_its_row_naming_them(self):
        server, client = shipped("echo", "netbench-poll", "netbench-echo-client")
        broken = {**client, "name": "broken-load", "command": client["command"] + ["--mode=nonsense"]}
        rows = self.run_links([server, broken], lambda e, r: run_cases(
            writeup_cases.echo_cases, e, {"remote": r["remote"]}, 1, {"seconds": 0.5, "clients": 1}))
        (row,) = rows
        self.assertEqual(row["status"], "failed")
        for host in (self.client_a, self.client_b):
            self.assertIn(f"{host}: exited 2", row["error"])
        self.assertIn("--mode", row["tail"])

    def test_one_process_s_cpu_read_over_ssh_and_directly_agrees(self):
        placement = self.placement(client_targets=[])
        try:
            placement.open()
            placement.prepare([])
            there = placement.hosts[self.server]
            self.assertEqual(there.cpu_clock, reader_clock())
            # A thread spins 0.2 s of its own CPU and exits; the process then waits, spending nothing.
            server = there.start_server(executor.Launch(["/usr/bin/python3", "-c", spinner.PROGRAM], name="spin"),
                                        ready="spun")
            over_ssh = there.tree_cpu_seconds(server.pid)
            directly = process_cpu.tree_cpu_seconds(server.pid)
            client = there.run_client(QUICK, deadline_s=60)  # under the reader's --run: wait4 there
        finally:
            placement.close()
        self.assert_nothing_left()
        if reader_clock() == executor.SCHEDULER:
            self.assertGreaterEqual(over_ssh, spinner.SPUN_S)  # the thread that exited is counted
            self.assertAlmostEqual(over_ssh, directly, delta=0.001)
            self.assertEqual((client.returncode, client.cpu_clock), (0, executor.SCHEDULER))
            self.assertGreater(client.cpu_seconds, 0)  # a Python start is never free on the nanosecond clock
        else:  # the portable build: not measured, though /proc has the process's ticks
            self.assertGreater(directly, 0)
            self.assertEqual((over_ssh, client.returncode, client.cpu_seconds, client.cpu_clock), (None, 0, None, None))

    def test_a_host_without_the_reader_measures_no_cpu_and_says_so_once(self):
        # A --remote-dir install without common/process_tree_cpu: the host runs programs but reads no clock.
        placement = self.placement(client_targets=[], remote_dir=tempfile.mkdtemp())
        said = io.StringIO()
        try:
            placement.open()
            with contextlib.redirect_stderr(said):
                placement.prepare([])
            there = placement.hosts[self.server]
            server = there.start_server(executor.Launch(["/usr/bin/python3", "-c", spinner.PROGRAM], name="spin"),
                                        ready="spun")
            over_ssh = there.tree_cpu_seconds(server.pid)
            client = there.run_client(QUICK, deadline_s=60)
        finally:
            placement.close()
        self.assert_nothing_left()
        (line,) = said.getvalue().splitlines()
        self.assertIn(self.server, line)
        self.assertIn("not measured", line)
        self.assertIn("process_tree_cpu", line)  # why: the reader is not there
        self.assertIsNone(there.cpu_clock)
        self.assertEqual((over_ssh, client.returncode, client.cpu_seconds, client.cpu_clock), (None, 0, None, None))

    def assert_stops_naming(self, host, words, **kwargs):
        placement = self.placement(**kwargs)
        try:
            with self.assertRaises(ssh_host.RemoteError) as raised:
                placement.open()
                placement.prepare(shipped("echo", "netbench-poll", "netbench-echo-client"))
        finally:
            placement.close()
        self.assertIn(host, raised.exception.hosts)
        self.assertIn(host, str(raised.exception))
        self.assertIn(words, str(raised.exception))
        self.assert_nothing_left()

    def test_an_unreachable_host_is_named(self):
        self.assert_stops_naming(self.no_sshd, "unreachable", client_targets=[self.client_a, self.no_sshd])

    def test_a_refused_key_is_named(self):
        self.assert_stops_naming(self.client_b, "refused the key", ssh_config=self.bed.refused_ssh_config)

    def test_a_missing_binary_is_named(self):
        self.assert_stops_naming(self.server, "lacks", remote_dir=tempfile.mkdtemp())


if __name__ == "__main__":
    unittest.main()
