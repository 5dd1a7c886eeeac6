"""The runner's own logic over the in-memory executor (bench/running/fake.py): the status chain of a client
run on one host and on a fleet (the server died, hung, exited N, printed no X, ok), failed rows that keep
what the client printed, a server that does not start, stop_all, and the server host's noise reading, with
or without its clients there. The same runner over real processes is
contest_test.py (this machine) and remote_hosts_test.py (SSH)."""

import unittest

from bench.running import contest
from bench.running import executor
from bench.running import fake
from bench.running import fleet
from bench.design import scheduler

SERVER = {"name": "srv", "role": "server", "command": ["{//fake:srv}", "--port={port}"], "ready": "listening"}


def client(program, token="//contestants/fake"):
    return {"name": program, "role": "client", "command": ["{" + f"{token}:{program}" + "}", "{host}:{port}"],
            "result": {"msgs_per_s": r"rate: (?P<value>[\d.]+)", "messages": r"sent: (?P<value>\d+)"}}


OK = fake.ClientScript(stdout="rate: 100\nsent: 500\n", cpu_s=0.5, wall_s=5.0)


class OneHostTest(unittest.TestCase):
    def setUp(self):
        self.servers, self.clients = fake.FakeExecutor(), fake.FakeExecutor()
        self.servers.script_server("srv", output="listening on 1\n", cpu_per_check=0.25)
        self.runner = contest.Runner(placement=fake.FakePlacement(self.servers, self.clients),
                                     deadline_margin_s=1)
        # Not started by the runner's own start_server: the port check of a real server needs a socket.
        self.server = contest.Server(SERVER, {"host": "127.0.0.1", "port": 40000},
                                     self.servers.start_server(_launch("srv"), "listening"))
        self.runner.servers.append(self.server)

    def run_client(self, script, **kwargs):
        self.clients.script_client("load", script)
        return self.runner.run_client(client("load"), self.server, {}, bound_s=5, **kwargs)

    def test_a_good_run_is_ok_with_both_sides_cpu_and_every_match(self):
        measured = scheduler.Measured()
        row = self.run_client(fake.ClientScript(stdout="rate: 100\nrate: 120\nsent: 500\n", cpu_s=0.5),
                              measured=measured)
        self.assertEqual(row["status"], "ok", row)
        self.assertEqual(row["found"], {"msgs_per_s": [100.0, 120.0], "messages": [500.0]})
        self.assertEqual((row["server_cpu_s"], row["client_cpu_s"]), (0.25, 0.5))
        self.assertEqual(row["cpu_clock"], "scheduler")
        self.assertEqual(row["server_config"], {"cpus": 1, "threads": 1})
        self.assertNotIn("hosts", row)
        self.assertEqual(measured.result.stdout, "rate: 100\nrate: 120\nsent: 500\n")
        self.assertEqual(self.clients.launches[0].argv, ["/fake/contestants/fake/load", "127.0.0.1:40000"])
        self.assertIsNone(self.clients.launches[0].document_flag)

    def test_the_server_host_s_noise_is_read_with_the_clients_there(self):
        self.assertNotIn("noise", self.run_client(OK))  # a host that gives no probe
        self.servers.noise = {"steal": 0.02}
        row = self.run_client(OK)
        self.assertEqual(row["noise"], {"steal": 0.02})
        self.assertEqual(self.servers.noise_probes, [(self.server.pid(), True)] * 2)

    def test_a_client_that_exits_non_zero_fails_with_its_last_lines(self):
        row = self.run_client(fake.ClientScript(stdout="rate: 1\n", stderr="bad flag --x\n", returncode=3))
        self.assertEqual((row["status"], row["error"]), ("failed", "exited 3"))
        self.assertIn("bad flag --x", row["tail"])

    def test_a_client_that_prints_no_figure_says_which(self):
        row = self.run_client(fake.ClientScript(stdout="rate: 100\n"))
        self.assertEqual(row["status"], "failed")
        self.assertEqual(row["error"], "printed no messages (its 'result' regex matched nothing)")
        self.assertIn("rate: 100", row["tail"])

    def test_a_hung_client_fails_with_its_deadline(self):
        row = self.run_client(fake.ClientScript(stdout="started\n", hangs=True))
        self.assertEqual(row["error"], "hung past its deadline of 6 s (killed with its process group)")
        self.assertIn("started", row["tail"])

    def test_a_server_that_dies_under_load_fails_the_row_with_the_server_s_lines(self):
        row = self.run_client(fake.ClientScript(stdout="rate: 1\nsent: 1\n", returncode=1, kills_server=True))
        self.assertEqual(row["error"], "the server died during the run")
        self.assertIn("listening on 1", row["tail"])
        self.assertIsNone(row["server_cpu_s"])

    def test_a_server_that_is_not_running_runs_no_client(self):
        self.server.running.stop()
        row = self.run_client(OK)
        self.assertEqual(row["error"], "the server is not running")
        self.assertEqual(self.clients.launches, [])

    def test_a_command_that_cannot_be_built_fails_its_row(self):
        broken = {**client("load"), "command": ["{//fake:load}", "{nosuch}"]}
        row = self.runner.run_client(broken, self.server, {}, bound_s=5)
        self.assertEqual(row["status"], "failed")
        self.assertIn("cannot build its command", row["error"])

    def test_stop_all_stops_every_server_and_stop_returns_its_lines(self):
        other = contest.Server(SERVER, {}, self.servers.start_server(_launch("srv"), "listening"))
        self.runner.servers.append(other)
        self.assertIn("stopped srv", self.runner.stop(other))
        self.assertEqual(self.runner.servers, [self.server])
        self.runner.stop_all()
        self.assertEqual(self.runner.servers, [])
        self.assertFalse(any(s.alive() for s in self.servers.started))


