"""The detail scenarios' model comparisons on synthetic rows (no processes), as their files state them
(bench/registry/details/*.toml): the uring server against the best other model, //echo:client's uring model
against its epoll model, and the fastest netbench fan-out client against Go and the faster curl row."""

import unittest

from bench.scenarios import claim_files
from bench.scenarios import echo_bench
from bench.scenarios import websocket_bench


def row(server, client, round_, **figures):
    return {"server": server, "client": client, "round": round_, "status": "ok", "placement": "shared", **figures}


def uring_claims(rows, name="echo"):
    return [c for c in claim_files.detail(name).claims(rows) if c.text.startswith("netbench-uring has less")]


class UringAgainstBestTest(unittest.TestCase):
    ROWS = [row(m, load, r, server_cpu_us_per_msg=cpu, p50_us=p50)
            for r in range(3) for load in ("stream3", "pingpong3")
            for m, cpu, p50 in (("threads", 3.0, 30), ("poll", 2.0, 40), ("epoll", 2.5, 20), ("uring", 1.5, 25))]

    def test_each_load_against_the_model_with_the_least_median(self):
        claims = uring_claims(self.ROWS)
        cells = [(c.figure, c.a["client"], c.b["server"]) for c in claims]
        # stream64 ran no rows: its best is the first other model, and its verdict says it was not measured.
        self.assertEqual(cells, [("server_cpu_us_per_msg", "stream3", "poll"),
                                 ("server_cpu_us_per_msg", "pingpong3", "poll"), ("p50_us", "pingpong3", "epoll"),
                                 ("server_cpu_us_per_msg", "stream64", "threads")])
        self.assertTrue(all(not c.higher_is_better and c.a["server"] == "uring" for c in claims))
        self.assertEqual(claims[0].names, ("netbench-uring", "netbench-poll"))
        self.assertEqual(claims[0].text, "netbench-uring has less server CPU per message than netbench-poll, the "
                                         "best other model (stream3)")

    def test_none_without_uring(self):
        self.assertEqual(uring_claims([r for r in self.ROWS if r["server"] != "uring"]), [])

    def test_none_without_another_model(self):
        self.assertEqual(uring_claims([r for r in self.ROWS if r["server"] == "uring"]), [])

    def test_a_median_of_0_or_none_is_never_the_best(self):
        rows = [{**r, "server_cpu_us_per_msg": 0.0} if r["server"] == "poll" else r for r in self.ROWS]
        rows = [{**r, "status": "failed"} if r["server"] == "epoll" else r for r in rows]
        self.assertEqual(uring_claims(rows)[0].b["server"], "threads")

    def test_websocket_names_its_sink_servers(self):
        rows = [{**r, "client": {"stream3": "nb4-pipe", "pingpong3": "echo1"}[r["client"]]} for r in self.ROWS]
        claims = uring_claims(rows, "websocket")
        self.assertEqual([(c.figure, c.a["client"], c.b["server"]) for c in claims],
                         [("server_cpu_us_per_msg", "nb4-pipe", "poll"),
                          ("server_cpu_us_per_msg", "echo4-pipe", "threads"),
                          ("server_cpu_us_per_msg", "echo1", "poll"), ("p50_us", "echo1", "epoll")])
        self.assertEqual(claims[0].names, ("netbench-uring-sink", "netbench-poll-sink"))


class ClientModelsTest(unittest.TestCase):
    def test_the_client_loads_run_against_the_epoll_server_with_their_model(self):
        self.assertEqual(echo_bench.client_of("uring3", 0),
                         (echo_bench.ECHO_CLIENT, 3, ["--mode=stream", "--model=uring"]))
        self.assertIn("--batch=16", echo_bench.client_of("epoll3-batch16", 0)[2])

    def test_uring_against_epoll_where_both_ran(self):
        rows = [row("epoll", load, 0, client_cpu_us_per_msg=1.0) for load in ("uring3", "epoll3", "epoll3-batch16")]
        claims = [c for c in claim_files.detail("echo").claims(rows) if c.text.startswith("//echo:client --model")]
        self.assertEqual({(c.b["client"], c.figure) for c in claims},
                         {(load, figure) for load in ("epoll3", "epoll3-batch16")
                          for figure in ("client_cpu_us_per_msg", "client_syscalls_per_msg")})
        self.assertEqual(claims[0].text, "//echo:client --model=uring spends less CPU per message than --model=epoll "
                                         "(uring3 against epoll3, server epoll)")
        self.assertEqual((claims[0].a, claims[0].names), ({"server": "epoll", "client": "uring3"},
                                                          ("netbench-echo-client",)))


class FanoutTest(unittest.TestCase):
    def test_the_fastest_model_against_go_and_the_faster_curl_row_at_each_target_and_scheme(self):
        walls = {"netbench-threads": 3.0, "netbench-poll": 1.0, "netbench-epoll": 2.0, "go": 2.5, "curl": 4.0,
                 "curl-2x250": 3.5}
        rows = [{"server": target, "scheme": scheme, "client": client, "round": 0, "status": "ok",
                 "wall_s_median": wall} for target in ("nginx", "origin-0ms") for scheme in ("https", "http")
                for client, wall in walls.items()]
        claims = claim_files.detail("httpfanout").claims(rows)
        self.assertEqual([c.text for c in claims[:2]], ["netbench-poll fetches faster than go (nginx, https)",
                                                        "netbench-poll fetches faster than curl-2x250 (nginx, https)"])
        self.assertEqual(len(claims), 8)
        self.assertEqual(list(claims[1].b.items()), [("server", "nginx"), ("scheme", "https"),
                                                     ("client", "curl-2x250")])
        self.assertEqual(claims[1].names, ("netbench-poll", "curl-2x250", "nginx"))
        self.assertEqual(claim_files.detail("httpfanout").claims([r for r in rows if r["client"] == "go"]), [])


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
