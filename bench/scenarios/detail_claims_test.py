"""The detail scenarios' model comparisons on synthetic rows (no processes): the uring server against the best
other model, and //echo:client's uring model against its epoll model."""

import unittest

from bench.scenarios import detail_sections
from bench.scenarios import echo_bench
from bench.scenarios import websocket_bench


def row(server, client, round_, **figures):
    return {"server": server, "client": client, "round": round_, "status": "ok", "placement": "shared", **figures}


class UringAgainstBestTest(unittest.TestCase):
    ROWS = [row(m, load, r, server_cpu_us_per_msg=cpu, p50_us=p50)
            for r in range(3) for load in ("stream3", "pingpong3")
            for m, cpu, p50 in (("threads", 3.0, 30), ("poll", 2.0, 40), ("epoll", 2.5, 20), ("uring", 1.5, 25))]

    def test_each_load_against_the_model_with_the_least_median(self):
        claims = detail_sections.uring_against_best(self.ROWS, ["threads", "poll", "epoll", "uring"],
                                                    ("stream3", "pingpong3"), "pingpong3", lambda m: (m,))
        cells = [(c.figure, c.a["client"], c.b["server"]) for c in claims]
        self.assertEqual(cells, [("server_cpu_us_per_msg", "stream3", "poll"),
                                 ("server_cpu_us_per_msg", "pingpong3", "poll"), ("p50_us", "pingpong3", "epoll")])
        self.assertTrue(all(not c.higher_is_better and c.a["server"] == "uring" for c in claims))

    def test_none_without_uring(self):
        self.assertEqual(detail_sections.uring_against_best(self.ROWS, ["poll", "epoll"], ("stream3",), "",
                                                            lambda m: (m,)), [])


class ClientModelsTest(unittest.TestCase):
    def test_the_client_loads_run_against_the_epoll_server_with_their_model(self):
        self.assertEqual(echo_bench.client_of("uring3", 0),
                         (echo_bench.ECHO_CLIENT, 3, ["--mode=stream", "--model=uring"]))
        self.assertIn("--batch=16", echo_bench.client_of("epoll3-batch16", 0)[2])

    def test_uring_against_epoll_where_both_ran(self):
        rows = [row("epoll", load, 0, client_cpu_us_per_msg=1.0) for load in ("uring3", "epoll3", "epoll3-batch16")]
        claims = echo_bench.client_model_claims(rows)
        self.assertEqual({(c.b["client"], c.figure) for c in claims},
                         {(load, figure) for load in ("epoll3", "epoll3-batch16")
                          for figure in ("client_cpu_us_per_msg", "client_syscalls_per_msg")})


class WebsocketEchoPipelineTest(unittest.TestCase):
    def test_the_pipelined_echo_load_counts_as_echo_mode(self):
        rows = [row("epoll", "echo4-pipe", 0, messages_written=64, messages_received_by_server=64),
                row("epoll", "nb4", 0, messages_written=10, messages_received_by_server=10)]
        kept = {entry["server"]: entry for entry in websocket_bench.keeps_up(rows)}
        self.assertEqual(kept["epoll-echo"]["written"], 64)
        self.assertEqual(kept["epoll-sink"]["written"], 10)
        entry = websocket_bench.client_entry("echo4-pipe", 100)
        self.assertIn("--pipeline=16", entry["command"])
        self.assertIn("--mode=echo", entry["command"])


if __name__ == "__main__":
    unittest.main()
