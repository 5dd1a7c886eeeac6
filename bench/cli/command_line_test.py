"""The suite's command line: `bazel run //:bench -- --help` names the command a user types, every flag has one
spelling in --help (dashes), and the underscore spelling older instructions used parses to the same thing."""

import contextlib
import io
import unittest

from bench.cli import suite


def parse(argv):
    return vars(suite.command_line().parse_args(argv))


class CommandLineTest(unittest.TestCase):
    def test_help_says_the_command_a_user_types(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as done:
            suite.command_line().parse_args(["--help"])
        self.assertEqual(done.exception.code, 0)
        text = out.getvalue()
        self.assertTrue(text.splitlines()[0].startswith("usage: bazel run //:bench -- "), text.splitlines()[0])
        self.assertNotIn("suite.py", text)
        self.assertNotRegex(text, r"[Ii]ssues? [0-9]")

    def test_help_shows_one_spelling_per_flag(self):
        text = suite.command_line().format_help()
        for flag in ("--echo-seconds", "--websocket-messages", "--fanout-samples", "--fanout-reps",
                     "--server-host", "--client-hosts", "--compare-loopback"):
            self.assertIn(flag, text)
            self.assertNotIn("--" + flag[2:].replace("-", "_"), text)

    def test_both_spellings_parse_to_the_same_thing(self):
        dashes = ["--echo-seconds=2.5", "--websocket-messages=300", "--fanout-samples=4", "--fanout-reps=5",
                  "--server-host=bench@h1", "--client-hosts=h2,h3", "--server-address=10.0.0.1",
                  "--remote-dir=/opt/nb", "--ssh-config=cfg", "--compare-loopback"]
        underscores = ["--echo_seconds=2.5", "--websocket_messages=300", "--fanout_samples=4", "--fanout_reps=5",
                       "--server_host=bench@h1", "--client_hosts=h2,h3", "--server_address=10.0.0.1",
                       "--remote_dir=/opt/nb", "--ssh_config=cfg", "--compare_loopback"]
        self.assertEqual(parse(dashes), parse(underscores))
        parsed = parse(dashes)
        self.assertEqual((parsed["echo_seconds"], parsed["websocket_messages"], parsed["fanout_samples"],
                          parsed["fanout_reps"], parsed["server_host"], parsed["compare_loopback"]),
                         (2.5, 300, 4, 5, "bench@h1", True))
        # Separate values too, as a shell script might pass them.
        self.assertEqual(parse(["--echo_seconds", "3"])["echo_seconds"], 3.0)

    def test_defaults_are_unchanged_by_the_aliases(self):
        parsed = parse([])
        self.assertEqual((parsed["samples"], parsed["echo_seconds"], parsed["websocket_messages"],
                          parsed["fanout_samples"], parsed["fanout_reps"], parsed["client_hosts"],
                          parsed["server_host"], parsed["quick"], parsed["compare_loopback"]),
                         (10, 1.0, 20000, 3, 3, "", None, False, False))


if __name__ == "__main__":
    unittest.main()
