"""The network-namespace executor (bench/running/netns.py): its commands are entered through `ip netns exec`,
and, as root, a server it starts and the client it runs against it both run in a namespace of their own, which
the test makes and removes."""

import os
import shutil
import subprocess
import sys
import unittest

from bench.running import executor
from bench.running import netns

NAMESPACE = f"nbexec{os.getpid()}"
SERVER = ("import socket; s = socket.create_server(('127.0.0.1', 7000)); print('listening', flush=True); "
          "c, _ = s.accept(); c.sendall(c.recv(100))")
CLIENT = "import socket; c = socket.create_connection(('127.0.0.1', 7000)); c.sendall(b'hi'); print(c.recv(100))"


class InNamespaceTest(unittest.TestCase):
    def test_a_launch_and_its_stop_command_are_entered_through_ip_netns_exec(self):
        launch = netns.in_namespace("nb1", executor.Launch(["srv", "--port=1"], stop_argv=["srv", "--stop"]))
        self.assertEqual(launch.argv, ["ip", "netns", "exec", "nb1", "srv", "--port=1"])
        self.assertEqual(launch.stop_argv, ["ip", "netns", "exec", "nb1", "srv", "--stop"])


class NamespaceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0 or not shutil.which("ip"):
            raise unittest.SkipTest("needs root and iproute2's ip")
        if subprocess.run(["ip", "netns", "add", NAMESPACE], capture_output=True).returncode != 0:
            raise unittest.SkipTest("this machine makes no network namespace")
        subprocess.run(["ip", "netns", "exec", NAMESPACE, "ip", "link", "set", "lo", "up"], check=True)

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["ip", "netns", "delete", NAMESPACE], check=True)

    def test_the_server_and_its_client_run_in_the_namespace(self):
        there = netns.NetnsExecutor(NAMESPACE, "127.0.0.1")
        server = there.start_server(executor.Launch([sys.executable, "-c", SERVER], name="srv"), ready="listening")
        try:
            identified = subprocess.run(["ip", "netns", "identify", str(server.pid)], capture_output=True, text=True)
            self.assertEqual(identified.stdout.strip(), NAMESPACE)
            result = there.run_client(executor.Launch([sys.executable, "-c", CLIENT]), deadline_s=30)
            self.assertEqual((result.returncode, result.stdout.strip(), result.host), (0, "b'hi'", NAMESPACE))
            self.assertEqual(there.address(), "127.0.0.1")
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
