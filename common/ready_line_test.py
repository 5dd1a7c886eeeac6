"""ready_line: the address and port of every program's ready line, and nothing from a line without one."""

import unittest

from common import ready_line


class ReadyLineTest(unittest.TestCase):
    def test_the_servers_lines(self):
        self.assertEqual(ready_line.parse("listening on 127.0.0.1:8080 model=epoll threads=1\n"),
                         ("127.0.0.1", 8080))
        self.assertEqual(ready_line.parse("listening on [::1]:9 model=poll"), ("[::1]", 9))
        self.assertEqual(ready_line.parse("2024/01/02 20:14:49 Listening on :9000"), ("", 9000))
        self.assertEqual(ready_line.parse("starting\nlistening on host:1\n"), ("host", 1))

    def test_no_ready_line(self):
        self.assertIsNone(ready_line.parse("20:14:49 starting"))
        self.assertIsNone(ready_line.parse(None))

    def test_another_ready_pattern_gives_its_last_port(self):
        self.assertEqual(ready_line.listening_on("20:14:49 serving at 0.0.0.0:7000"), (None, 7000))
        self.assertEqual(ready_line.listening_on("ready"), (None, None))
        self.assertEqual(ready_line.listening_on("listening on 10.0.0.2:5 x"), ("10.0.0.2", 5))


if __name__ == "__main__":
    unittest.main()
