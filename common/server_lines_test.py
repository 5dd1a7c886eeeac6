"""server_lines: the address and port of every program's ready line, a netbench server's closing counts, and
nothing from a line without one."""

import contextlib
import io
import os
import tempfile
import unittest

from common import server_lines


class ServerLinesTest(unittest.TestCase):
    def test_ready_lines(self):
        self.assertEqual(server_lines.parse("listening on 127.0.0.1:8080 model=epoll\n"), ("127.0.0.1", 8080))
        self.assertEqual(server_lines.parse("listening on [::1]:9 model=poll"), ("[::1]", 9))
        self.assertEqual(server_lines.parse("20:14:49 starting\n20:14:49 Listening on :9000"), ("", 9000))
        self.assertIsNone(server_lines.parse("20:14:49 starting"))
        self.assertEqual(server_lines.listening_on("20:14:49 serving at 0.0.0.0:7000"), (None, 7000))
        self.assertEqual(server_lines.listening_on("ready"), (None, None))

    def test_every_count_of_the_last_closing_line(self):
        output = ("stopped by signal 2 after 0.5 s: 1 connections (0 rejected, 0 refused for want of descriptors)\n"
                  "stopped by signal 2 after 1.250 s: 3 connections (0 rejected, 0 refused for want of "
                  "descriptors), 10 bytes read, 20 bytes written, 41 system calls, 2 messages received (7 payload "
                  "bytes)\n")
        self.assertEqual(server_lines.closing_counts(output),
                         {"connections": 3, "rejected": 0, "refused for want of descriptors": 0, "bytes read": 10,
                          "bytes written": 20, "system calls": 41, "messages received": 2, "payload bytes": 7})
        self.assertIsNone(server_lines.closing_counts("listening on 127.0.0.1:1\n"))

    def test_the_command_prints_a_log_s_port_or_exits_1(self):
        with tempfile.TemporaryDirectory() as folder:
            log = os.path.join(folder, "server.log")
            self.assertEqual(server_lines.main(["server_lines.py", "port", log]), 1)  # not written yet
            with open(log, "w") as f:
                f.write("starting\nlistening on 127.0.0.1:4321 model=epoll\n")
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                self.assertEqual(server_lines.main(["server_lines.py", "port", log]), 0)
            self.assertEqual(printed.getvalue(), "4321\n")
            with contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(server_lines.main(["server_lines.py", log]), 2)


if __name__ == "__main__":
    unittest.main()
