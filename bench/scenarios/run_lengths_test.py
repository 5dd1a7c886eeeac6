"""run_lengths: a stored dimensioning study cut down to its headline claim in the shared placement, and the
sentence a section gives of it."""

import json
import os
import tempfile
import unittest

from bench.scenarios import run_lengths


def line(length, servers, ratio):
    found = {"rounds": 4, "geomean_ratio": ratio, "ci95": [ratio - 0.1, ratio + 0.1]}
    return {"study": "echo", "placement": "shared", "length": length, "servers": servers,
            "msgs_per_s": found, "steady_msgs_per_s": found, "classes": {"flat": 8}}


STUDY = {"environment": {"machine_label": "m", "cpu_model": "CPU", "timestamp_utc": "T"},
         "claims": {"echo": {"text": "Racket beats Go in msgs/s"}},
         "table": [line(1, "kept", 1.3), line(4, "kept", 1.02), line(180, "kept", 1.0), line(1, "per_run", 0.9),
                   {**line(4, "kept", 2.0), "placement": "split"}],
         "recommendation": {"echo shared": {"length": 4, "reference_length": 180}}}


class RunLengthsTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.folder.name, "dimensioning.json")
        with open(self.path, "w") as f:
            json.dump(STUDY, f)

    def tearDown(self):
        self.folder.cleanup()

    def test_the_shared_placements_lines_of_the_part(self):
        study = run_lengths.study_for("echo", self.path)
        self.assertEqual((study["recommended"], study["reference_length"], study["cpu"]), (4, 180, "CPU"))
        self.assertEqual([(p["length"], p["servers"]) for p in study["points"]],
                         [(1, "kept"), (4, "kept"), (180, "kept"), (1, "per_run")])
        self.assertEqual(study["points"][1]["steady"], [1.02, 0.92, 1.12])
        self.assertIsNone(run_lengths.study_for("websocket", self.path))
        self.assertIsNone(run_lengths.study_for("echo", self.path + ".missing"))

    def test_the_note_gives_the_shortest_the_chosen_and_the_writeups_length(self):
        study = run_lengths.study_for("echo", self.path)
        said = run_lengths.note(study, 4)
        self.assertIn("Run length 4 s: the shortest whose ratio agreed", said)
        self.assertIn("1.300 (1.200 .. 1.400) at 1 s; 1.020 (0.920 .. 1.120) at 4 s; 1.000 (0.900 .. 1.100) at 180 s",
                      said)
        self.assertIn("the write-up's own (--as-written)", run_lengths.note(study, 180, as_written=True))
        self.assertEqual(run_lengths.note(None, 4), "")


if __name__ == "__main__":
    unittest.main()
