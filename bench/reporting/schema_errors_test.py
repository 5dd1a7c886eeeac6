"""jsonschema's errors in the README's words: each names its field's path, by path, once."""

import unittest

import jsonschema

from bench.reporting import schema_errors

ROW = {"title": "a row", "type": "object", "additionalProperties": False, "required": ["round"],
       "properties": {"round": {"type": "integer"}, "rate": {"type": ["number", "null"]},
                      "status": {"enum": ["ok", "failed"]},
                      "verdict": {"anyOf": [{"enum": ["holds"]}, {"type": "string", "pattern": "^equivalent"}]},
                      "found": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "number"}}},
                      "bucket": {"title": "[lowest value, count]", "type": "array", "minItems": 2}}}
SCHEMA = {"type": "object", "properties": {"rows": {"type": "array", "items": ROW}}}


def said(document):
    errors = jsonschema.Draft202012Validator(SCHEMA).iter_errors(document)
    return schema_errors.messages(errors, lambda schema: set(schema.get("properties", {})))


class MessagesTest(unittest.TestCase):
    def test_each_error_names_its_path(self):
        self.assertEqual(said({"rows": [{"round": 0}, {"round": 1, "rate": "fast"}]}),
                         ['rows[1].rate: expected a number or null, found "fast"'])
        self.assertEqual(said({"rows": [{"round": 0, "found": {"msgs_per_s": [1, "x"]}}]}),
                         ['rows[0].found.msgs_per_s[1]: expected a number, found "x"'])
        self.assertEqual(said([]), ["document: expected an object, found []"])

    def test_missing_and_unknown_fields_are_named_one_by_one_with_their_object(self):
        self.assertEqual(said({"rows": [{"rat": 1, "sttus": "ok"}]}), [
            "rows[0].rat: not a field of a row (results/README.md lists them)",
            "rows[0].sttus: not a field of a row (results/README.md lists them)",
            "rows[0].round: missing (a field of a row)"])

    def test_a_set_of_values_a_pattern_or_a_length_is_said(self):
        self.assertEqual(said({"rows": [{"round": 0, "status": "crashed", "verdict": "maybe", "bucket": [5]}]}), [
            "rows[0].bucket: expected [lowest value, count], found [5]",
            "rows[0].status: expected one of 'ok', 'failed', found \"crashed\"",
            "rows[0].verdict: expected one of 'holds' or a string matching ^equivalent, found \"maybe\""])

    def test_errors_come_by_path_a_list_s_items_by_index(self):
        schema = {"properties": {"z": {"type": "integer"}, "a": {"type": "array", "items": {"type": "integer"}}}}
        errors = jsonschema.Draft202012Validator(schema).iter_errors({"z": "x", "a": [0, 0, "p"] + [0] * 7 + ["q"]})
        self.assertEqual([line.partition(":")[0] for line in schema_errors.messages(errors, lambda _: set())],
                         ["a[2]", "a[10]", "z"])
        self.assertEqual(schema_errors.path_of(["rows", 3, "found", "99.9"]), "rows[3].found.99.9")

if __name__ == "__main__":
    unittest.main()
