"""Tests of the contestant registry (bench/registry/registry.py): a broken entry is refused before anything runs,
with the entry and the field named, and the shipped registry holds every system of the write-ups."""

import copy
import json
import os
import tempfile
import unittest

from bench.registry import registry



def server(**changes):
    entry = {"name": "mine", "system": "mine", "scenario": "echo", "role": "server", "about": "my server",
             "command": ["/usr/bin/mine", "--port={port}"], "ready": "listening", "version": ["mine", "-v"],
             "packages": []}
    entry.update(changes)
    return entry


def client(**changes):
    entry = {"name": "load", "system": "mine", "scenario": "echo", "role": "client", "about": "my load",
             "command": ["/usr/bin/load", "{host}:{port}", "-c", "{clients}", "-t", "{duration_s}"],
             "result": {"msgs_per_s": "rate (?P<value>[0-9.]+)", "messages": "sent (?P<value>\\d+)"},
             "version": ["load", "-v"], "packages": []}
    entry.update(changes)
    return entry


def problems(*entries):
    try:
        registry.validate({"contestants": list(entries)}, "test.json")
    except registry.RegistryError as error:
        return str(error)
    return ""


class ShippedRegistryTest(unittest.TestCase):
    def test_it_validates_and_holds_every_system_of_the_write_ups(self):
        entries = registry.load(registry.DEFAULT_PATH)
        names = {(e["scenario"], e["role"], e["name"]) for e in entries}
        for wanted in [("echo", "server", "racket"), ("echo", "server", "go"), ("echo", "server", "go-gomaxprocs1"),
                       ("echo", "client", "go-spammer"), ("echo", "client", "netbench-echo-client"),
                       ("websocket", "server", "go-xnet"), ("websocket", "client", "go-xnet-client"),
                       ("websocket", "server", "go-gorilla"), ("websocket", "server", "netbench-ws"),
                       ("websocket", "client", "netbench-ws-client"), ("fanout", "client", "jvm"),
                       ("fanout", "client", "go"), ("fanout", "client", "curl"), ("fanout", "server", "nginx"),
                       ("fanout", "server", "origin-50ms")]:
            self.assertIn(wanted, names)
        for model in ("threads", "poll", "epoll"):
            self.assertIn(("echo", "server", f"netbench-{model}"), names)
            self.assertIn(("fanout", "client", f"netbench-{model}"), names)


class ValidationTest(unittest.TestCase):
    def test_a_good_server_and_client_pass(self):
        self.assertEqual(problems(server(), client()), "")

    def test_a_missing_field_names_the_entry_and_the_field(self):
        entry = server()
        del entry["version"]
        self.assertIn('contestant #1 "mine": field \'version\': missing', problems(entry))

    def test_a_server_without_a_ready_line_is_waited_on_at_its_port(self):
        entry = server()
        del entry["ready"]
        self.assertEqual(problems(entry), "")  # ready once {port} accepts
        self.assertIn("takes no {port} to wait on", problems({**entry, "command": ["/usr/bin/mine", "--port=7000"]}))
        daemon = {**entry, "pidfile": "/tmp/x.pid", "stop": ["x"]}
        self.assertIn("a daemon says it is ready in a line", problems(daemon))

    def test_an_entry_without_a_role_or_name_is_refused_not_crashed_on(self):
        entry = server()
        del entry["role"], entry["name"]
        text = problems(entry)
        self.assertIn("field 'role': missing", text)
        self.assertIn("field 'name': missing", text)

    def test_a_mistyped_field_is_refused_with_a_suggestion(self):
        entry = server()
        entry["comand"] = entry.pop("command")
        text = problems(entry)
        self.assertIn("field 'comand': unknown (did you mean 'command'?)", text)
        self.assertIn("field 'command': missing", text)

    def test_a_field_of_the_wrong_type_is_refused(self):
        self.assertIn("field 'command': expected list, got str", problems(server(command="mine --port 1")))
        self.assertIn("field 'env': expected dict", problems(server(env=["GOMAXPROCS=1"])))

    def test_an_unknown_placeholder_is_refused_and_the_allowed_ones_listed(self):
        text = problems(server(command=["mine", "--port={prot}"]))
        self.assertIn("field 'command': unknown placeholder {prot}", text)
        self.assertIn("{port}", text)
        # A client's placeholder is not a server's.
        self.assertIn("unknown placeholder {clients}", problems(server(command=["mine", "{clients}"])))

    def test_env_values_are_checked_for_placeholders_too(self):
        self.assertIn("field 'env.GOMAXPROCS': unknown placeholder {procs}",
                      problems(server(env={"GOMAXPROCS": "{procs}"})))
        self.assertEqual(problems(server(scenario="websocket", env={"GOMAXPROCS": "{procs}"})), "")

    def test_result_regexes_must_compile_name_a_value_and_cover_the_scenario(self):
        self.assertIn("field 'result.msgs_per_s': not a regex",
                      problems(client(result={"msgs_per_s": "rate ((", "messages": "(?P<value>x)"})))
        self.assertIn("needs a group named 'value'",
                      problems(client(result={"msgs_per_s": "rate (\\d+)", "messages": "(?P<value>x)"})))
        self.assertIn("missing the regex for 'messages'", problems(client(result={"msgs_per_s": "(?P<value>x)"})))

    def test_fields_of_the_other_role_and_unknown_scenarios_are_refused(self):
        self.assertIn("field 'ready': only for servers", problems(client(ready="x")))
        self.assertIn("field 'scenario': 'ping' is not one of echo, websocket, fanout", problems(server(scenario="ping")))
        self.assertIn("field 'role': 'peer' is not one of", problems(server(role="peer")))

    def test_a_fanout_client_needs_its_conditions_and_a_server_its_schemes(self):
        fanout_client = client(scenario="fanout", command=["get", "{url}", "{requests}", "{reps}"],
                               result={"wall_s": "wall (?P<value>[0-9.]+)"})
        self.assertIn("field 'conditions'", problems(fanout_client))
        self.assertEqual(problems({**fanout_client, "conditions": {"fresh": []}}), "")
        self.assertIn("'warm' is not fresh or reuse", problems({**fanout_client, "conditions": {"warm": []}}))
        self.assertIn("field 'schemes'", problems(server(scenario="fanout")))
        self.assertIn("'ftp' is not one of http, https",
                      problems(server(scenario="fanout", schemes={"ftp": {"url": "ftp://{host}:{port}/"}})))

    def test_a_daemon_needs_its_stop_command(self):
        self.assertIn("field 'stop'", problems(server(pidfile="/tmp/x.pid")))

    def test_a_second_entry_of_the_same_name_role_and_scenario_is_refused(self):
        self.assertIn('contestant #2 "mine": field \'name\'', problems(server(), server()))
        self.assertEqual(problems(server(), server(scenario="websocket")), "")

    def test_every_broken_entry_is_reported_at_once(self):
        text = problems(server(name="Bad Name"), client(version=[]))
        self.assertIn("contestant #1", text)
        self.assertIn("contestant #2", text)

    def test_a_file_that_is_not_json_names_the_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write("{not json")
        try:
            with self.assertRaisesRegex(registry.RegistryError, f.name + ": not JSON"):
                registry.load(f.name)
        finally:
            os.unlink(f.name)
        with self.assertRaisesRegex(registry.RegistryError, "cannot read"):
            registry.load("/nonexistent/contestants.json")


