"""System calls per message in the echo and websocket detail scenarios, with real servers on loopback, through the
round loop: each
netbench case runs //echo:server or //websocket:server of its own (uring among the models), stopped after the
run, and its row divides the system calls of the server's stop line by the run's messages; a model whose server
exits at start is left out with the server's own message, the others run."""

import subprocess
import unittest

from bench.registry import registry
from bench.running import binaries
from bench.running import contest
from bench.design import scheduler
from bench.scenarios import echo_bench
from bench.scenarios import server_syscalls
from bench.scenarios import websocket_bench


def runs_here(model):
    """Whether this build and machine run `model`, as the server's --check says: the portable libc++ build has
    neither epoll nor uring, and a kernel or seccomp filter can refuse io_uring."""
    check = [binaries.program_path("//echo:server"), f"--model={model}", "--check"]
    return subprocess.run(check, capture_output=True).returncode == 0


# poll is built everywhere; uring where this build and machine have it.
MODELS = [model for model in ("poll", "epoll", "uring") if runs_here(model)]
ECHO_SETTINGS = {"samples": 1, "seconds": 0.3, "rate": 2000}


def echo_rows(match):
    """{server: row} of the echo-models cases whose fields `match` chooses, one round through the loop."""
    runner = contest.Runner()
    cases, _ = echo_bench.cases(registry.load(registry.DEFAULT_PATH), {None: runner}, ECHO_SETTINGS)
    outcome = scheduler.run([c for c in cases if match(c.fields)], runner, scheduler.Plan(rounds=1))
    return {r["server"]: r for r in outcome.rows}


class StopLineTest(unittest.TestCase):
    def test_a_real_stop_line_gives_its_count(self):
        runner = contest.Runner()
        server = runner.start_server(echo_bench.detail_entries(registry.load(registry.DEFAULT_PATH))["netbench-poll"])
        output = server_syscalls.stop(runner, server)
        self.assertEqual(runner.servers, [])
        self.assertIn("system calls", output)
        self.assertEqual(server_syscalls.system_calls(output),
                         int(output.rsplit(" system calls", 1)[0].rsplit(" ", 1)[1]))
        self.assertIsNone(server_syscalls.system_calls("listening on 127.0.0.1:1\n"))


class EchoRowsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rows = echo_rows(lambda f: f["server"] in MODELS and f["client"] == "stream3")

    def test_uring_is_a_model(self):
        self.assertIn("uring", echo_bench.SERVER_MODELS)

    def test_each_netbench_row_has_the_system_calls_of_its_own_server_per_message(self):
        self.assertEqual(sorted(self.rows), sorted(MODELS))
        for model, row in self.rows.items():
            with self.subTest(model=model):
                self.assertEqual(row["status"], "ok", row)
                self.assertGreater(row["server_messages"], 0)
                self.assertEqual(row["server_messages"], row["messages_echoed"])
                self.assertGreater(row["server_syscalls"], 0)
                self.assertAlmostEqual(row["server_syscalls_per_msg"],
                                       row["server_syscalls"] / row["server_messages"])
                # //echo:client's own count, over the messages it wrote.
                self.assertGreater(row["client_syscalls"], 0)
                self.assertAlmostEqual(row["client_syscalls_per_msg"],
                                       row["client_syscalls"] / row["messages_written"])

    def test_the_section_has_the_column(self):
        section = echo_bench.DEFINITION.section(list(self.rows.values()), [], ECHO_SETTINGS)
        self.assertIn("server_syscalls_per_msg", section["tables"][0]["columns"])

    def test_a_model_whose_server_exits_at_start_is_left_out_with_its_message(self):
        runner = contest.Runner()
        entries = echo_bench.detail_entries(registry.load(registry.DEFAULT_PATH))
        entries["netbench-uring"] = {**entries["netbench-uring"],
                                     "command": entries["netbench-uring"]["command"] + ["--model=refused"]}
        try:
            models, refused = echo_bench.models_that_start(runner, entries, ["poll", "uring"])
        finally:
            runner.stop_all()
        self.assertEqual(models, ["poll"])
        self.assertIn("refused", refused["uring"])  # the server's own usage error names the model
        # Were it run all the same, its rows would fail naming the cause, the other cases still running.
        case = scheduler.Case(fields={"server": "uring", "client": "stream3"}, client=entries["netbench-echo-client"],
                              server=scheduler.ServerSpec(entries["netbench-uring"], per_run=True),
                              values={"clients": 1, "duration_s": "0.3"}, bound_s=0.3)
        (row,) = scheduler.run([case], contest.Runner(), scheduler.Plan(rounds=1)).rows
        self.assertEqual(row["status"], "failed")
        self.assertIn("refused", row["error"] + row["tail"])


class WebSocketRowsTest(unittest.TestCase):
    def test_each_netbench_row_has_the_system_calls_and_messages_of_its_own_server(self):
        runner = contest.Runner()
        settings = {"samples": 1, "messages": 500, "echo_messages": 50, "server_threads": 1}
        cases, _ = websocket_bench.cases([], {None: runner}, settings)
        outcome = scheduler.run([c for c in cases if c.fields["server"] in MODELS and c.fields["client"] == "nb1"],
                                runner, scheduler.Plan(rounds=1))
        rows = {r["server"]: r for r in outcome.rows}
        self.assertEqual(sorted(rows), sorted(MODELS))
        for model, row in rows.items():
            with self.subTest(model=model):
                self.assertEqual(row["status"], "ok", row)
                self.assertEqual(row["messages_written"], 500)
                self.assertEqual(row["messages_received_by_server"], 500)
                self.assertGreater(row["server_syscalls"], 0)
                self.assertAlmostEqual(row["server_syscalls_per_msg"], row["server_syscalls"] / 500)
                self.assertGreater(row["client_syscalls"], 0)
                self.assertAlmostEqual(row["client_syscalls_per_msg"], row["client_syscalls"] / 500)


if __name__ == "__main__":
    unittest.main()
