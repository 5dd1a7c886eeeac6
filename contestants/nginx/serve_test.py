"""nginx as the fan-out's server: serve.sh answers GET /index.html with the 25,600-byte page over http and over
https (its own certificate), keeps a connection alive across requests, and on SIGINT stops nginx and removes the
folder it made.

    serve_test.py SERVE_SH
"""

import http.client
import os
import re
import socket
import ssl
import sys
import unittest

import started_program

SERVE = None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServeTest(unittest.TestCase):
    def serve(self, tls):
        argv = [SERVE, "--host=127.0.0.1", f"--port={free_port()}"] + (["--tls"] if tls else [])
        with started_program.StartedProgram(argv) as server:
            if tls:
                context = ssl.create_default_context()
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
                conn = http.client.HTTPSConnection("127.0.0.1", server.port, timeout=30, context=context)
            else:
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            bodies = []
            for _ in range(3):  # one connection, three requests
                conn.request("GET", "/index.html")
                response = conn.getresponse()
                self.assertEqual(response.status, 200)
                self.assertEqual(response.getheader("Content-Length"), "25600")
                bodies.append(response.read())
            conn.close()
            prefix = re.search(r"-p (\S+)", open(f"/proc/{self.nginx_master(server.proc.pid)}/cmdline")
                               .read().replace("\0", " ")).group(1)
            self.assertTrue(os.path.isdir(prefix))
        self.assertEqual(server.proc.returncode, 0, server.output)
        self.assertFalse(os.path.exists(prefix), "serve.sh left its folder behind")
        self.assertEqual({len(b) for b in bodies}, {25600})
        self.assertEqual(len(set(bodies)), 1)

    @staticmethod
    def nginx_master(script_pid):
        children = open(f"/proc/{script_pid}/task/{script_pid}/children").read().split()
        for pid in children:
            if open(f"/proc/{pid}/cmdline").read().startswith("nginx: master"):
                return pid
        raise AssertionError(f"no nginx master among {children}")

    def test_http(self):
        self.serve(tls=False)

    def test_https(self):
        self.serve(tls=True)


if __name__ == "__main__":
    SERVE = sys.argv.pop(1)
    unittest.main()
