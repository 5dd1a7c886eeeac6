"""The result schema: its JSON Schema files are valid ones that any validator reads alone, the stored runs
validate (a fixed, named sample of them and the newest, so that the test's time stays the same as runs are
stored), a document as the suite writes it validates, broken ones are refused with the path of the field that
differs, a document is checked when written and when read, and results/README.md documents every field and file."""

import copy
import glob
import json
import os
import pathlib
import tempfile
import unittest

import jsonschema

from bench.analysis import sequential
from bench.reporting import result_files
from bench.reporting import result_schema
from bench.reporting import run_environment
from bench.reporting import schema_validator
from testing import stored_run_sample

HERE = os.path.dirname(os.path.realpath(__file__))


def data_root():
    for root in (os.environ.get("TEST_SRCDIR", ""),):
        path = os.path.join(root, "netbench", "results")
        if root and os.path.isdir(os.path.join(path, "data")):
            return path
    return os.path.join(HERE, "..", "..", "results")


def sample_documents():
    """{path: document} of the suite's documents in the sample of stored runs (testing/stored_run_sample.py: the
    named runs, which hold every version, and the newest)."""
    found = {}
    for path in sorted(p for folder in stored_run_sample.runs() for p in glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            document = json.load(f)
        if not path.endswith(".registry.json") and not result_schema.other_tool(document):
            found[path] = document
    return found


def echo_writeup(rows=3):
    """A write-up document as the suite writes it now."""
    return {
        "schema": result_schema.current(result_schema.WRITEUP), "part": "echo",
        "environment": run_environment.environment({"send": 3.0}),
        "settings": {"samples": rows, "seconds": 1.0, "clients": 3, "pinned": True},
        "registry": "bench/registry/contestants.json",
        "contestants": [{"name": "go", "role": "server", "system": "go", "about": "Go", "env": {},
                         "command": "{//contestants/go:echo_server}", "status": "ran", "version": "go1.19"},
                        {"name": "racket", "role": "server", "system": "racket", "about": "Racket", "env": {},
                         "command": "racket", "status": "skipped", "why": "not installed"}],
        "verdicts": [{"claim": "Racket beats Go", "verdict": "not measured", "why": "racket skipped"}],
        "rows": [{"status": "ok", "server": "go", "client": "go-spammer", "round": i, "server_cpu_s": 1.0,
                  "client_cpu_s": 1.5, "wall_s": 1.0, "found": {"msgs_per_s": [1000.0 + i]},
                  "msgs_per_s": 1000.0 + i, "messages": 1000.0, "client_cpu_us_per_msg": 1.5,
                  "server_cpu_us_per_msg": 1.0, "tcp_segs_per_msg": None} for i in range(rows)]
                + [{"status": "failed", "server": "racket", "client": "go-spammer", "round": 0,
                    "error": "the server did not start", "tail": ""}],
    }


class StoredRunsTest(unittest.TestCase):
    def test_the_sample_of_stored_runs_matches_its_schema(self):
        documents = sample_documents()
        for path, document in documents.items():
            with self.subTest(path=os.path.relpath(path, data_root())):
                self.assertEqual(result_schema.validate(document), [])
        # The sample holds every version of both schemas: each file is read against a stored run.
        tags = {document["schema"] for document in documents.values()}
        self.assertEqual(tags, {f"{name}/{version}" for name, current in result_schema.CURRENT_VERSION.items()
                                for version in range(1, current + 1)})

    def test_another_tool_s_document_names_its_schema_and_version(self):
        paths = glob.glob(os.path.join(data_root(), "data", "soak", "*.json"))
        paths += glob.glob(os.path.join(data_root(), "data", "linux-x86_64-2cpu-veth-1gbit-ssh", "*.json"))
        others = 0
        for path in paths:
            with open(path) as f:
                document = json.load(f)
            if result_schema.other_tool(document):
                others += 1
                self.assertRegex(document["schema"], r"^netbench\.[a-z_]+/\d+$")
        self.assertGreaterEqual(others, 2)

    def test_readme_documents_every_field_and_file(self):
        with open(os.path.join(data_root(), "README.md")) as f:
            readme = f.read()
        missing = sorted(name for name in result_schema.every_field() if f"`{name}`" not in readme)
        self.assertEqual(missing, [], "fields of results/schema/ that results/README.md does not name")
        files = sorted(schema_validator.schemas())
        self.assertEqual([name for name in files if f"`{name}`" not in readme], [],
                         "schema files that results/README.md does not name")


class SchemaFilesTest(unittest.TestCase):
    """The files are JSON Schema as any validator reads it, without the suite's code."""

    def test_each_kind_and_version_has_a_valid_draft_2020_12_file(self):
        names = schema_validator.schemas()
        expected = {result_schema.file_name(name, version) for name, current in result_schema.CURRENT_VERSION.items()
                    for version in range(1, current + 1)}
        self.assertEqual(set(names), expected)
        for name, schema in names.items():
            with self.subTest(name=name):
                self.assertEqual(schema["$schema"], "https://json-schema.org/draft/2020-12/schema")
                jsonschema.Draft202012Validator.check_schema(schema)

    def test_a_stock_validator_reads_a_stored_run_with_the_files_alone(self):
        folder = pathlib.Path(schema_validator.FOLDER).resolve()
        store = {(folder / p.name).as_uri(): json.loads(p.read_text()) for p in folder.glob("*.schema.json")}
        for tag, stored in (("netbench.writeup/2", "linux-x86_64-2cpu-xeon/echo_writeup.json"),
                            ("netbench.bench/2", "linux-x86_64-2cpu/microbenchmarks.json")):
            uri = (folder / result_schema.file_name(*tag.split("/"))).as_uri()
            validator = jsonschema.Draft202012Validator(
                store[uri], resolver=jsonschema.RefResolver(uri, store[uri], store=store))
            with open(os.path.join(data_root(), "data", stored)) as f:
                document = json.load(f)
            self.assertEqual(document["schema"], tag)
            self.assertEqual([e.message for e in validator.iter_errors(document)], [])
            document["environment"]["cores"] = "two"
            self.assertEqual([list(e.absolute_path) for e in validator.iter_errors(document)],
                             [["environment", "cores"]])

    def test_the_verdicts_tests_name_the_sequential_rules(self):
        writeup = schema_validator.schemas()[result_schema.file_name(*result_schema.current(result_schema.WRITEUP)
                                                                     .split("/"))]
        tests = writeup["$defs"]["verdict"]["properties"]["test"]["enum"]
        self.assertIn(sequential.RULE, tests)
        self.assertTrue(set(sequential.OLDER_RULES) <= set(tests))


class ValidationTest(unittest.TestCase):
    def assert_error(self, document, expected):
        errors = result_schema.validate(document)
        self.assertTrue(any(e.startswith(expected) for e in errors), f"{expected!r} not in {errors}")

    def test_a_document_as_the_suite_writes_it_matches(self):
        self.assertEqual(result_schema.validate(echo_writeup()), [])

    def test_an_interrupted_run_is_marked_partial(self):
        self.assertEqual(result_schema.validate({**echo_writeup(), "partial": True}), [])
        self.assert_error({**echo_writeup(), "partial": "yes"}, "partial: expected")

    def test_verdicts_as_judge_writes_them_match(self):
        from bench.analysis import verdict
        b = [100.0, 200.0, 300.0, 400.0, 500.0]
        cases = {"holds": [x * 1.3 for x in b], "equivalent": [x * 1.001 for x in b],
                 "not separable, more than 1000 rounds": [x * r for x, r in zip(b, (1.05, 0.95, 1.04, 0.96, 1.0))]}
        document = echo_writeup()
        for claim, a in cases.items():
            document["verdicts"].append({"claim": claim, **verdict.judge(a, b, dict(enumerate(a)),
                                                                         dict(enumerate(b)))})
        document["verdicts"].append({"claim": "pooled", **verdict.judge([2.0, 3.0], [1.0, 2.0])})
        document["verdicts"].append({"claim": "missing", **verdict.judge([], [1.0])})
        stored = json.loads(json.dumps(document))
        self.assertEqual(stored["verdicts"][3]["rounds_needed"], "more than 1000")
        self.assertEqual(result_schema.validate(stored), [])

    def test_a_row_without_a_cpu_clock_has_null_and_a_stored_ticks_row_still_reads(self):
        document = echo_writeup()
        document["rows"][0].update(cpu_clock=None, server_cpu_s=None, server_cpu_us_per_msg=None)
        document["rows"][1].update(cpu_clock="ticks")  # as stored before the suite stopped reading them
        document["rows"][2].update(cpu_clock="scheduler")
        self.assertEqual(result_schema.validate(document), [])
        document["rows"][2]["cpu_clock"] = "jiffies"
        self.assert_error(document, "rows[2].cpu_clock: expected one of")

    def test_a_wrong_type_is_named_by_its_path(self):
        document = echo_writeup(rows=5)
        document["rows"][3]["msgs_per_s"] = "fast"
        self.assert_error(document, 'rows[3].msgs_per_s: expected a number or null, found "fast"')

    def test_an_integer_is_an_int_not_a_whole_float(self):
        document = echo_writeup()
        document["rows"][0]["round"] = 1.0
        self.assert_error(document, "rows[0].round: expected an integer, found 1.0")
        document["rows"][0]["round"] = True
        self.assert_error(document, "rows[0].round: expected an integer, found true")

    def test_a_missing_field_is_named(self):
        document = echo_writeup()
        del document["rows"][1]["round"]
        self.assert_error(document, "rows[1].round: missing")

    def test_an_unknown_field_is_named(self):
        document = echo_writeup()
        document["rows"][0]["msgs_per_sec"] = 1.0
        self.assert_error(document, "rows[0].msgs_per_sec: not a field")
        self.assertEqual(result_schema.validate(document), [
            "rows[0].msgs_per_sec: not a field of an echo write-up row (results/README.md lists them)"])
        document["rows"][0]["procs"] = 2  # a websocket row's field, not an echo row's
        self.assert_error(document, "rows[0].procs: not a field of an echo write-up row")
        document["settings"]["seed"] = 1
        self.assert_error(document, "settings.seed: not a field of the settings")

    def test_a_value_outside_its_set_is_named(self):
        document = echo_writeup()
        document["contestants"][0]["status"] = "crashed"
        self.assert_error(document, "contestants[0].status: expected one of")

    def test_nested_samples_are_named_by_their_path(self):
        document = {"schema": "netbench.bench/2", "benchmark": "httpfanout_bench",
                    "environment": echo_writeup()["environment"], "summary": [], "notes": "",
                    "cases": [{"target": "origin-0", "scheme": "http", "client": "go", "requests": 500,
                               "repetitions": 5, "summary": {"wall_s": 0.1},
                               "samples": [{"wall_s": 0.1, "client_cpu_us_per_request": 1.0,
                                            "server_cpu_us_per_request": 1.0, "failed": 0},
                                           {"wall_s": [0.2], "client_cpu_us_per_request": 1.0,
                                            "server_cpu_us_per_request": 1.0, "failed": 0}]}]}
        self.assert_error(document, "cases[0].samples[1].wall_s: expected a number")

    def test_a_histogram_bucket_must_be_a_pair_of_integers(self):
        histogram = {"unit": "ns", "count": 1, "min": 5, "max": 5, "mean": 5.0, "stddev": 0.0,
                     "percentiles": {"50": 5}, "overflow_count": 0, "highest_trackable": 3600000000000,
                     "significant_digits": 3, "buckets": [[5, 1.5]]}
        document = {"schema": "netbench.bench/2", "benchmark": "echo_bench", "summary": [], "notes": "",
                    "environment": echo_writeup()["environment"],
                    "cases": [{"server": "epoll", "load": "pingpong3", "round": 0, "returncode": 0,
                               "msgs_per_s": 1.0}],
                    "histograms": [{"server": "epoll", "load": "pingpong3", "name": "rtt", "rounds": [0],
                                    "histogram": histogram}]}
        self.assert_error(document, "histograms[0].histogram.buckets[0][1]: expected an integer, found 1.5")
        histogram["buckets"] = [[5]]
        self.assert_error(document, "histograms[0].histogram.buckets[0]: expected [lowest value, count]")
        histogram["buckets"] = [[5, 1]]
        self.assertEqual(result_schema.validate(document), [])

    def test_version_2_requires_what_version_1_did_not_have(self):
        document = echo_writeup()
        del document["environment"]["git_dirty"]
        self.assert_error(document, "environment.git_dirty: missing")
        document["schema"] = "netbench.writeup/1"  # the prior version, accepted as it was
        for field in ("cpus_allowed", "build_mode", "sysctls"):
            del document["environment"][field]
        self.assertEqual(result_schema.validate(document), [])

    def test_an_unknown_schema_or_version_is_refused(self):
        document = echo_writeup()
        document["schema"] = "netbench.writeup/9"
        self.assert_error(document, "schema: version 9 of netbench.writeup is unknown here")
        document["schema"] = "something/1"
        self.assert_error(document, "schema: expected one of")


class WrittenAndReadTest(unittest.TestCase):
    """Documents written into a scratch run folder (`self.directory`), removed after each test."""

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def test_a_bad_row_is_written_then_refused_naming_the_field(self):
        document = echo_writeup()
        document.update(part="micro", settings={"samples": 1}, contestants=[], verdicts=[], rows=[
            {"status": "ok", "round": 0, "binary": "//x:y", "benchmark": "BM_X", "cpu_ns": 1.0, "real_ns": 1.0},
            {"status": "ok", "round": 0, "binary": "//x:y", "benchmark": "BM_Y", "cpu_ns": "1", "real_ns": 1.0}])
        path = os.path.join(self.directory.name, "microbenchmarks.json")
        self.assertIn('rows[1].cpu_ns: expected a number or null, found "1"',
                      result_files.write_document(path, document))
        self.assertTrue(os.path.exists(path))  # not lost
        with self.assertRaisesRegex(result_schema.SchemaError, r"microbenchmarks.json does not match"):
            result_schema.load(path)

    def test_a_microbenchmark_stored_as_a_bench_is_read_as_rows(self):
        document = {"schema": "netbench.bench/2", "benchmark": "microbenchmarks", "notes": "", "summary": [],
                    "environment": echo_writeup()["environment"],
                    "cases": [{"binary": "//x:y", "benchmark": "BM_X/64", "cpu_ns": 2.0, "real_ns": 2.1,
                               "GB_per_s": 3.0}]}
        path = os.path.join(self.directory.name, "microbenchmarks.json")
        with open(path, "w") as f:
            json.dump(document, f)
        read = result_schema.load(path)
        self.assertEqual(read["part"], "micro")
        self.assertEqual(read["rows"], [{"binary": "//x:y", "benchmark": "BM_X/64", "cpu_ns": 2.0, "real_ns": 2.1,
                                         "GB_per_s": 3.0, "round": 0, "status": "ok"}])

    def test_a_good_document_round_trips(self):
        path = os.path.join(self.directory.name, "echo_writeup.json")
        document = echo_writeup()
        self.assertEqual(result_files.write_document(path, document), [])
        self.assertEqual(result_schema.load(path), json.loads(json.dumps(document)))

    def test_an_old_run_that_does_not_match_names_the_field(self):
        document = copy.deepcopy(echo_writeup())
        document["schema"] = "netbench.writeup/1"
        document["rows"][2]["round"] = "2"
        path = os.path.join(self.directory.name, "old.json")
        with open(path, "w") as f:
            json.dump(document, f)
        with self.assertRaisesRegex(result_schema.SchemaError, r"rows\[2\]\.round: expected an integer"):
            result_schema.load(path)


if __name__ == "__main__":
    unittest.main()
