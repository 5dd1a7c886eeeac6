"""System calls per message in the echo and websocket detail scenarios, with real servers on loopback: each
netbench case runs //echo:server or //websocket:server of its own (uring among the models), stopped after the
run, and its row divides the system calls of the server's stop line by the run's messages; a model whose server
exits at start is left out with the server's own message, the others run."""

import subprocess
import unittest

from bench.running import binaries
from bench.running import contest
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


class StopLineTest(unittest.TestCase):
    def test_a_real_stop_line_gives_its_count(self):
        runner = contest.Runner()
        server = runner.start_server(echo_bench.detail_entries()["netbench-poll"])
        output = server_syscalls.stop(runner, server)
        self.assertEqual(runner.servers, [])
        self.assertIn("system calls", output)
        self.assertEqual(server_syscalls.system_calls(output),
                         int(output.rsplit(" system calls", 1)[0].rsplit(" ", 1)[1]))
        self.assertIsNone(server_syscalls.system_calls("listening on 127.0.0.1:1\n"))


class EchoRowsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        runner = contest.Runner()
        entries = echo_bench.detail_entries()
        try:
            cls.rows = {model: echo_bench.run_case(runner, entries, {}, model, "stream3", 0.3, 2000)
                        for model in MODELS}
            cls.left_over = list(runner.servers)
        finally:
            runner.stop_all()

    def test_uring_is_a_model(self):
        self.assertIn("uring", echo_bench.SERVER_MODELS)

    def test_each_netbench_row_has_the_system_calls_of_its_own_server_per_message(self):
        self.assertEqual(self.left_over, [])  # each case stopped its server
        for model, row in self.rows.items():
            with self.subTest(model=model):
                self.assertEqual(row["returncode"], 0, row)
                self.assertGreater(row["server_messages"], 0)
                self.assertEqual(row["server_messages"], row["messages_echoed"])
                self.assertGreater(row["server_syscalls"], 0)
                self.assertAlmostEqual(row["server_syscalls_per_msg"],
                                       row["server_syscalls"] / row["server_messages"])
                # //echo:client's own count, over the messages it wrote.
                self.assertGreater(row["client_syscalls"], 0)
                self.assertAlmostEqual(row["client_syscalls_per_msg"],
                                       row["client_syscalls"] / row["messages_written"])

    def test_the_summary_has_the_column(self):
        summary = echo_bench.summarize(list(self.rows.values()), [(model, "stream3") for model in MODELS])
        self.assertGreater(summary[0]["server_syscalls_per_msg"], 0)
        self.assertGreater(summary[0]["client_syscalls_per_msg"], 0)

    def test_a_model_whose_server_exits_at_start_is_left_out_with_its_message(self):
        runner = contest.Runner()
        entries = echo_bench.detail_entries()
        entries["netbench-uring"] = {**entries["netbench-uring"],
                                     "command": entries["netbench-uring"]["command"] + ["--model=refused"]}
        try:
            models, refused = echo_bench.models_that_start(runner, entries, ["poll", "uring"])
            row = echo_bench.run_case(runner, entries, {}, "uring", "stream3", 0.3, 2000)
        finally:
            runner.stop_all()
        self.assertEqual(models, ["poll"])
        self.assertIn("refused", refused["uring"])  # the server's own usage error names the model
        self.assertEqual(row["returncode"], 2)
        self.assertIn("refused", row["error"])


class WebSocketRowsTest(unittest.TestCase):
    def test_each_netbench_row_has_the_system_calls_and_messages_of_its_own_server(self):
        runner = contest.Runner()
        try:
            rows = {model: websocket_bench.run_case(runner, {}, model, "nb1", 500) for model in MODELS}
        finally:
            runner.stop_all()
        for model, row in rows.items():
            with self.subTest(model=model):
                self.assertEqual(row["returncode"], 0, row)
                self.assertEqual(row["messages_written"], 500)
                self.assertEqual(row["messages_received_by_server"], 500)
                self.assertGreater(row["server_syscalls"], 0)
                self.assertAlmostEqual(row["server_syscalls_per_msg"], row["server_syscalls"] / 500)
                self.assertGreater(row["client_syscalls"], 0)
                self.assertAlmostEqual(row["client_syscalls_per_msg"], row["client_syscalls"] / 500)


if __name__ == "__main__":
    unittest.main()
