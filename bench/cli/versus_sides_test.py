"""--versus's sides (bench/cli/versus_sides.py): where A ends and B begins, the scenario a command line runs in,
the names the question compares, and the check that a command line listens, on real processes."""

import sys
import tempfile
import unittest

from bench.cli import versus_sides
from bench.registry import registry

ENTRIES = registry.load(registry.DEFAULT_PATH)
# A server that listens on the port it is given, and says nothing.
LISTENS = (f"{sys.executable} -c 'import socket, sys, time; s = socket.create_server((\"127.0.0.1\", "
           "int(sys.argv[1]))); time.sleep(60)' {port}")


class SplitTest(unittest.TestCase):
    def test_two_sides_at_the_comma(self):
        self.assertEqual(versus_sides.split("python3 /x/s.py {port},go"), ["python3 /x/s.py {port}", "go"])
        self.assertEqual(versus_sides.split("go, netbench-epoll"), ["go", "netbench-epoll"])

    def test_a_comma_inside_a_command_line_is_kept(self):
        self.assertEqual(versus_sides.split("srv --bind=a,b {port},go"), ["srv --bind=a,b {port}", "go"])
        self.assertEqual(versus_sides.split("go,srv --peers=a,b {port}"), ["go", "srv --peers=a,b {port}"])

    def test_anything_but_two_sides_is_refused(self):
        for text in ("go", "go,", ",go", "go,racket,netbench-epoll", "srv a,b {port},other c,d {port}"):
            with self.assertRaisesRegex(versus_sides.SideError, "expected two sides, A,B", msg=text):
                versus_sides.split(text)


class ResolveTest(unittest.TestCase):
    def test_a_command_line_runs_in_the_registry_sides_scenario(self):
        sides = versus_sides.resolve("srv --port={port},go-xnet", ENTRIES)
        self.assertEqual(sides.names, ("srv", "go-xnet"))
        ((made,),) = [sides.made]
        self.assertEqual((made["name"], made["scenario"], made["command"]),
                         ("srv", "websocket", ["srv", "--port={port}"]))

    def test_two_command_lines_run_in_echo_or_the_scenario_named(self):
        sides = versus_sides.resolve("a-srv {port},b-srv {port}", ENTRIES)
        self.assertEqual([e["scenario"] for e in sides.made], ["echo", "echo"])
        sides = versus_sides.resolve("a-srv {port},b-srv {port}", ENTRIES, scenario="websocket")
        self.assertEqual([e["scenario"] for e in sides.made], ["websocket", "websocket"])

    def test_a_scenario_that_disagrees_with_a_registry_side_is_refused(self):
        with self.assertRaisesRegex(versus_sides.SideError, "--scenario=websocket: go is a server of the echo"):
            versus_sides.resolve("srv {port},go", ENTRIES, scenario="websocket")
        self.assertEqual(versus_sides.resolve("srv {port},go", ENTRIES, scenario="echo").names, ("srv", "go"))

    def test_one_name_for_both_sides_or_a_registry_servers_name_gets_the_sides_letter(self):
        self.assertEqual(versus_sides.resolve("srv {port} --fast,srv {port}", ENTRIES).names, ("srv-a", "srv-b"))
        self.assertEqual(versus_sides.resolve("/opt/go {port},racket", ENTRIES).names, ("go-a", "racket"))
        self.assertEqual(versus_sides.resolve("srv {port},srv {port} -v", ENTRIES, given=("fast", None)).names,
                         ("fast", "srv"))

    def test_a_chosen_name_that_cannot_be_is_refused(self):
        for given, said in ((("go", None), "--name-a=go: the registry has a server of that name"),
                            ((None, "mine"), "--name-b=mine names a command line's side, and side b is the "
                                             "registry's go"),
                            (("My Server", None), "field 'name'")):
            with self.assertRaisesRegex(versus_sides.SideError, said):
                versus_sides.resolve("srv {port},go", ENTRIES, given=given)

    def test_a_command_line_without_its_port_is_refused(self):
        with self.assertRaisesRegex(versus_sides.SideError, "has no {port}"):
            versus_sides.resolve("./srv 8080,go", ENTRIES)


class RefusalTest(unittest.TestCase):
    """The check before anything runs: a command line that listens passes; one that exits, or never listens, or
    cannot be found, is named with what it did."""

    def made(self, text):
        return versus_sides.resolve(f"{text},go", ENTRIES, folder=tempfile.gettempdir()).made

    def test_a_server_that_listens_passes(self):
        self.assertIsNone(versus_sides.refusal(self.made(LISTENS)))

    def test_a_command_that_exits_is_refused_with_what_it_printed(self):
        why = versus_sides.refusal(self.made("sh -c 'echo no such option >&2; exit 3' {port}"))
        self.assertIn("the command line sh -c 'echo no such option >&2; exit 3' {port} (sh) cannot be run: exited "
                      "before it accepted a connection", why)
        self.assertIn("no such option", why)

    def test_a_program_that_is_not_there_is_refused(self):
        why = versus_sides.refusal(self.made("netbench-no-such-program {port}"))
        self.assertIn("'netbench-no-such-program' is not on PATH", why)


if __name__ == "__main__":
    unittest.main()
