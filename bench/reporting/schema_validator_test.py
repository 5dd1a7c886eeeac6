"""The validator of the schema files: a row made of parts is closed over the fields its parts name, a part that
fails is reported once, by its own field, and an integer is an int."""

import unittest

from bench.reporting import schema_validator

WRITEUP = "netbench.writeup-4.schema.json"


def row_errors(definition, row):
    """(path, keyword) of each error of `row` against the definition `definition` of the newest write-up file."""
    validator = schema_validator.for_file(WRITEUP)
    errors = validator.evolve(schema=validator.schema["$defs"][definition]).iter_errors(row)
    return sorted((".".join(map(str, e.absolute_path)), e.validator) for e in errors)


class ClosedObjectTest(unittest.TestCase):
    def test_a_row_names_the_fields_of_its_parts_and_its_own(self):
        row = schema_validator.for_file(WRITEUP).schema["$defs"]["websocket_row"]
        fields = schema_validator.fields_of(row)
        self.assertTrue({"round", "noise", "server", "client", "msgs_per_s", "procs"} <= fields)
        self.assertNotIn("binary", fields)  # a microbenchmark row's
        self.assertEqual(schema_validator.fields_of({"properties": {"a": {}}}), {"a"})

    def test_a_field_no_part_names_is_refused_and_a_failed_part_only_by_its_field(self):
        row = {"status": "ok", "round": 0, "server": "go", "client": "go-spammer", "msgs_per_s": 1.0}
        self.assertEqual(row_errors("echo_row", row), [])
        self.assertEqual(row_errors("echo_row", {**row, "binary": "//x:y"}), [("", "unevaluatedProperties")])
        self.assertEqual(row_errors("micro_row", {**row, "binary": "//x:y", "benchmark": "BM_X"}),
                         [("", "unevaluatedProperties")])  # server, client and msgs_per_s are no micro row's
        self.assertEqual(row_errors("echo_row", {**row, "round": "0"}), [("round", "type")])

    def test_an_integer_is_an_int(self):
        row = {"status": "ok", "round": 0, "server": "go", "client": "go-spammer"}
        for value, errors in ((3, []), (3.0, [("round", "type")]), (True, [("round", "type")])):
            with self.subTest(value=value):
                self.assertEqual(row_errors("echo_row", {**row, "round": value}), errors)
        self.assertEqual(row_errors("echo_row", {**row, "msgs_per_s": 3}), [])  # a number may be an int

    def test_every_file_refers_to_what_exists(self):
        for name in schema_validator.schemas():
            with self.subTest(name=name):
                validator = schema_validator.for_file(name)
                # An empty object meets every reference on its way to "required": an unresolvable one raises.
                self.assertTrue(list(validator.iter_errors({})))


if __name__ == "__main__":
    unittest.main()