class SelectionTest(unittest.TestCase):
    def setUp(self):
        with open(registry.DEFAULT_PATH) as f:
            self.entries = registry.validate(json.load(f))

    def test_only_and_skip_match_names_scenarios_and_systems(self):
        echo = registry.select(self.entries, only=["echo"])
        self.assertTrue(echo and all(e["scenario"] == "echo" for e in echo))
        no_racket = registry.select(echo, skip=["racket"])
        self.assertEqual(len(no_racket), len(echo) - 1)
        go = registry.select(self.entries, only=["go"])
        self.assertIn("go-spammer", {e["name"] for e in go})  # system go
        self.assertEqual(registry.unknown_words(self.entries, ["echo", "racket", "rakcet"]), ["rakcet"])

    def test_a_copy_with_one_more_contestant_is_used_as_it_is(self):
        document = {"contestants": copy.deepcopy(self.entries) + [server()]}
        entries = registry.validate(document)
        self.assertIn("mine", {e["name"] for e in registry.select(entries, only=["echo"])})


class AddedTest(unittest.TestCase):
    """--contestants=FILE adds its entries to the shipped registry: one of a scenario, role and name the registry
    has takes its place, and is said only where it differs."""

    def test_new_entries_come_after_and_a_same_named_one_takes_its_place(self):
        entries = [server(), server(name="other"), client()]
        changed = server(about="my server, rebuilt")
        merged, replaced = registry.added(entries, [server(name="new"), changed, client()])
        self.assertEqual([(e["name"], e["about"]) for e in merged],
                         [("mine", "my server, rebuilt"), ("other", "my server"), ("load", "my load"),
                          ("new", "my server")])
        self.assertEqual(replaced, [changed])  # the client is the same entry: nothing to say

    def test_an_entry_of_another_scenario_or_role_is_no_replacement(self):
        merged, replaced = registry.added([server()], [server(scenario="websocket"), client(name="mine")])
        self.assertEqual((len(merged), replaced), (3, []))


class ExpansionTest(unittest.TestCase):
    def test_placeholders_are_filled_and_tokens_resolved(self):
        argv = registry.expand(["{//contestants/go:echo_server}", "-addr", "{host}:{port}", "{//echo:server}"],
                               {"host": "127.0.0.1", "port": 7000}, resolve=lambda token: f"<{token}>")
        self.assertEqual(argv, ["<//contestants/go:echo_server>", "-addr", "127.0.0.1:7000", "<//echo:server>"])
        with self.assertRaises(KeyError):
            registry.expand(["{port}"], {})

    def test_a_contestant_whose_package_is_missing_says_how_to_install_it(self):
        why = registry.unavailable(server(packages=["netbench-no-such-package"], command=["true"]))
        if why is not None:  # on a machine without dpkg only the program is checked
            self.assertIn("apt-get install netbench-no-such-package", why)
        why = registry.unavailable(server(command=["netbench-no-such-program"], packages=[]))
        self.assertIn("'netbench-no-such-program' is not on PATH", why)
        self.assertIsNone(registry.unavailable(server(command=["true"])))

    def test_a_contestant_whose_check_fails_is_unavailable_with_what_the_check_said(self):
        # As //echo:server --model=uring --check says it where io_uring is refused.
        refused = ["sh", "-c", "echo '--model=uring: io_uring_setup: Operation not permitted' >&2; exit 2"]
        why = registry.unavailable(server(command=["true"], requires=refused))
        self.assertEqual(why, "cannot run here: --model=uring: io_uring_setup: Operation not permitted")
        self.assertIsNone(registry.unavailable(server(command=["true"], requires=["true"])))
        resolved = registry.unavailable(server(command=["true"], requires=["{//echo:server}", "--check"]),
                                        resolve=lambda token: "false")
        self.assertEqual(resolved, "cannot run here: {//echo:server} --check failed")


if __name__ == "__main__":
    unittest.main()
