"""A fan-out contestant fetches every page whole: against //httpfanout:origin, over http with fresh connections
and with connections kept, and over https, each repetition must report every request ok and exactly
REQUESTS x the page's size in bytes.

    fanout_client_test.py ORIGIN KIND -- CLIENT_ARGV...
      KIND go|jvm: CLIENT_ARGV -url URL -n N -reps R [-warmup W] [-reuse] [-insecure]; curl: CLIENT_ARGV URL N R
"""

import re
import sys
import unittest

import started_program

ORIGIN = None
KIND = None
CLIENT_ARGV = []
BODY_SIZE = 25600
REQUESTS = 40
REPS = 2
_REP = re.compile(r"^rep (\d+): (\d+) ok, (\d+) errors, (\d+) bytes, wall ([0-9.]+) s$", re.MULTILINE)


class FanoutClientTest(unittest.TestCase):
    def fetch(self, tls=False, reuse=False):
        origin = [ORIGIN, "--host=127.0.0.1", "--port=0", f"--body_size={BODY_SIZE}"] + (["--tls"] if tls else [])
        with started_program.StartedProgram(origin) as server:
            url = f"{'https' if tls else 'http'}://127.0.0.1:{server.port}/"
            if KIND == "curl":
                argv = CLIENT_ARGV + [url, str(REQUESTS), str(REPS)]
            else:
                argv = CLIENT_ARGV + ["-url", url, "-n", str(REQUESTS), "-reps", str(REPS)]
                argv += (["-warmup", "1"] if KIND == "jvm" else []) + (["-reuse"] if reuse else [])
                argv += ["-insecure"] if tls else []
            status, output = started_program.run(argv)
        self.assertEqual(status, 0, output)
        reps = _REP.findall(output)
        self.assertEqual([int(r[0]) for r in reps], list(range(1, REPS + 1)), output)
        for rep, ok, errors, read, _ in reps:
            self.assertEqual((int(ok), int(errors)), (REQUESTS, 0), output)
            self.assertEqual(int(read), REQUESTS * BODY_SIZE, f"rep {rep} did not read every body whole:\n{output}")
        return output

    def test_http_fresh_connections(self):
        output = self.fetch()
        if KIND == "jvm":
            self.assertRegex(output, r"(?m)^warmup 1: 40 ok, 0 errors")  # untimed, before the timed ones

    def test_http_connections_kept(self):
        self.fetch(reuse=True)

    def test_https(self):
        self.fetch(tls=True)


if __name__ == "__main__":
    separator = sys.argv.index("--")
    ORIGIN, KIND = sys.argv[separator - 2:separator]
    CLIENT_ARGV = sys.argv[separator + 1:]
    if KIND == "curl":  # a fresh process per repetition: curl has no kept condition
        del FanoutClientTest.test_http_connections_kept
    unittest.main(argv=sys.argv[:separator - 2])