class StartTest(unittest.TestCase):
    def test_a_server_that_does_not_start_raises_failure_with_its_lines(self):
        servers = fake.FakeExecutor()
        servers.script_server("srv", output="cannot bind: port taken\n")
        runner = contest.Runner(placement=fake.FakePlacement(servers, fake.FakeExecutor()))
        with self.assertRaises(contest.Failure) as raised:
            runner.start_server(SERVER)
        self.assertIn("cannot bind: port taken", raised.exception.tail)
        self.assertEqual(runner.servers, [])

    def test_an_unscripted_server_is_not_found(self):
        runner = contest.Runner(placement=fake.FakePlacement(fake.FakeExecutor(), fake.FakeExecutor()))
        with self.assertRaises(contest.Failure) as raised:
            runner.start_server({**SERVER, "command": ["{//fake:other}"]})
        self.assertIn("not found", str(raised.exception))


class FleetTest(unittest.TestCase):
    def setUp(self):
        self.servers = fake.FakeExecutor(host="srv-host")
        self.servers.script_server("srv", output="listening\n", cpu_per_check=1.0)
        self.a, self.b = fake.FakeExecutor(host="a", cpus=4), fake.FakeExecutor(host="b", cpus=4)
        self.runner = contest.Runner(placement=fake.FakePlacement(self.servers, fleet.Fleet([self.a, self.b])))
        self.server = contest.Server(SERVER, {"host": "srv-host", "port": 1},
                                     self.servers.start_server(_launch("srv"), "listening"))

    def run_fleet(self, script_a, script_b, token="//echo"):
        self.a.script_client("load", script_a)
        self.b.script_client("load", script_b)
        return self.runner.run_client(client("load", token), self.server, {}, bound_s=5)

    def test_a_fleet_row_is_the_sum_of_its_hosts_with_each_share(self):
        row = self.run_fleet(OK, fake.ClientScript(stdout="rate: 300\nsent: 1500\n", cpu_s=1.5, wall_s=6.0))
        self.assertEqual(row["status"], "ok", row)
        self.assertEqual(row["found"], {"msgs_per_s": [400.0], "messages": [2000.0]})
        self.assertEqual((row["client_cpu_s"], row["wall_s"]), (2.0, 6.0))
        self.assertEqual([(h["host"], h["share"]) for h in row["hosts"]], [("a", 0.25), ("b", 0.75)])
        self.assertEqual(row["client_config"]["cpus"], 8)
        self.assertNotIn("tcp_segments", row)
        # netbench's own clients are asked for their run documents, to merge their histograms.
        self.assertEqual([launch.document_flag for launch in self.a.launches + self.b.launches], ["--json"] * 2)

    def test_the_server_host_s_noise_is_read_without_the_clients_there(self):
        self.servers.noise = {"steal": 0.03}
        row = self.run_fleet(OK, OK)
        self.assertEqual(row["noise"], {"steal": 0.03})
        self.assertEqual(self.servers.noise_probes, [(self.server.pid(), False)])
        self.assertEqual(self.a.noise_probes + self.b.noise_probes, [])  # the client hosts are not asked

    def test_the_write_ups_systems_are_not_asked_for_a_run_document(self):
        self.run_fleet(OK, OK, token="//contestants/go")
        self.assertEqual([launch.document_flag for launch in self.a.launches], [None])

    def test_a_host_without_a_cpu_clock_leaves_its_figures_unmeasured(self):
        self.b.cpu_clock = None  # as an SSH host that cannot run netbench's reader
        row = self.run_fleet(OK, OK)
        self.assertEqual(row["status"], "ok", row)
        self.assertEqual([(h["cpu_s"], h["cpu_clock"]) for h in row["hosts"]], [(0.5, "scheduler"), (None, None)])
        self.assertEqual((row["client_cpu_s"], row["cpu_clock"]), (None, None))  # never a part of the fleet's
        self.assertEqual(row["server_cpu_s"], 1.0)  # the server's host still reads the scheduler's clock
        self.assertIsNone(row["client_saturation"])
        self.server.running.cpu_clock, self.b.cpu_clock = None, executor.SCHEDULER  # the server's host has none
        row = self.run_fleet(OK, OK)
        self.assertEqual(row["status"], "ok", row)  # not "the server died": its CPU was not read, and it runs
        self.assertEqual((row["server_cpu_s"], row["client_cpu_s"], row["cpu_clock"]), (None, 1.0, None))

    def test_a_failed_host_is_named_with_its_own_lines(self):
        row = self.run_fleet(OK, fake.ClientScript(stderr="flag provided but not defined: -mode\n", returncode=2))
        self.assertEqual((row["status"], row["error"]), ("failed", "b: exited 2"))
        self.assertEqual(row["tail"], "[b] flag provided but not defined: -mode")

    def test_hosts_that_hang_and_print_nothing_are_each_named(self):
        row = self.run_fleet(fake.ClientScript(hangs=True), fake.ClientScript(returncode=1))
        self.assertEqual(row["error"], "a: hung past its deadline of 65 s (killed with its process group); "
                                       "b: exited 1")

    def test_a_figure_missing_on_one_host_is_missing(self):
        row = self.run_fleet(OK, fake.ClientScript(stdout="rate: 5\n"))
        self.assertEqual(row["error"], "printed no messages on some host (its 'result' regex matched nothing)")


def _launch(program):
    from bench.running import executor
    return executor.Launch([f"/fake/{program}"], name=program)


if __name__ == "__main__":
    unittest.main()
