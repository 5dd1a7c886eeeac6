"""A run with another program beside it: the suite as a real process (`python3 -m bench.cli.suite`) over the echo
write-up's claims (Racket's, Go's and Go's GOMAXPROCS=1 servers under netbench's client, shared placement, a
small budget), and a CPU hog (`yes`, bounded by `timeout`) that the test starts once the first run is done and
stops once the progress lines have set a few runs aside. The hog's runs are set aside and named (its name and
pid in the rows, the claims' lines and the last screen; in the progress lines too, unless a busier program
beside it is the top one), the claims are judged, and decided,
from the rounds after it stopped, and no line reads "not measured". No clock is read: the test waits on the
suite's progress lines and its stored rows."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import unittest

from bench.analysis import verdict

PYTHON = "/usr/bin/python3"
# The echo write-up's three servers under netbench's client, and nothing else of the registry.
WANTED = ["--only=racket,go,go-gomaxprocs1,netbench-echo-client", "--skip=go-spammer,websocket,fanout"]
# The runs set aside beside the hog before the test stops it: a round and a half of the three servers.
NAMED_RUNS = 4
DECIDED = (verdict.HOLDS, verdict.REVERSED, verdict.SAME_CONFIGURATION)


def suite(args, results_dir, tmpdir):
    env = {**os.environ, "NETBENCH_RESULTS_DIR": results_dir, "NETBENCH_RESULTS_LABEL": "busy", "TMPDIR": tmpdir,
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return subprocess.Popen([PYTHON, "-m", "bench.cli.suite"] + args, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def start_hog():
    """A busy loop beside the suite (not its child: the test's): `yes`, its pid said by the shell it replaces,
    ended by `timeout` if the test never stops it. (the timeout process, the hog's pid)."""
    hog = subprocess.Popen(["timeout", "900", "sh", "-c", "echo $$; exec yes >/dev/null"], stdout=subprocess.PIPE,
                           text=True)
    return hog, int(hog.stdout.readline())


def named_pids(row, what="name"):
    """{pid: name (or `what`)} of the programs a row's neighbours name: the top one and the two after it."""
    near = (row.get("noise") or {}).get("neighbours") or {}
    return {n["pid"]: n[what] for n in ([near["top"]] if near.get("top") else []) + near.get("next", [])}


def stop(process):
    if process is not None and process.poll() is None:
        process.send_signal(signal.SIGTERM)  # timeout passes it on to the hog
        process.wait()


class BusyNeighbourTest(unittest.TestCase):
    def test_the_hog_s_rounds_are_set_aside_and_named_and_the_claims_decided_after_it(self):
        results, tmp = tempfile.mkdtemp(), tempfile.mkdtemp()
        process = suite(WANTED + ["--placement=shared", "--budget=5m", "--echo-seconds=2"], results, tmp)
        hog, pid, named, logged, busy = None, None, [], [], None
        try:
            for line in process.stderr:
                logged.append(line)
                if line.startswith("bench: this machine is busy: "):
                    busy = line.strip()  # others' programs would be set aside too: no hog of ours can be told
                    process.send_signal(signal.SIGINT)
                    break
                if hog is None and line.startswith("echo round "):
                    hog, pid = start_hog()  # the first run is done: the rest of its round runs beside the hog
                elif hog is not None and hog.poll() is None and "; set aside: other programs took" in line:
                    named.append(line)
                    if len(named) == NAMED_RUNS:
                        stop(hog)
            summary = process.stdout.read()
            process.wait()
        finally:
            stop(hog)
            if process.poll() is None:
                process.kill()
                process.wait()
            for pipe in (process.stdout, process.stderr, hog.stdout if hog else None):
                if pipe is not None:
                    pipe.close()
        log = "".join(logged)
        if busy:
            self.skipTest(f"this test needs a machine quiet apart from its hog; the suite said: {busy}")
        self.assertEqual(len(named), NAMED_RUNS, log)
        self.assertIn("bench: the machine's quiet level: other programs took", log)
        for line in named:  # the top one by name and pid: the hog, unless a busier program ran too
            self.assertRegex(line, r"^echo round \d+: .*; set aside: other programs took [\d.]+% of the CPUs "
                                   r"\([^,]+, pid \d+\)$")
        with open(os.path.join(results, "busy", "echo_writeup.json")) as f:
            document = json.load(f)
        rows = document["rows"]
        hogged = [r for r in rows if pid in named_pids(r)]
        self.assertTrue(hogged, log)
        for row in hogged:
            self.assertEqual(named_pids(row)[pid], "yes")
            if row["noise"]["neighbours"]["top"]["pid"] == pid:  # not the run it was stopped in, briefly there
                self.assertIsNotNone(verdict.disturbance(row), row["noise"])
        print(f"quiet level: {hogged[0]['noise']['neighbours']['quiet_share']:.4f}; the hog's runs: neighbours' "
              f"share {[round(r['noise']['neighbours']['share'], 3) for r in hogged]}, the hog's CPU s "
              f"{[round(named_pids(r, 'cpu_s')[pid], 2) for r in hogged]} in runs of "
              f"{[round(r['noise']['wall_s'], 2) for r in hogged]} s; lines: "
              f"{[(v['claim'], v['verdict'], (v.get('sequence') or {}).get('rounds')) for v in document['verdicts']]}")
        self.assertIn("quiet_share", hogged[0]["noise"]["neighbours"])
        last_hogged = max(r["round"] for r in hogged)
        self.assertGreater(max(r["round"] for r in rows), last_hogged)  # rounds ran after it stopped
        lines = document["verdicts"]
        self.assertTrue(lines)
        for line in lines:
            with self.subTest(claim=line["claim"]):
                self.assertNotEqual(line["verdict"], verdict.NOT_MEASURED, line)
                decided = line["verdict"] in DECIDED or line["verdict"].startswith("equivalent within")
                if not decided:  # only where other programs came after the hog and took its rounds too
                    cells = [r for r in rows if r["round"] > last_hogged and (
                        all(r.get(k) == v for k, v in line["a"].items())
                        or all(r.get(k) == v for k, v in line["b"].items()))]
                    others = [r for r in cells if verdict.disturbance(r)]
                    self.assertTrue(others, line)
                    self.assertTrue(line["set_aside"]["top"], line)
                # Judged from rounds after the hog: every round it took most in is set aside, and named.
                cells = [r for r in hogged if r["noise"]["neighbours"]["top"]["pid"] == pid and (
                    all(r.get(k) == v for k, v in line["a"].items())
                    or all(r.get(k) == v for k, v in line["b"].items()))]
                if cells:
                    self.assertGreaterEqual(line["set_aside"]["rounds"], len({r["round"] for r in cells}))
                    self.assertIn((pid, "yes"), [(t["pid"], t["name"]) for t in line["set_aside"]["top"]])
        self.assertNotIn("not measured", summary)
        self.assertIn("set aside (not counted): echo ", summary)
        self.assertIn(f"yes (pid {pid}, ", summary)
        print(summary)


if __name__ == "__main__":
    unittest.main()
