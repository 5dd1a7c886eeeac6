"""A command line as a registry server entry (bench/registry/command_line.py): named by its script or program,
its relative paths made absolute, its version the SHA-256 of its file, and refused through the registry's own
validation where it is no server of its scenario."""

import os
import tempfile
import unittest

from bench.registry import command_line
from bench.registry import registry


class NameTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        for name in ("my_server.py", "Server.JAR", "my.conf"):
            with open(os.path.join(self.folder, name), "w") as f:
                f.write("x\n")

    def path(self, name):
        return os.path.join(self.folder, name)

    def test_a_script_or_a_jar_names_it_rather_than_its_interpreter(self):
        self.assertEqual(command_line.name_of(["python3", self.path("my_server.py"), "{port}"]), "my_server")
        self.assertEqual(command_line.name_of(["java", "-jar", self.path("Server.JAR"), "{port}"]), "server")

    def test_a_program_without_a_file_argument_names_itself(self):
        self.assertEqual(command_line.name_of(["/opt/bin/echo-server", "--port={port}"]), "echo-server")
        self.assertEqual(command_line.name_of(["sleep", "60", "{port}"]), "sleep")

    def test_the_first_file_names_it_not_a_later_one(self):
        argv = ["python3", self.path("my_server.py"), "--config", self.path("my.conf"), "{port}"]
        self.assertEqual(command_line.name_of(argv), "my_server")

    def test_the_name_keeps_to_the_registrys_letters(self):
        self.assertEqual(command_line.name_of(["/opt/My Server+1", "{port}"]), "my-server-1")
        self.assertEqual(command_line.name_of(["/opt/.hidden", "{port}"]), "hidden")


class EntryTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.script = os.path.join(self.folder, "my_server.py")
        with open(self.script, "w") as f:
            f.write("print('hello')\n")

    def test_a_command_line_is_a_server_entry_the_registry_accepts(self):
        entry = command_line.server_entry("python3 my_server.py --host {host} {port}", "echo", folder=self.folder)
        self.assertEqual(registry.validate({"contestants": [entry]}), [entry])
        self.assertEqual(entry["command"], ["python3", self.script, "--host", "{host}", "{port}"])
        self.assertEqual((entry["name"], entry["scenario"], entry["role"]), ("my_server", "echo", "server"))
        self.assertNotIn("ready", entry)  # ready once its port accepts
        self.assertEqual(entry["version"], ["sha256sum", self.script])
        self.assertIsNone(registry.unavailable(entry))
        self.assertRegex(registry.version_of(entry, {}), r"^[0-9a-f]{64}  " + self.script)

    def test_a_quoted_word_stays_one_word_and_a_name_can_be_chosen(self):
        entry = command_line.server_entry("sh -c 'exec my-server --port=$0' {port}", "websocket", name="mine")
        self.assertEqual(entry["command"], ["sh", "-c", "exec my-server --port=$0", "{port}"])
        self.assertEqual(entry["name"], "mine")

    def test_a_fanout_server_is_fetched_at_its_root(self):
        entry = command_line.server_entry("/opt/bin/origin {port}", "fanout")
        self.assertEqual(entry["schemes"]["http"]["url"], "http://{host}:{port}/")

    def test_what_is_no_server_is_refused_naming_the_command_line_and_the_field(self):
        for text, scenario, name, said in (
                ("python3 my_server.py 8080", "echo", None, "has no {port}"),
                ("my-server {port} --procs={procs}", "echo", None, "unknown placeholder {procs}"),
                ("my-server {port}", "echo", "My Server", "field 'name'"),
                ("my-server {port}", "smtp", None, "field 'scenario'"),
                ("my-server '{port}", "echo", None, "No closing quotation"),
                ("", "echo", None, "an empty command line")):
            with self.assertRaises(registry.RegistryError, msg=text) as refused:
                command_line.server_entry(text, scenario, name)
            self.assertIn(said, str(refused.exception))
        # The scenario's own placeholders are taken.
        self.assertEqual(command_line.server_entry("ws {port} {procs}", "websocket")["name"], "ws")

    def test_a_side_is_a_command_line_where_no_registry_name_could_be(self):
        self.assertEqual([command_line.is_command(s) for s in ("go", "netbench-epoll", "./srv", "srv {port}")],
                         [False, False, True, True])


if __name__ == "__main__":
    unittest.main()
