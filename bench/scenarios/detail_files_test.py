"""The detail scenarios' files (bench/registry/details/*.toml, claim_files.detail) give the stored runs' claims:
each stored detail document's rows give, field for field and in order, the claims in detail_files_test.json,
which the Python that made them wrote before the claims became data."""

import dataclasses
import glob
import json
import os
import unittest

from bench.analysis import judged_link
from bench.reporting import result_schema
from bench.scenarios import claim_files

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "results", "data")
EXPECTED = os.path.join(HERE, "detail_files_test.json")
NAMES = ("echo", "websocket", "httpfanout")


def said(claims):
    """Each claim as JSON text: every field, and its cells' keys in their order; `control`, which no detail
    claim is and which came after the fixture, only where set."""
    return [json.dumps({k: v for k, v in dataclasses.asdict(c).items() if not (k == "control" and v is False)})
            for c in claims]


def stored_rows():
    """{"RUN/NAME_bench.json": (detail name, rows)} of every stored detail document."""
    out = {}
    for name in NAMES:
        for path in sorted(glob.glob(os.path.join(DATA, "*", f"{name}_bench.json"))):
            rows = judged_link.on_the_judged_link(result_schema.load(path)["rows"])
            out[os.path.relpath(path, DATA)] = (name, rows)
    return out


class StoredRunsTest(unittest.TestCase):
    def test_the_files_give_the_stored_runs_claims(self):
        with open(EXPECTED) as f:
            expected = json.load(f)
        found = stored_rows()
        self.assertEqual(sorted(found), sorted(expected))
        for document, (name, rows) in found.items():
            with self.subTest(document=document):
                self.assertTrue(expected[document])
                self.assertEqual(said(claim_files.detail(name).claims(rows)),
                                 [json.dumps(claim) for claim in expected[document]])

    def test_no_rows_no_claims_but_those_of_go(self):
        # Go's comparisons are made whether it ran or not (a missing cell's verdict says why).
        self.assertEqual([c.a["server"] for c in claim_files.detail("echo").claims([])], ["go", "go"])
        self.assertEqual(len(claim_files.detail("websocket").claims([])), 4)
        self.assertEqual(claim_files.detail("httpfanout").claims([]), [])


if __name__ == "__main__":
    unittest.main()
