"""The suite as a real process (`python3 -m bench.cli.suite`, as `bazel run //:bench` starts it), stopped or
starved the ways a long run can be: Ctrl-C (SIGINT) in a detail scenario keeps every run that finished in its
JSON, marked partial, and exits 130, and before the first round it exits 130 with a line, not a traceback; results on a full disk (a filled 64 KiB tmpfs: ENOSPC, which root meets
as anyone does) fail naming the path and errno, keep the measured document in a fallback under $TMPDIR, and
exit non-zero."""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import unittest


PYTHON = "/usr/bin/python3"


def suite(args, results_dir, tmpdir):
    env = {**os.environ, "NETBENCH_RESULTS_DIR": results_dir, "TMPDIR": tmpdir,
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    env.pop("NETBENCH_RESULTS_LABEL", None)
    return subprocess.Popen([PYTHON, "-m", "bench.cli.suite"] + args, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


class InterruptedDetailScenarioTest(unittest.TestCase):
    def test_ctrl_c_keeps_the_runs_that_finished_marked_partial(self):
        results, tmp = tempfile.mkdtemp(), tempfile.mkdtemp()
        process = suite(["--only=echo-models", "--quick"], results, tmp)
        logged = []
        rounds_started = 0
        # A case's "round" line comes once its run has finished: then Ctrl-C.
        for line in process.stderr:
            logged.append(line)
            if line.startswith("echo-models round "):
                self.assertTrue(line.startswith("echo-models round 1/1: "), line)  # --quick: one round
                rounds_started += 1
                process.send_signal(signal.SIGINT)
                break
        _, rest = process.communicate(timeout=300)
        logged.append(rest)
        log = "".join(logged)
        # The run wrote a folder of its own under NETBENCH_RESULTS_DIR: the machine's label and its start time.
        (run,) = os.listdir(results)
        self.assertRegex(run, r"-\d{8}T\d{6}Z$")
        results = os.path.join(results, run)
        self.assertEqual(rounds_started, 1, log)
        self.assertEqual(process.returncode, 130, log)
        with open(os.path.join(results, "echo_bench.json")) as f:
            document = json.load(f)
        self.assertIs(document["partial"], True)
        self.assertEqual(document["part"], "echo-models")
        self.assertGreaterEqual(len(document["rows"]), 1)
        self.assertEqual(document["rows"][0]["status"], "ok", document["rows"][0])
        self.assertGreater(document["rows"][0]["msgs_per_s"], 0)
        with open(os.path.join(results, "REPORT.md")) as f:
            self.assertIn("Interrupted (Ctrl-C): partial", f.read())
        self.assertIn("echo-models interrupted: keeping the", log)
        self.assertTrue(os.path.exists(os.path.join(results, "REPORT.md")))
        self.assertTrue(os.path.exists(os.path.join(results, "report.html")))


class InterruptedPreparationTest(unittest.TestCase):
    def test_ctrl_c_before_the_first_round_says_so_and_exits_130(self):
        results, tmp = tempfile.mkdtemp(), tempfile.mkdtemp()
        process = suite(["--only=echo", "--quick", "--placement=shared"], results, tmp)
        logged = []
        # The run names its folder, then measures the kernel's costs and prepares its parts: Ctrl-C there.
        for line in process.stderr:
            logged.append(line)
            if line.startswith("bench: this run's folder: "):
                process.send_signal(signal.SIGINT)
                break
        _, rest = process.communicate(timeout=300)
        log = "".join(logged) + rest
        self.assertEqual(process.returncode, 130, log)
        self.assertIn("bench: interrupted (Ctrl-C)", log)
        self.assertNotIn("Traceback", log)


class FullDiskTest(unittest.TestCase):
    def test_results_on_a_full_disk_fail_clearly_and_keep_the_document(self):
        results, tmp = tempfile.mkdtemp(), tempfile.mkdtemp()
        target = os.path.join(results, "full", "echo_writeup.json")
        # The results folder: a 64 KiB tmpfs, filled up, in a mount namespace of the suite's own (root: a full
        # disk is a limit root meets too, where file permissions are not).
        # One echo server under one load: a single case.
        argv = ["--only=netbench-poll,netbench-echo-client", "--skip=fanout", "--quick", "--placement=shared"]
        # The runs' folder (NETBENCH_RESULTS_DIR): the full disk's mount; the run's own, "full", is made in it.
        env = {**os.environ, "NETBENCH_RESULTS_DIR": results, "NETBENCH_RESULTS_LABEL": "full", "TMPDIR": tmp,
               "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        script = ('mount -t tmpfs -o size=64k netbench-full "$1" && shift && '
                  '{ dd if=/dev/zero of="$NETBENCH_RESULTS_DIR/filler" bs=4k 2>/dev/null; '
                  'exec "$@"; }')
        process = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", results,
                                  PYTHON, "-m", "bench.cli.suite"] + argv, env=env, capture_output=True,
                                 text=True, timeout=300)
        log = process.stderr
        self.assertEqual(process.returncode, 1, log)
        match = re.search(rf"cannot write {re.escape(target)}: No space left on device \(ENOSPC\); its contents "
                          r"are kept in (\S+)", log)
        self.assertIsNotNone(match, log)
        fallback = match.group(1)
        self.assertTrue(fallback.startswith(tmp + os.sep), fallback)
        with open(fallback) as f:
            document = json.load(f)
        self.assertEqual(document["part"], "echo")
        self.assertEqual([r["status"] for r in document["rows"]], ["ok"])
        self.assertIn("REPORT.md could not be written", log)


if __name__ == "__main__":
    unittest.main()
